import { redactUrl } from './logging';

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
