import { Command, InvalidArgumentError, Option } from 'commander';

import { apiFor, resolveConnection } from '@app/client';

import { version } from '../../../../package.json';
import { GlobalOptions, projectOption, scopedProject } from '../context';
import { action } from '../output';

interface McpOptions {
  project?: string;
  harness?: string;
  model?: string;
  label?: string;
  wipCap?: number;
  heartbeat: number;
}

function positiveInt(value: string): number {
  if (!/^[0-9]{1,6}$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a positive integer');
  return Number(value);
}

// Standard output is the protocol: everything else goes to stderr. A client that dies without closing stdin is
// noticed when its end of the pipe closes, and the session ends (its claims released).
export function registerMcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('serve the backlog to a coding agent over the Model Context Protocol (stdio)')
    .addOption(projectOption('project of the session and default of every tool'))
    .addOption(new Option('--harness <harness>', 'executor harness (default: the client’s name)').env('SVC_HARNESS'))
    .addOption(new Option('--model <model>', 'executor model (default: unknown)').env('SVC_MODEL'))
    .option('--label <label>', 'label of the executor session', 'svc mcp')
    .option(
      '--wip-cap <n>',
      "WIP cap of the schedule and claims (a lower one is anyone's, a higher one an organization admin's)",
      positiveInt,
    )
    .addOption(
      new Option('--heartbeat <seconds>', 'renew the session’s claims this often')
        .env('SVC_MCP_HEARTBEAT_SECONDS')
        .argParser(positiveInt)
        .default(30),
    )
    .action(
      action(async (options: McpOptions, command: Command) => {
        const { url, token } = command.optsWithGlobals<GlobalOptions>();
        // Without a credential the server still answers initialize: each tool call says to run svc connect (a
        // client that only saw the process exit would show "connection closed").
        const credentials = resolveConnection({ url, token });
        const log = (line: string) => process.stderr.write(`svc mcp: ${line}\n`);
        // Loaded here: the SDK is needed by this command only.
        const [{ SvcMcpSession }, { StdioServerTransport }] = await Promise.all([
          import('@app/client/mcp'),
          import('@modelcontextprotocol/sdk/server/stdio.js'),
        ]);
        const mcp = new SvcMcpSession({
          api: apiFor(credentials, 'mcp'),
          token: credentials.token,
          missingCredential: credentials.token
            ? null
            : `svc mcp has no credential for ${credentials.url}: run \`svc connect\` (or set SVC_TOKEN), then restart the server`,
          project: scopedProject(options.project) ?? null,
          harness: options.harness ?? null,
          model: options.model ?? null,
          label: options.label,
          wipCap: options.wipCap,
          heartbeatMs: options.heartbeat * 1000,
          version,
          log,
        });
        const transport = new StdioServerTransport();
        await new Promise<void>((resolve) => {
          let stopping = false;
          const stop = (why: string) => {
            if (stopping) return;
            stopping = true;
            log(`${why}: ending the session`);
            void mcp
              .close()
              .then(() => mcp.server.close())
              .catch(() => undefined)
              .then(() => resolve());
          };
          process.stdin.once('end', () => stop('client closed stdin'));
          process.stdin.once('close', () => stop('client closed stdin'));
          process.once('SIGTERM', () => stop('SIGTERM'));
          process.once('SIGINT', () => stop('SIGINT'));
          mcp.server.server.onclose = () => stop('connection closed');
          mcp.server.connect(transport).then(
            () => log(`serving ${credentials.url}${mcp.project ? ` (project ${mcp.project})` : ''} on stdio`),
            (err: unknown) => {
              log(`cannot start: ${err instanceof Error ? err.message : String(err)}`);
              process.exitCode = 1;
              stop('start failed');
            },
          );
        });
        // stdin is done and the session ended: nothing else keeps the process, but a half-open stream might.
        process.exit(process.exitCode ?? 0);
      }),
    );
}
