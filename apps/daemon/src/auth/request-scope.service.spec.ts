import { RequestScopeService } from './request-scope.service';

describe(RequestScopeService.name, () => {
  it('should read back the organization of a header this process made', () => {
    const sut = new RequestScopeService();
    expect(sut.read(sut.header(7))).toBe(7);
  });

  it('should ignore a header another process made', () => {
    expect(new RequestScopeService().read(new RequestScopeService().header(7))).toBeNull();
  });

  it.each([undefined, ['1.x'], '', '7', '.secret', 'x.secret'])('should ignore the header %j', (value) => {
    expect(new RequestScopeService().read(value)).toBeNull();
  });

  it.each(['0', '-1', '1.5'])('should ignore organization id %s with the right secret', (id) => {
    const sut = new RequestScopeService();
    const secret = sut.header(1).slice(2);
    expect(sut.read(`${id}.${secret}`)).toBeNull();
  });
});
