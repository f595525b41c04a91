import { Command } from 'commander';

import { registerDaemonCommand } from './daemon.command';
import { registerWhoAmICommand } from './whoami.command';

// Every command group registers itself here.
export const COMMAND_GROUPS: ((program: Command) => void)[] = [registerDaemonCommand, registerWhoAmICommand];
