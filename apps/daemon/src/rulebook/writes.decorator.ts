import { SetMetadata } from '@nestjs/common';

import type { Rule } from '@app/core';

export const WRITES = 'svc:writes';

// Names the rules a mutating route passes (issue 36). Every non-GET route carries one (the census test fails on one
// without); the rulebook notes each rule as it checks it, and the write context interceptor reports a declared rule
// that a successful write never checked.
export const Writes = (...rules: Rule[]) => SetMetadata(WRITES, rules);
