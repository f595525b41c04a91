import { Command } from 'commander';

import { registerApproveCommand } from './approve.command';
import { registerConnectCommand } from './connect.command';
import { registerChargeCommand } from './charge.command';
import { registerDaemonCommand } from './daemon.command';
import { registerGateCommands } from './dependencies.command';
import { registerDeploymentsCommand } from './deployments.command';
import { registerDoctorCommand } from './doctor.command';
import { registerEpicsCommand } from './epics.command';
import { registerRecordsCommand } from './records.command';
import { registerTransferCommands } from './transfer.command';
import { registerItemsCommand, registerSectionsCommand } from './items.command';
import { registerProjectsCommand } from './projects.command';
import { registerWorkflowsCommand } from './workflows.command';
import { registerDbClaimsCommand } from './db-claims.command';
import { registerMachineAuthorizationCommand } from './machine-authorization.command';
import { registerMachinesCommand } from './machines.command';
import { registerSelfHostCommand } from './self-host.command';
import { registerEventsCommand } from './events.command';
import { registerFrontierCommand } from './frontier.command';
import { registerSessionsCommand } from './sessions.command';
import { registerUpCommands } from './up.command';
import { registerWhoAmICommand } from './whoami.command';
import { registerActorsCommand } from './actors.command';
import { registerAdminCommand } from './admin.command';
import { registerMembersCommand } from './members.command';
import { registerOrgsCommand } from './orgs.command';
import { registerTokensCommand } from './tokens.command';
import { registerAuthCommands } from './auth.command';
import { registerSetupCommand } from './setup.command';
import { registerBackupCommands } from './backup.command';
import { registerMcpCommand } from './mcp.command';
import { registerAgentSetupCommand } from './agent-setup.command';
import { registerHistoryCommand } from './history.command';
import { registerGraphCommand } from './graph.command';

export const COMMAND_GROUPS: ((program: Command) => void)[] = [
  registerHistoryCommand,
  registerUpCommands,
  registerAdminCommand,
  registerDaemonCommand,
  registerConnectCommand,
  registerMachineAuthorizationCommand,
  registerMachinesCommand,
  registerSelfHostCommand,
  registerWhoAmICommand,
  registerDbClaimsCommand,
  registerChargeCommand,
  registerFrontierCommand,
  registerSessionsCommand,
  registerEventsCommand,
  registerProjectsCommand,
  registerWorkflowsCommand,
  registerItemsCommand,
  registerSectionsCommand,
  registerGateCommands,
  registerEpicsCommand,
  registerRecordsCommand,
  registerDeploymentsCommand,
  registerApproveCommand,
  registerTransferCommands,
  registerGraphCommand,
  registerActorsCommand,
  registerMembersCommand,
  registerOrgsCommand,
  registerTokensCommand,
  registerAuthCommands,
  registerSetupCommand,
  registerDoctorCommand,
  registerBackupCommands,
  registerMcpCommand,
  registerAgentSetupCommand,
];
