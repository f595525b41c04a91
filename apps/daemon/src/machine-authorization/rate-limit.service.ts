import { Injectable } from '@nestjs/common';

import { RateLimitRepository, WindowCount } from './rate-limit.repository';

export type { WindowCount };

// The one-minute rate counters (shared by every replica), for the features outside machine-authorization/ that
// count attempts in them (the approval page's sign-in budgets). The repository stays private to this feature.
@Injectable()
export class RateLimitService {
  constructor(private readonly counters: RateLimitRepository) {}

  hit(scope: string, subject: string): Promise<WindowCount> {
    return this.counters.hit(scope, subject);
  }

  peek(scope: string, subjects: string[]): Promise<WindowCount> {
    return this.counters.peek(scope, subjects);
  }
}
