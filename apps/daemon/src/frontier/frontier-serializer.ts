import { createHash } from 'node:crypto';

import type { FrontierComputation, FrontierItem } from '@app/core';

import { toFrontierItemWire } from './frontier.mapper';

export interface SerializedFrontier {
  // the UTF-8 bytes sent as they are (no per-response string encoding)
  body: Buffer;
  // a strong validator of exactly these bytes: a digest of the body, computed once with the serialization
  etag: string;
}

export function etagOf(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

export function serializeFrontier(result: unknown): SerializedFrontier {
  const body = Buffer.from(JSON.stringify(result), 'utf8');
  return { body, etag: etagOf(body) };
}

interface Fragment {
  item: FrontierItem;
  // blocked_by as public refs (a blocker's ref disappears when it is deleted)
  refs: readonly string[];
  json: string;
}

const NO_REFS: readonly string[] = Object.freeze([]);

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

// Every field the wire item is made of (toFrontierItemWire), so equal here means byte-identical JSON.
function sameWireFields(a: FrontierItem, b: FrontierItem): boolean {
  return (
    a.ref === b.ref &&
    a.title === b.title &&
    a.status === b.status &&
    a.priority === b.priority &&
    a.project === b.project &&
    a.workflow_id === b.workflow_id &&
    a.workflow_version_id === b.workflow_version_id &&
    a.adapter === b.adapter &&
    a.unblocks_count === b.unblocks_count &&
    a.downstream_depth === b.downstream_depth &&
    a.created_at === b.created_at &&
    sameNumbers(a.blocked_by, b.blocked_by) &&
    sameStrings(a.blocked_reasons, b.blocked_reasons)
  );
}

// Serializes FrontierResults of one project's successive graphs. Each item's JSON is kept and reused by the next
// serialization when every field it is made of is unchanged, so a write re-serializes the items it reached, not the
// whole answer; the body is the joined fragments, byte for byte JSON.stringify(toFrontierResultWire(...)).
export class FrontierSerializer {
  private fragments = new Map<number, Fragment>();
  reused = 0;
  rendered = 0;

  serialize(computation: FrontierComputation, refOf: (id: number) => string | undefined): SerializedFrontier {
    const next = new Map<number, Fragment>();
    this.reused = 0;
    this.rendered = 0;
    const list = (items: readonly FrontierItem[]): string => {
      const parts = new Array<string>(items.length);
      for (let k = 0; k < items.length; k++) parts[k] = this.fragment(items[k], refOf, next);
      return parts.join(',');
    };
    const runnable = list(computation.runnable);
    const blocked = list(computation.blocked);
    const frozen = list(computation.frozen);
    const eligible = list(computation.conduct_eligible);
    this.fragments = next;
    const json =
      `{"runnable":[${runnable}],"blocked":[${blocked}],"frozen":[${frozen}],` +
      `"wip_cap":${JSON.stringify(computation.wip_cap)},"wip_active":${JSON.stringify(computation.wip_active)},` +
      `"conduct_eligible":[${eligible}]}`;
    const body = Buffer.from(json, 'utf8');
    return { body, etag: etagOf(body) };
  }

  private fragment(item: FrontierItem, refOf: (id: number) => string | undefined, next: Map<number, Fragment>): string {
    const done = next.get(item.item_id);
    if (done !== undefined && done.item === item) return done.json;
    let refs = NO_REFS;
    if (item.blocked_by.length > 0) {
      const resolved: string[] = [];
      for (const id of item.blocked_by) {
        const ref = refOf(id);
        if (ref !== undefined) resolved.push(ref);
      }
      refs = resolved;
    }
    const before = this.fragments.get(item.item_id);
    let fragment: Fragment;
    if (before !== undefined && sameStrings(before.refs, refs) && sameWireFields(before.item, item)) {
      // the previous map is dropped after this call, so its entry is taken over rather than copied
      before.item = item;
      fragment = before;
      this.reused++;
    } else {
      fragment = { item, refs, json: JSON.stringify(toFrontierItemWire(item, refOf)) };
      this.rendered++;
    }
    next.set(item.item_id, fragment);
    return fragment.json;
  }
}
