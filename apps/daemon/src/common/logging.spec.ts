import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';

import pinoHttp, { Options } from 'pino-http';

import {
  DaemonLogger,
  loggerParams,
  nestLogLevel,
  prettyMessage,
  redactUrl,
  requestLogLevel,
  resolveLogFormat,
} from './logging';

describe(redactUrl.name, () => {
  it('should hide a user code in the approval page path', () => {
    expect(redactUrl('/machine-approval/BCDF-GHJK')).toBe('/machine-approval/[redacted]');
  });

  it('should hide a code in the function path and drop the query', () => {
    expect(redactUrl('/v1/machine-authorizations/BCDFGHJK?x=1')).toBe('/v1/machine-authorizations/[redacted]?[query]');
  });

  it('should keep ordinary paths when they carry no code', () => {
    expect(redactUrl('/v1/charge/frontier')).toBe('/v1/charge/frontier');
  });
});

describe(resolveLogFormat.name, () => {
  it('should pick readable lines on a terminal and JSON lines otherwise when left to auto', () => {
    expect(resolveLogFormat('auto', true)).toBe('pretty');
    expect(resolveLogFormat('auto', false)).toBe('json');
  });

  it('should follow SVC_LOG_FORMAT whatever stdout is', () => {
    expect(resolveLogFormat('json', true)).toBe('json');
    expect(resolveLogFormat('pretty', false)).toBe('pretty');
  });
});

describe(requestLogLevel.name, () => {
  it.each([
    [200, 'info'],
    [204, 'info'],
    [302, 'info'],
    [304, 'info'],
    [400, 'warn'],
    [404, 'warn'],
    [429, 'warn'],
    [500, 'error'],
    [502, 'error'],
    [503, 'warn'],
  ] as const)('should log a %i answer at %s', (status, level) => {
    expect(requestLogLevel(status)).toBe(level);
  });

  it('should log a request that failed with an error at error whatever its status', () => {
    expect(requestLogLevel(200, new Error('socket closed'))).toBe('error');
  });

  it('should log a 503 at warn even with the error pino-http makes of it (a retryable answer, not a fault)', () => {
    expect(requestLogLevel(503, new Error('failed with status code 503'))).toBe('warn');
  });
});

describe(nestLogLevel.name, () => {
  it.each(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication'])(
    'should demote %s start-up lines to debug',
    (context) => {
      expect(nestLogLevel(context)).toBe('debug');
    },
  );

  it('should keep the daemon own lines at info', () => {
    expect(nestLogLevel('BootstrapService')).toBe('info');
    expect(nestLogLevel(undefined)).toBe('info');
  });
});

describe(DaemonLogger.name, () => {
  const inner = () => ({ log: jest.fn(), error: jest.fn(), warn: jest.fn(), debug: jest.fn(), verbose: jest.fn() });

  it('should route a Nest start-up line to debug and keep its context', () => {
    const sut = inner();
    new DaemonLogger(sut).log('AppModule dependencies initialized', 'InstanceLoader');
    expect(sut.debug).toHaveBeenCalledWith('AppModule dependencies initialized', 'InstanceLoader');
    expect(sut.log).not.toHaveBeenCalled();
  });

  it('should pass other lines through at their level', () => {
    const sut = inner();
    const logger = new DaemonLogger(sut);
    logger.log('first boot', 'BootstrapService');
    logger.warn('careful', 'Sweeps');
    expect(sut.log).toHaveBeenCalledWith('first boot', 'BootstrapService');
    expect(sut.warn).toHaveBeenCalledWith('careful', 'Sweeps');
  });
});

describe(prettyMessage.name, () => {
  it('should write a request as method, route, status and time', () => {
    const line = prettyMessage(
      {
        msg: 'request completed',
        method: 'GET',
        route: '/v1/items',
        status: 200,
        duration_ms: 3.2,
      },
      'msg',
    );
    expect(line).toBe('GET /v1/items → 200 (3 ms)');
  });

  it('should put the context before the message', () => {
    expect(prettyMessage({ msg: 'first boot', context: 'BootstrapService' }, 'msg')).toBe(
      '[BootstrapService] first boot',
    );
  });
});

describe(loggerParams.name, () => {
  // a real request through pino-http with the daemon's options: what its lines hold
  const linesOf = async (
    handle: (req: IncomingMessage & { log: { info: (o: object, m: string) => void } }) => void,
  ) => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const logger = pinoHttp(loggerParams('info').pinoHttp as Options, sink);
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      (req as { id?: string }).id = 'r1';
      logger(req, res);
      handle(req as never);
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      await fetch(`http://127.0.0.1:${port}/v1/items?token=q`, { headers: { authorization: 'Bearer svc_secret' } });
      for (let k = 0; k < 100 && lines.length < 2; k++) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      server.close();
    }
    return lines;
  };

  it('should redact secrets in a line logged during a request and bind it to the request id alone', async () => {
    const lines = await linesOf((req) => req.log.info({ token: 'svc_t', nested: { password: 'p' } }, 'inside'));
    const inside = lines.find((line) => line.msg === 'inside');
    expect(inside).toMatchObject({ reqId: 'r1', token: '[redacted]', nested: { password: '[redacted]' } });
    expect(inside).toHaveProperty('pid');
    expect(inside).not.toHaveProperty('req');
    const access = lines.find((line) => line.msg === 'request completed');
    expect(access).toMatchObject({ method: 'GET', status: 200 });
    expect(JSON.stringify(lines)).not.toContain('svc_secret');
  });
});
