import type { Type } from '@nestjs/common';

import { EventsModule } from './events/events.module';
import { RefsModule } from './refs/refs.module';

// The daemon's feature modules. Each feature adds its module here (one line each); app.module.ts imports the list.
export const FEATURE_MODULES: Type[] = [RefsModule, EventsModule];
