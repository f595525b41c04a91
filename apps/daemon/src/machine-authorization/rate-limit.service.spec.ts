import { RateLimitRepository } from './rate-limit.repository';
import { RateLimitService } from './rate-limit.service';

function makeSut() {
  const counters = {
    hit: jest.fn(async (_scope: string, _subject: string) => ({ hits: 4, retryAfter: 20 })),
    peek: jest.fn(async (_scope: string, _subjects: string[]) => ({ hits: 2, retryAfter: 50 })),
  };
  return { sut: new RateLimitService(counters as unknown as RateLimitRepository), counters };
}

describe(RateLimitService.name, () => {
  it('should count a hit in the scope and subject asked', async () => {
    const { sut, counters } = makeSut();
    expect(await sut.hit('approval_sign_in_fail_client', '10.0.0.5')).toEqual({ hits: 4, retryAfter: 20 });
    expect(counters.hit).toHaveBeenCalledWith('approval_sign_in_fail_client', '10.0.0.5');
  });

  it('should read the highest count among the subjects without counting', async () => {
    const { sut, counters } = makeSut();
    expect(await sut.peek('approval_sign_in_fail_client', ['a', 'b'])).toEqual({ hits: 2, retryAfter: 50 });
    expect(counters.peek).toHaveBeenCalledWith('approval_sign_in_fail_client', ['a', 'b']);
    expect(counters.hit).not.toHaveBeenCalled();
  });
});
