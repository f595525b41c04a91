import { createHash, randomBytes } from 'node:crypto';

import { HttpResult, sql } from '@app/testing/machine-auth';

// The authorization matrix (issue 24, item 7): who may call each route, one row per route, checked for every kind of
// caller in self-host and hosted mode. The rows are the house's rules as data; the spec beside this file discovers
// the routes from the Nest router and fails on a route without a row.

// The callers. Each is a real credential (or none) made in the database before the matrix runs.
export const PERSONAS = [
  'server_admin', // actors.is_admin, admin of `default` (the first-boot admin)
  'org_admin', // admin of `default`, not a server admin
  'member', // member of `default`
  'other_member', // admin of `other` only
  'removed', // was a member of `default`, removed
  'disabled', // member of `default`, actor disabled
  'expired', // member's token past its expiry
  'revoked', // member's revoked token
  'malformed', // a bearer that is no token
  'machine_default', // machine credential approved for `default` (its actor: a member of `default`)
  'machine_other', // machine credential approved for `other` (its actor: a member of `other`)
  'machine_admin', // the server admin's machine credential approved for `default`: confined to it (issue 36)
  'metrics', // the server admin's metrics-only API token (scope metrics, issue 40): GET /metrics and nothing else
  'none', // no Authorization header
] as const;
export type Persona = (typeof PERSONAS)[number];

// Who may call a route:
// - public: no credential needed; the bearer header changes nothing (every caller gets the same status).
// - self: any active credential; acts on the caller's own things (refuses none, dead tokens and disabled actors).
// - any_member: an active membership somewhere (creates in the caller's own organization).
// - org: a resource of `default`'s project: its active members and machine credentials, and server admins.
// - org_admin: an admin of `default` (or a server admin).
// - server_admin: a server admin whose credential is not confined to one organization: never a machine credential
//   (nor a token minted from one), never through /api/orgs/<slug> (see expectedOutcome's `confined`).
export type Access = 'public' | 'self' | 'any_member' | 'org' | 'org_admin' | 'server_admin';

export type Outcome = 'allowed' | 'unauthenticated' | 'disabled' | 'denied' | 'same';

const ALLOWED: Record<Exclude<Access, 'public'>, readonly Persona[]> = {
  self: [
    'server_admin',
    'org_admin',
    'member',
    'other_member',
    'removed',
    'machine_default',
    'machine_other',
    'machine_admin',
  ],
  any_member: [
    'server_admin',
    'org_admin',
    'member',
    'other_member',
    'machine_default',
    'machine_other',
    'machine_admin',
  ],
  org: ['server_admin', 'org_admin', 'member', 'machine_default', 'machine_admin'],
  org_admin: ['server_admin', 'org_admin', 'machine_admin'],
  server_admin: ['server_admin'],
};

// confined: the request goes through /api/orgs/<slug>, where no credential is a server admin's. metricsScope: the
// route takes a metrics-only token (GET /metrics); every other route refuses it.
export function expectedOutcome(access: Access, persona: Persona, confined = false, metricsScope = false): Outcome {
  if (access === 'public') return 'same';
  if (persona === 'none' || persona === 'expired' || persona === 'revoked' || persona === 'malformed') {
    return 'unauthenticated';
  }
  if (persona === 'disabled') return 'disabled';
  if (persona === 'metrics') return metricsScope && !confined ? 'allowed' : 'denied';
  if (access === 'server_admin' && confined) return 'denied';
  return ALLOWED[access].includes(persona) ? 'allowed' : 'denied';
}

// What a status says about the boundary: 401 unauthenticated, 403 actor_disabled, 403/404 refused; anything else
// (2xx, 400 for a body the route does not take from this caller, 409 for a state) got past the boundary.
export function observedOutcome(res: HttpResult): Exclude<Outcome, 'same'> {
  const code = (res.body as { code?: string } | undefined)?.code;
  if (res.status === 401) return 'unauthenticated';
  if (res.status === 403 && code === 'actor_disabled') return 'disabled';
  if (res.status === 403 || res.status === 404) return 'denied';
  return 'allowed';
}

export interface Fixture {
  url: string;
  dbUrl: string;
  tokens: Record<Persona, string | null>;
  actorNames: Record<Persona, string>;
  runId: string;
  ouroborosId: number;
  sessionIds: Record<Persona, number>;
  // Fresh per call where a route consumes what it acts on.
  fresh: FreshFactory;
}

export interface FreshFactory {
  actor(org: string): Promise<string>;
  token(persona: Persona): Promise<number>;
  machine(persona: Persona): Promise<string>;
  item(): Promise<string>;
  // A fresh item the given one depends on: its ref.
  blocker(dependent: string): Promise<string>;
  // A fresh section of the given item: its name.
  section(ref: string): Promise<string>;
  // A pending device code of `default`: what the person types and the request's id.
  code(): Promise<{ userCode: string; requestId: string }>;
  // A live executor session of the caller's (an unknown id for callers that cannot register one).
  session(persona: Persona): Promise<number>;
}

export interface Request {
  path: string;
  body?: unknown;
}

export interface MatrixRow {
  access: Access;
  // The request as the given caller makes it (params filled with `default`'s fixtures).
  request: (fx: Fixture, persona: Persona) => Request | Promise<Request>;
  // In hosted mode the route is not there (self-host only) or answers only there.
  mode?: 'self-host' | 'hosted';
  // Where hosted mode draws the line elsewhere (there only an organization's admins decide its machine codes).
  hostedAccess?: Access;
  // A metrics-only token may call it (GET /metrics only).
  metricsScope?: boolean;
  // Refused callers may instead get exactly the answer a missing resource gets (a filter, not a lookup).
  hiddenLike?: (fx: Fixture) => Request;
  note?: string;
}

export function tokenFor(): { token: string; hash: Buffer } {
  const token = `svc_${randomBytes(32).toString('base64url')}`;
  return { token, hash: createHash('sha256').update(token, 'utf8').digest() };
}

export function machineTokenFor(): { token: string; hash: Buffer } {
  const token = `svcm_${randomBytes(32).toString('base64url')}`;
  return { token, hash: createHash('sha256').update(token, 'utf8').digest() };
}

export { sql };
