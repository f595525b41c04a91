import { Module } from '@nestjs/common';

import { FrontierModule } from '../frontier/frontier.module';
import { MachineAuthorizationModule } from '../machine-authorization/machine-authorization.module';
import { SweepsService } from './sweeps.service';

@Module({ imports: [MachineAuthorizationModule, FrontierModule], providers: [SweepsService] })
export class SweepsModule {}
