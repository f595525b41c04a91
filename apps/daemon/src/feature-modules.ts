import type { Type } from '@nestjs/common';

// The daemon's feature modules. Each feature adds its module here; app.module.ts imports the list.
export const FEATURE_MODULES: Type[] = [];
