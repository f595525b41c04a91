import { Injectable } from '@nestjs/common';

import { RateLimitRepository, WindowCount } from './rate-limit.repository';

export type { WindowCount };

// For features outside machine-authorization/ (the approval page's sign-in budgets); the repository stays private.
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
