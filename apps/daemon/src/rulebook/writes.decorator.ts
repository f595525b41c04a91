import { SetMetadata } from '@nestjs/common';

import type { Rule } from '@app/core';

export const WRITES = 'svc:writes';

// Every non-GET route carries one (a census test checks); WriteContextGuard puts the route's rules in its write
// context (`declared`), beside those the rulebook checked (`passed`).
export const Writes = (...rules: Rule[]) => SetMetadata(WRITES, rules);
