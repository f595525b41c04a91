import { Module } from '@nestjs/common';

import { MachineAuthorizationModule } from '../machine-authorization/machine-authorization.module';
import { SweepsService } from './sweeps.service';

@Module({ imports: [MachineAuthorizationModule], providers: [SweepsService] })
export class SweepsModule {}
