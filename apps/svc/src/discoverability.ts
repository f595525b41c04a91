import { Command } from 'commander';

export const FIRST_STEPS = `svc: the backlog, its charge frontier and machine connections, from the command line

Start here:
  svc up                  start a local daemon (embedded database) and open the terminal UI
  svc tui                 open the terminal UI on the daemon you are connected to
  svc charge-frontier     what is runnable, blocked and frozen in your project
  svc --help              every command (svc <command> --help: its options and examples)

Project scope: --project, else env SVC_PROJECT, else {"project": "<id>"} in a .svc.json here or in a parent folder.
Completion: eval "$(svc completion bash)" (also zsh, fish).
`;

export const EXAMPLES: Record<string, string[]> = {
  'machine-authorization': [
    'svc machine-authorization list',
    'svc machine-authorization resolve BCDF-GHJK --action approve',
  ],
  machines: ['svc machines ls', 'svc machines revoke 3'],
  'self-host': ['svc self-host init'],
  charge: ['svc charge --dry-run', 'svc charge --item AL-12 --yes', 'svc charge schedule --all-projects'],
  'charge-frontier': ['svc charge-frontier', 'svc charge-frontier --project alpha --watch'],
  frontier: [
    'svc frontier list --only blocked',
    'svc frontier explain AL-12',
    'svc frontier explain 12   # in the scoped project',
  ],
  sessions: ['svc sessions ls', 'svc sessions list --state all --all-projects', 'svc sessions show 7'],
  events: [
    'svc events query --since 2h',
    'svc events stream --event-name ChargeDecisionMade',
    'svc events stream --json | jq .',
  ],
  projects: ['svc projects ls', 'svc projects create alpha --prefix AL', 'svc projects show alpha'],
  workflows: ['svc workflows ls', 'svc workflows register workflow.json', 'svc workflows item get AL-12'],
  items: [
    'svc items ls --status planned',
    'svc items create --title "Fix the login form"',
    'svc items show AL-12',
    'svc items status AL-12 implementing',
    'svc items update AL-12 priority low',
  ],
  sections: ['svc sections ls AL-12', 'svc sections upsert AL-12 Notes --stdin < notes.md'],
  epics: ['svc epics show AL-3', 'svc epics tasks ls AL-3', 'svc epics notes add AL-3 1 --body "done"'],
  records: ['svc records verdicts ls AL-12', 'svc records ouroboros ls --limit 20'],
  deployments: ['svc deployments flows ls', 'svc deployments environments ls', 'svc deployments runs ls'],
  actors: ['svc actors ls', 'svc actors create ada'],
  orgs: ['svc orgs ls', 'svc orgs create acme --name "Acme Inc"', 'svc orgs show acme'],
  members: ['svc members ls'],
  tokens: ['svc tokens ls', 'svc tokens create --name ci --expires-in 90d'],
  auth: ['svc auth status', 'svc auth ls', 'svc auth switch https://svc.example.com'],
  mcp: [
    'svc mcp   # in an MCP client: {"mcpServers": {"svc": {"command": "svc", "args": ["mcp"]}}}',
    'svc mcp --project alpha --model opus-4',
  ],
  'agent-setup': [
    'svc agent-setup claude   # .mcp.json + CLAUDE.md in this checkout',
    'svc agent-setup codex --server https://svc.example.com   # the team server, token from $SVC_TOKEN',
    'svc agent-setup cursor --check',
    'svc agent-setup gemini --remove',
  ],
  admin: [
    'svc admin token --offline   # a new admin token, daemon down (SVC_HOME or SVC_DATABASE_URL says where)',
    'svc admin token --offline --name recovery',
  ],
  completion: [
    'eval "$(svc completion bash)"',
    'svc completion zsh > "${fpath[1]}/_svc"',
    'svc completion fish | source',
  ],
};

// gh's habits: `ls` for list, `show` for get, wherever the name is free among its siblings.
const ALIASES: Record<string, string> = { list: 'ls', get: 'show' };

export function addAliases(command: Command): void {
  const taken = new Set(command.commands.flatMap((c) => [c.name(), ...c.aliases()]));
  for (const sub of command.commands) {
    const alias = ALIASES[sub.name()];
    if (alias && !taken.has(alias)) {
      sub.alias(alias);
      taken.add(alias);
    }
    addAliases(sub);
  }
}

export function addExamples(program: Command): void {
  for (const command of program.commands) {
    const examples = EXAMPLES[command.name()];
    if (examples) command.addHelpText('after', `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n`);
  }
}

export function addDiscoverability(program: Command): void {
  addAliases(program);
  addExamples(program);
  program.addHelpText(
    'after',
    '\nProject scope: --project, else env SVC_PROJECT, else the nearest .svc.json ({"project": "<id>"}) upward.\n' +
      'Aliases: ls = list, show = get. Completion: svc completion bash|zsh|fish.\n',
  );
}
