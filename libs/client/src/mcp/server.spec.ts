import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { SvcApi } from '../api';
import { EventStreamOptions, openFollowingEventStream } from '../event-stream';
import { SvcHttpError } from '../http-client';
import { harnessToken, SvcMcpSession } from './server';

// The live stream is the one part faked here: the test reads what it was asked to follow.
jest.mock('../event-stream', () => ({
  ...jest.requireActual<object>('../event-stream'),
  openFollowingEventStream: jest.fn(),
}));

describe('harnessToken', () => {
  it.each([
    ['Claude Code', 'claude-code'],
    ['codex', 'codex'],
    ['Gemini CLI/1.0', 'gemini-cli/1.0'],
    ['  --', null],
    [undefined, null],
  ])('should make %p the token %p', (name, token) => {
    expect(harnessToken(name)).toBe(token);
  });
});

describe('SvcMcpSession (in memory)', () => {
  const blocker = {
    blocker: 'ATL-4',
    gate_point: 'activation',
    satisfaction: 'status:done',
    reason: 'ATL-4 is planned',
    need: 'ATL-4 must reach done',
    blocker_status: 'planned',
    blocker_title: 'Lexer',
    blocking_terminal: false,
    blocking_abandoned: false,
  };
  const refusal = {
    code: 'blocked_by_dependencies',
    message: 'ATL-6 cannot reach implementing',
    blockers: [blocker],
  };

  async function connect(api: Partial<Record<keyof SvcApi, jest.Mock>>, name = 'Claude Code') {
    const mcp = new SvcMcpSession({ api: api as unknown as SvcApi, token: 't', project: 'atl', version: '0.0.0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.server.connect(serverSide);
    const client = new Client({ name, version: '1' });
    await client.connect(clientSide);
    return { mcp, client };
  }

  const session = { session_id: 7, harness: 'claude-code', model: 'unknown', lane: 'primary' };

  it('should register the session with the client’s name as harness and end it on close', async () => {
    const api = {
      registerSession: jest.fn().mockResolvedValue(session),
      heartbeat: jest.fn().mockResolvedValue({}),
      endSession: jest.fn().mockResolvedValue({}),
    };
    const { mcp, client } = await connect(api);
    await mcp.sessionId;
    expect(api.registerSession).toHaveBeenCalledWith({
      harness: 'claude-code',
      model: 'unknown',
      project: 'atl',
      label: 'svc mcp',
    });
    await mcp.close();
    expect(api.endSession).toHaveBeenCalledWith(7);
    await client.close();
  });

  it('should answer a gate refusal as a tool error: code and message, each blocker, then the daemon’s body', async () => {
    const api = {
      registerSession: jest.fn().mockResolvedValue(session),
      endSession: jest.fn().mockResolvedValue({}),
      setItemStatus: jest.fn().mockRejectedValue(new SvcHttpError(409, refusal)),
    };
    const { mcp, client } = await connect(api);
    const result = (await client.callTool({
      name: 'set_status',
      arguments: { item: 'ATL-6', status: 'implementing' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    const lines = (result.content[0] as { text: string }).text.split('\n');
    expect(lines).toEqual([
      'blocked_by_dependencies: ATL-6 cannot reach implementing',
      '- ATL-4 (planned) [status:done]: ATL-4 must reach done',
      JSON.stringify(refusal),
    ]);
    await mcp.close();
    await client.close();
  });

  it('should refuse an argument the tool does not take, naming the ones it does, and call nothing', async () => {
    const api = {
      registerSession: jest.fn().mockResolvedValue(session),
      endSession: jest.fn().mockResolvedValue({}),
      createItem: jest.fn().mockResolvedValue({}),
    };
    const { mcp, client } = await connect(api);
    const result = (await client.callTool({
      name: 'create_item',
      arguments: { title: 'Parser', description: 'the body, under the wrong name' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(
      /unknown argument description: create_item takes only title, project, priority, status, workflow, body, spec/,
    );
    expect(api.createItem).not.toHaveBeenCalled();
    const tools = await client.listTools();
    const createItem = tools.tools.find((t) => t.name === 'create_item')!;
    expect(createItem.inputSchema.additionalProperties).toBe(false);
    await mcp.close();
    await client.close();
  });

  it('should register a new session when the heartbeat finds its session ended elsewhere', async () => {
    const api = {
      registerSession: jest
        .fn()
        .mockResolvedValueOnce(session)
        .mockResolvedValueOnce({ ...session, session_id: 8 }),
      heartbeat: jest.fn().mockRejectedValue(new SvcHttpError(409, { code: 'session_ended', message: 'ended' })),
      endSession: jest.fn().mockResolvedValue({}),
    };
    const mcp = new SvcMcpSession({
      api: api as unknown as SvcApi,
      token: 't',
      project: 'atl',
      version: '0.0.0',
      heartbeatMs: 10,
    });
    expect(await mcp.sessionId).toBe(7);
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (api.heartbeat.mock.calls.length > 0) {
          clearInterval(poll);
          resolve();
        }
      }, 5);
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(await mcp.sessionId).toBe(8);
    await mcp.close();
    expect(api.endSession).toHaveBeenCalledWith(8);
  });

  it('should ask the live stream for the frontier notices of the subscribed projects, and follow (un)subscriptions', async () => {
    const follow = jest.fn();
    const opened = jest.mocked(openFollowingEventStream).mockImplementation((options: EventStreamOptions) => {
      // open at once: the subscribe answer waits for it
      setImmediate(() => options.onStatus?.('open'));
      return { follow, close: jest.fn() } as unknown as ReturnType<typeof openFollowingEventStream>;
    });
    const api = {
      registerSession: jest.fn().mockResolvedValue(session),
      heartbeat: jest.fn().mockResolvedValue({}),
      endSession: jest.fn().mockResolvedValue({}),
    };
    const { mcp, client } = await connect(api);
    await client.subscribeResource({ uri: 'svc://frontier/atl' });
    expect(opened).toHaveBeenCalledTimes(1);
    expect(opened.mock.calls[0][0].frontier).toEqual(['atl']);
    await client.subscribeResource({ uri: 'svc://frontier/beta' });
    expect(opened).toHaveBeenCalledTimes(1);
    expect(follow).toHaveBeenLastCalledWith(['atl', 'beta']);
    await client.unsubscribeResource({ uri: 'svc://frontier/atl' });
    expect(follow).toHaveBeenLastCalledWith(['beta']);
    await client.close();
    await mcp.close();
  });
});
