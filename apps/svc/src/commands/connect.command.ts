import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

import { Command, Option } from 'commander';

import { apiFor, defaultConfigDir, RawResponse, terminalLine, writeCredentials } from '@app/client';
import {
  authorizationOrigin,
  AuthorizationResponse,
  isBrowserVerificationUrl,
  MachineAuthorizationStarted,
  MachineAuthorizationUrlError,
  parseAuthorizationResponse,
  parseRetryAfter,
  verifyCredentialAuthority,
} from '@app/contracts';

import { action, CliError } from '../output';

const MACHINE_ID_FILE = 'machine-id';
const MAX_START_ATTEMPTS = 5;
// A server briefly unavailable (503 + Retry-After, e.g. its database restarting) is waited for, like a refused
// connection while polling: at most this long before the code exists, each wait capped (docs/adr/0029).
const OUTAGE_BUDGET_SECONDS = 120;
const MAX_OUTAGE_WAIT_SECONDS = 30;

interface ConnectOptions {
  tokenStdin?: boolean;
  tokenFile?: string;
  org?: string;
  machineName?: string;
  open?: boolean;
}

export interface DeviceConnectOptions {
  org?: string;
  machineName?: string;
  open?: boolean;
}

// The platform's opener; failures only mean the person opens the printed address themselves.
function openBrowser(url: string): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.on('error', () => process.stderr.write(`svc: could not open a browser; open ${url} yourself\n`));
    child.unref();
  } catch {
    process.stderr.write(`svc: could not open a browser; open ${url} yourself\n`);
  }
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

// Nothing when not on a terminal: logs stay clean.
function waitingIndicator(deadline: number): { stop: () => void } {
  if (!process.stderr.isTTY) {
    const minutes = Math.max(1, Math.round((deadline - Date.now()) / 60000));
    process.stderr.write(`waiting for approval; the code expires in ${minutes} min\n`);
    return { stop: () => undefined };
  }
  let frame = 0;
  const draw = () => {
    const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
    const time = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
    process.stderr.write(`\r${SPINNER[frame++ % SPINNER.length]} waiting for approval — ${time} left `);
  };
  draw();
  const timer = setInterval(draw, 200);
  return {
    stop: () => {
      clearInterval(timer);
      process.stderr.write('\r\x1b[K');
    },
  };
}

// One stable id per machine (and config folder), so a reconnect rotates this machine's credential.
function machineId(configDir: string): string {
  const path = join(configDir, MACHINE_ID_FILE);
  try {
    const id = readFileSync(path, 'utf8').trim();
    if (id.length > 0) return id;
  } catch {
    // First connection from this machine.
  }
  const id = randomUUID();
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  writeFileSync(path, `${id}\n`, { mode: 0o600 });
  return id;
}

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => (data += chunk));
    process.stdin.on('end', () => resolve(data));
    process.stdin.on('error', reject);
  });
}

const sleep = (seconds: number) => new Promise((r) => setTimeout(r, seconds * 1000));

function recovery(outcome: { message?: string; detail?: string }): string {
  return outcome.message ?? outcome.detail ?? '';
}

// `base` may carry a hosted organization's prefix.
function startRequest(base: string, body: unknown): Promise<RawResponse> {
  return apiFor({ url: base, token: null }).startMachineAuthorizationRaw(body);
}

function poll(base: string, body: unknown): Promise<RawResponse> {
  return apiFor({ url: base, token: null }).pollMachineAuthorizationRaw(body);
}

export async function connectWithToken(origin: string, token: string, configDir: string): Promise<void> {
  const me = await apiFor({ url: origin, token }).whoami();
  const file = writeCredentials(configDir, { url: origin, token, kind: 'api_token', actor: me.name });
  process.stdout.write(`connected to ${origin} as ${terminalLine(me.name)} (API token stored in ${file}, mode 0600)\n`);
}

// A 503 with Retry-After outside the flow's contract (database_unavailable) is a brief outage, not a refusal. The
// contract's own 503s keep their meaning.
function briefOutage(res: RawResponse, parsed: AuthorizationResponse): number | null {
  if (res.status !== 503 || parsed.outcome !== 'invalid') return null;
  const header = res.headers['retry-after'];
  const seconds = parseRetryAfter(typeof header === 'string' ? header : header?.[0]);
  return seconds === null ? null : Math.min(Math.max(seconds, 1), MAX_OUTAGE_WAIT_SECONDS);
}

function outageNotice(wait: number): void {
  process.stderr.write(`svc: the server is briefly unavailable (HTTP 503); trying again in ${wait} s\n`);
}

async function start(base: string, body: unknown): Promise<MachineAuthorizationStarted> {
  const giveUpAt = Date.now() + OUTAGE_BUDGET_SECONDS * 1000;
  for (let attempt = 1; ; attempt += 1) {
    const res = await startRequest(base, body);
    const parsed = parseAuthorizationResponse(res.status, res.headers, res.text, 'start');
    if (parsed.outcome === 'started') return parsed.value;
    const outage = briefOutage(res, parsed);
    if (outage !== null && Date.now() + outage * 1000 <= giveUpAt) {
      outageNotice(outage);
      await sleep(outage);
      continue;
    }
    if (outage !== null) {
      throw new CliError(
        'server_unavailable',
        `the server stayed unavailable (HTTP 503) for ${OUTAGE_BUDGET_SECONDS / 60} min; run svc connect again later`,
      );
    }
    if (parsed.outcome === 'slow_down' && attempt < MAX_START_ATTEMPTS) {
      const wait = parsed.retryAfterSeconds ?? 10;
      process.stderr.write(`svc: the server asks to wait ${wait} s before starting again\n`);
      await sleep(wait);
      continue;
    }
    throw failure(parsed);
  }
}

function failure(parsed: AuthorizationResponse): CliError {
  switch (parsed.outcome) {
    case 'refused':
      return new CliError(parsed.code, recovery(parsed) || `refused (HTTP ${parsed.status})`);
    case 'denied':
      return new CliError('authorization_denied', 'the approver denied this machine; run svc connect again');
    case 'expired':
    case 'consumed':
      return new CliError(`authorization_${parsed.outcome}`, 'this code is finished; run svc connect again');
    case 'invalid':
      return new CliError('invalid_response', `the server answered outside the contract: ${parsed.errors.join('; ')}`);
    default:
      return new CliError('unexpected_outcome', `unexpected outcome ${parsed.outcome}`);
  }
}

export async function connectWithDeviceCode(
  origin: string,
  configDir: string,
  options: DeviceConnectOptions,
): Promise<void> {
  const hosted = options.org !== undefined;
  const base = hosted ? `${origin}/api/orgs/${encodeURIComponent(options.org!)}` : origin;
  const machine = { machine_id: machineId(configDir), machine_name: options.machineName ?? hostname() };
  const started = await start(base, hosted ? {} : machine);
  if (!isBrowserVerificationUrl(origin, started.verification_uri_complete)) {
    throw new CliError('foreign_origin', 'the server named an approval page on another origin; refusing');
  }
  process.stdout.write(
    [
      `Approve this machine at ${started.verification_uri} with the code`,
      '',
      `    ${started.user_code}`,
      '',
      `or open ${started.verification_uri_complete}`,
      `or, from a machine already connected as you: svc machine-authorization resolve ${started.user_code} --action approve`,
      '',
      `This machine: ${machine.machine_name || '(named at approval)'}`,
      `Machine id:   ${machine.machine_id}`,
      'Approve only if the page shows this same machine name and id.',
      '',
    ]
      // the address and code come from the server: one line each, control characters escaped
      .map(terminalLine)
      .join('\n'),
  );
  if (options.open) openBrowser(started.verification_uri_complete);
  const deadline = Date.now() + started.expires_in * 1000;
  const indicator = waitingIndicator(deadline);
  let connected: string;
  try {
    connected = await pollUntilDecided(origin, base, configDir, machine, started, deadline, options);
  } finally {
    // clear the spinner's line before anything else is printed (the success line, or the error)
    indicator.stop();
  }
  process.stdout.write(`${connected}\n`);
}

async function pollUntilDecided(
  origin: string,
  base: string,
  configDir: string,
  machine: { machine_id: string; machine_name: string },
  started: MachineAuthorizationStarted,
  deadline: number,
  options: DeviceConnectOptions,
): Promise<string> {
  const hosted = options.org !== undefined;
  let wait = started.interval;
  while (Date.now() < deadline) {
    await sleep(Math.min(wait, Math.max(0, (deadline - Date.now()) / 1000)));
    const res = await poll(base, {
      device_code: started.device_code,
      ...machine,
    }).catch(() => null);
    if (res === null) {
      wait = started.interval;
      continue;
    }
    const parsed = parseAuthorizationResponse(res.status, res.headers, res.text, 'poll');
    const outage = briefOutage(res, parsed);
    if (outage !== null) {
      wait = Math.max(outage, started.interval);
      continue;
    }
    if (parsed.outcome === 'pending' || parsed.outcome === 'unavailable') {
      wait = started.interval;
      continue;
    }
    if (parsed.outcome === 'slow_down') {
      wait = parsed.retryAfterSeconds ?? started.interval;
      continue;
    }
    if (parsed.outcome !== 'approved') throw failure(parsed);
    let apiUrl: string;
    try {
      apiUrl = verifyCredentialAuthority({
        serverUrl: origin,
        kind: hosted ? 'cloud' : 'self_host',
        approved: parsed.value,
        org: options.org ?? null,
      });
    } catch (err) {
      if (err instanceof MachineAuthorizationUrlError) throw new CliError(err.reason, err.message);
      throw err;
    }
    const me = await apiFor({ url: apiUrl, token: parsed.value.token })
      .whoami()
      .catch(() => null);
    const file = writeCredentials(configDir, {
      url: apiUrl,
      token: parsed.value.token,
      kind: 'machine_credential',
      machine_id: machine.machine_id,
      org: parsed.value.org,
      ...(me ? { actor: me.name } : {}),
    });
    return terminalLine(
      `connected to ${apiUrl}${me ? ` as ${me.name}` : ''} (organization ${parsed.value.org}); credential stored in ${file} (mode 0600)`,
    );
  }
  throw new CliError('authorization_expired', 'the code expired before it was approved; run svc connect again');
}

export function registerConnectCommand(program: Command): void {
  program
    .command('connect')
    .description('connect this machine to a server: approve its code, or enter an API token')
    .argument('<url>', 'server origin, e.g. https://svc.example.com')
    .option('--token-stdin', 'read an API token from standard input instead of the device-code flow')
    .option('--token-file <path>', 'read an API token from a file instead of the device-code flow')
    .addOption(new Option('--org <slug>', 'hosted servers: the organization to join').env('SVC_ORG'))
    .option('--machine-name <name>', 'name shown to the approver (default: host name)')
    .option('--open', 'open the approval page in the browser')
    .action(
      action(async (url: string, options: ConnectOptions) => {
        let origin: string;
        try {
          origin = authorizationOrigin(url);
        } catch (err) {
          if (err instanceof MachineAuthorizationUrlError) throw new CliError(err.reason, err.message);
          throw err;
        }
        const configDir = defaultConfigDir();
        if (options.tokenStdin || options.tokenFile) {
          const raw = options.tokenFile ? readFileSync(options.tokenFile, 'utf8') : await readStdin();
          const token = raw.trim();
          if (token.length === 0) throw new CliError('invalid_request', 'no API token was given');
          await connectWithToken(origin, token, configDir);
          return;
        }
        await connectWithDeviceCode(origin, configDir, options);
      }),
    );
}
