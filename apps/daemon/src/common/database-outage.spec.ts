import { isDataException, isDatabaseUnavailable } from './database-outage';

const withCode = (code: string, extra: Record<string, unknown> = {}) => Object.assign(new Error('x'), { code }, extra);

describe(isDatabaseUnavailable.name, () => {
  it.each([
    ['a refused connection', withCode('ECONNREFUSED')],
    ['a missing Unix socket on connect', withCode('ENOENT', { syscall: 'connect' })],
    ['an admin shutdown (57P01)', withCode('57P01')],
    ['a server starting up (57P03)', withCode('57P03')],
    ['a connection exception (08006)', withCode('08006')],
    ['a terminated connection', new Error('Connection terminated unexpectedly')],
    ['a wrapped driver error', Object.assign(new Error('query failed'), { driverError: withCode('57P01') })],
    ['a released query runner', Object.assign(new Error('x'), { name: 'QueryRunnerAlreadyReleasedError' })],
    ['an aggregate of refusals', new AggregateError([withCode('ECONNREFUSED')], 'all failed')],
  ])('should call %s an outage', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('23505')],
    ['a missing file that is not a socket', withCode('ENOENT', { syscall: 'open' })],
    ['a programming error', new TypeError('undefined is not a function')],
    ['a value out of range', withCode('22003')],
    ['nothing', undefined],
  ])('should not call %s an outage', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});

describe(isDataException.name, () => {
  it('should recognise class 22 through a TypeORM wrapper', () => {
    expect(isDataException({ driverError: withCode('22003') })).toBe(true);
    expect(isDataException(withCode('23505'))).toBe(false);
  });
});
