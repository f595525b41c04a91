import { SetMetadata } from '@nestjs/common';

import type { Rule } from '@app/core';

export const WRITES = 'svc:writes';

// Every non-GET route carries one (a census test checks).
export const Writes = (...rules: Rule[]) => SetMetadata(WRITES, rules);
