import { PassThrough } from 'node:stream';

import * as blessed from 'blessed';

import type { FrontierWindowList, FrontierWindowMeta, FrontierWindowWire } from '@app/contracts';

import type { DetailEdge } from '../state/edges';

import type {
  ChangeRecordWire,
  EventWire,
  FrontierItemWire,
  FrontierResultWire,
  MachineAuthorizationRequest,
  ProjectWire,
} from '../wire';

export const NOW = Date.parse('2026-01-10T12:00:00.000Z');

export function item(n: number, overrides: Partial<FrontierItemWire> = {}): FrontierItemWire {
  return {
    item_id: `ATL-${n}`,
    title: `Item number ${n}`,
    status: 'planned',
    priority: 'medium',
    project: 'atlas',
    workflow_id: 'issue',
    workflow_version_id: 1,
    adapter: 'conduct',
    blocked_by: [],
    blocked_reasons: [],
    unblocks_count: 0,
    downstream_depth: 0,
    created_at: new Date(NOW - 3 * 3_600_000).toISOString(),
    ...overrides,
  };
}

export function frontier(
  runnable: FrontierItemWire[],
  blocked: FrontierItemWire[] = [],
  frozen: FrontierItemWire[] = [],
  extra: Partial<FrontierResultWire> = {},
): FrontierResultWire {
  return { runnable, blocked, frozen, wip_cap: 4, wip_active: 1, conduct_eligible: [], ...extra };
}

// A window of one list of the answer (GET /v1/charge/frontier/window), as a project too large to hold gets it.
export function frontierWindow(
  list: FrontierWindowList,
  rows: FrontierItemWire[],
  meta: Partial<FrontierWindowMeta> = {},
): FrontierWindowWire {
  const offset = meta.offset ?? 0;
  return {
    ...frontier([], [], []),
    [list]: rows,
    window: {
      list,
      offset,
      total: offset + rows.length,
      totals: { runnable: 0, blocked: 0, frozen: 0, [list]: offset + rows.length },
      ranks: rows.map((_, i) => offset + i),
      wip_suppressed: 0,
      filter: '',
      sort: 'rank',
      desc: false,
      etag: '"w1"',
      ...meta,
    },
  };
}

export function project(id = 'atlas', name = 'Atlas billing platform'): ProjectWire {
  return {
    id,
    name,
    public_item_prefix: 'ATL',
    next_sequence: 1,
    policy: {},
    title_max_length: 120,
    organization: null,
    created_at: new Date(NOW).toISOString(),
    updated_at: new Date(NOW).toISOString(),
  } as ProjectWire;
}

export function detailEdge(side: 'in' | 'out', other: string, overrides: Partial<DetailEdge> = {}): DetailEdge {
  return {
    side,
    gate_point: 'activation',
    other,
    other_title: `title of ${other}`,
    state: 'planned',
    satisfaction: 'status:done',
    satisfied: false,
    reason: '',
    need: null,
    abandoned: false,
    environment: null,
    ...overrides,
  };
}

export function machineRequest(
  n: number,
  overrides: Partial<MachineAuthorizationRequest> = {},
): MachineAuthorizationRequest {
  return {
    request_id: `req-${n}`,
    machine_name: `box ${n}`,
    machine_id: `00000000-0000-4000-8000-00000000000${n}`,
    client_address: '127.0.0.1',
    org: 'default',
    created_at: new Date(NOW - 30_000).toISOString(),
    expires_at: new Date(NOW + 570_000).toISOString(),
    claimed_by_caller: false,
    ...overrides,
  };
}

export function event(id: number, overrides: Partial<EventWire> = {}): EventWire {
  return {
    id: String(id),
    name: 'ChargeDecisionMade',
    kind: 'decision',
    project: 'atlas',
    item_id: 'ATL-1',
    actor_id: 1,
    session_id: null,
    payload: { detail: { reason: 'operator_cancelled', dispatched: false, adapter: 'conduct' } },
    created_at: new Date(NOW - id * 1000).toISOString(),
    ...overrides,
  };
}

export function change(id: number, overrides: Partial<ChangeRecordWire> = {}): ChangeRecordWire {
  return {
    id: String(id),
    at: new Date(NOW - id * 1000).toISOString(),
    actor: 'admin',
    credential: { kind: 'api_token', id: 1 },
    session_id: null,
    harness: null,
    path: 'cli',
    forced: false,
    project: 'atlas',
    item_id: 'ATL-1',
    object: 'item',
    object_ref: 'ATL-1',
    action: 'changed',
    field: 'priority',
    before: 'medium',
    after: 'high',
    ...overrides,
  };
}

export interface TestScreen {
  screen: blessed.Widgets.Screen;
  input: PassThrough;
  output: PassThrough & { columns: number; rows: number; isTTY: boolean };
  text(): string;
  lines(): string[];
  // each row as the terminal shows it: a wide character once (blessed keeps a filler cell after it), trailing
  // spaces kept, so a row's display width is the screen's width when blessed and the views agree
  cellRows(): string[];
  record(): () => string;
  resize(columns: number, rows: number): void;
  destroy(): void;
}

export function testScreen(columns = 120, rows = 36, terminal = 'xterm-256color'): TestScreen {
  const input = new PassThrough() as PassThrough & { isTTY?: boolean; setRawMode?: () => void };
  input.isTTY = true;
  input.setRawMode = () => undefined;
  const output = Object.assign(new PassThrough(), { columns, rows, isTTY: true });
  let recording: string[] | null = null;
  output.on('data', (chunk: Buffer) => recording?.push(chunk.toString('utf8')));
  // blessed prints terminfo it cannot compile (screen-256color) to stderr while it builds the screen
  const realWrite = process.stderr.write.bind(process.stderr);
  process.stderr.write = (() => true) as typeof process.stderr.write;
  const screen = blessed.screen({
    input,
    output,
    terminal,
    forceUnicode: true,
    fullUnicode: true,
    warnings: false,
    autoPadding: false,
  } as blessed.Widgets.IScreenOptions);
  process.stderr.write = realWrite;
  const lines = () =>
    (screen as unknown as { lines: { [x: number]: [number, string] }[] }).lines.map((line) => {
      let s = '';
      for (let x = 0; x < (screen.width as number); x++) s += line[x]?.[1] ?? ' ';
      return s.replace(/\s+$/, '');
    });
  const cellRows = () =>
    (screen as unknown as { lines: { [x: number]: [number, string] }[] }).lines.map((line) => {
      let s = '';
      for (let x = 0; x < (screen.width as number); x++) {
        const ch = line[x]?.[1] ?? ' ';
        if (ch !== '\x03') s += ch;
      }
      return s;
    });
  return {
    screen,
    input,
    output,
    lines,
    cellRows,
    record() {
      recording = [];
      return () => {
        const out = (recording ?? []).join('');
        recording = null;
        return out;
      };
    },
    text: () => lines().join('\n'),
    resize(c: number, r: number) {
      output.columns = c;
      output.rows = r;
      output.emit('resize');
    },
    destroy() {
      screen.destroy();
      input.destroy();
      output.destroy();
    },
  };
}

// The foreground colours SGR sequences set: 30-37 and 90-97 as 0-15, 38;5;n as n, 38;2 (true colour) as -1.
export function sgrForegrounds(bytes: string): number[] {
  const out: number[] = [];
  // eslint-disable-next-line no-control-regex
  for (const m of bytes.matchAll(/\x1b\[([\d;]*)m/g)) {
    const p = m[1].split(';').map(Number);
    for (let i = 0; i < p.length; i++) {
      if (p[i] === 38 || p[i] === 48) {
        if (p[i] === 38 && p[i + 1] === 5) out.push(p[i + 2]);
        if (p[i] === 38 && p[i + 1] === 2) out.push(-1);
        i += p[i + 1] === 5 ? 2 : 4;
      } else if ((p[i] >= 30 && p[i] <= 37) || (p[i] >= 90 && p[i] <= 97)) {
        out.push(p[i] >= 90 ? p[i] - 90 + 8 : p[i] - 30);
      }
    }
  }
  return out;
}
