import { AsyncLocalStorage } from 'node:async_hooks';

import type { WritePath } from '@app/contracts';
import type { Rule } from '@app/core';

// Who is writing, as the change-record triggers read it (`svc.writer`, set per transaction: writer.subscriber.ts).
export interface WriterRecord {
  actor_id: number | null;
  actor_name: string | null;
  credential_kind: 'api_token' | 'machine_credential' | null;
  credential_id: number | null;
  session_id: number | null;
  harness: string | null;
  path: WritePath;
  forced: boolean;
}

// One request's or sweep's write: its writer and the rules the rulebook checked.
export interface WriteContext {
  writer: WriterRecord;
  mutation: boolean;
  passed: Set<Rule>;
}

const storage = new AsyncLocalStorage<WriteContext>();

export function currentWrite(): WriteContext | undefined {
  return storage.getStore();
}

export function runInWrite<T>(context: WriteContext, work: () => T): T {
  return storage.run(context, work);
}

export function anonymousWriter(path: WritePath): WriterRecord {
  return {
    actor_id: null,
    actor_name: null,
    credential_kind: null,
    credential_id: null,
    session_id: null,
    harness: null,
    path,
    forced: false,
  };
}

// An authenticated caller as the records name it; the session it names, if any, is filled in after.
export function actorWriter(
  actor: { id: number; name: string; via: 'api_token' | 'machine_credential'; credentialId: number },
  path: WritePath,
): WriterRecord {
  return {
    actor_id: actor.id,
    actor_name: actor.name,
    credential_kind: actor.via,
    credential_id: actor.credentialId,
    session_id: null,
    harness: null,
    path,
    forced: false,
  };
}

// Work the daemon does on its own (a sweep): recorded as path `sweep`, no actor.
export function runAsDaemon<T>(work: () => Promise<T>): Promise<T> {
  return storage.run({ writer: anonymousWriter('sweep'), mutation: true, passed: new Set() }, work);
}

export function notePassed(rule: Rule): void {
  storage.getStore()?.passed.add(rule);
}

// A write that comes in through a route but is of another kind (an import): the records name that path.
export function nameWritePath(path: WritePath): void {
  const context = storage.getStore();
  if (context) context.writer.path = path;
}

// A write that names its executor session in its body (a dispatch, a dependency's session_id) rather than in
// x-svc-session: the session, checked as the caller's own by the feature, is the writer's.
export function nameWriterSession(id: number, harness: string): void {
  const context = storage.getStore();
  if (context && context.writer.session_id === null) {
    context.writer.session_id = id;
    context.writer.harness = harness;
  }
}
