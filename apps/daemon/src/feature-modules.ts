import type { Type } from '@nestjs/common';

import { ApprovalPageModule } from './approval-page/approval-page.module';
import { DbClaimsModule } from './db-claims/db-claims.module';
import { ChargeModule } from './charge/charge.module';
import { EventsModule } from './events/events.module';
import { FrontierModule } from './frontier/frontier.module';
import { MachineAuthorizationModule } from './machine-authorization/machine-authorization.module';
import { MachinesModule } from './machines/machines.module';
import { RefsModule } from './refs/refs.module';
import { DependenciesModule } from './dependencies/dependencies.module';
import { DeploymentsModule } from './deployments/deployments.module';
import { EpicsModule } from './epics/epics.module';
import { RecordsModule } from './records/records.module';
import { TransferModule } from './transfer/transfer.module';
import { GatesModule } from './gates/gates.module';
import { ItemsModule } from './items/items.module';
import { ProjectsModule } from './projects/projects.module';
import { WorkflowsModule } from './workflows/workflows.module';
import { SweepsModule } from './sweeps/sweeps.module';
import { SessionsModule } from './sessions/sessions.module';
import { TeamModule } from './team/team.module';
import { DoctorModule } from './doctor/doctor.module';
import { MetricsModule } from './metrics/metrics.module';
import { McpModule } from './mcp/mcp.module';
import { RulebookModule } from './rulebook/rulebook.module';
import { HistoryModule } from './history/history.module';
import { CommentsModule } from './comments/comments.module';

// One line per feature; app.module.ts imports the list.
export const FEATURE_MODULES: Type[] = [
  RulebookModule,
  HistoryModule,
  RefsModule,
  EventsModule,
  DbClaimsModule,
  MachineAuthorizationModule,
  MachinesModule,
  SweepsModule,
  ApprovalPageModule,
  FrontierModule,
  SessionsModule,
  ChargeModule,
  ProjectsModule,
  WorkflowsModule,
  ItemsModule,
  CommentsModule,
  DependenciesModule,
  GatesModule,
  EpicsModule,
  RecordsModule,
  DeploymentsModule,
  TransferModule,
  TeamModule,
  DoctorModule,
  MetricsModule,
  McpModule,
];
