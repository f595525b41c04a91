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
  // the item's JSON as a byte range of the body of `generation`
  start: number;
  length: number;
  generation: number;
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

// One piece of the next body: text to encode, or a byte range of the previous body or of the body itself.
interface Piece {
  text: string | null;
  self: boolean;
  start: number;
  length: number;
}

const PREVIOUS = false;
const SELF = true;

// Serializes FrontierResults of one project's successive graphs. Each item's JSON stays where it is in the last
// body (a byte range, no string kept) and is copied from there when every field it is made of is unchanged, so a
// write encodes only the items it reached; neighbouring unchanged items are copied as one range with the comma
// between them, and an item listed twice (conduct_eligible repeats runnable items) is copied from its first place.
// The body is byte for byte JSON.stringify(toFrontierResultWire(...)).
export class FrontierSerializer {
  // one entry per item of the last body, updated in place (no per-write map or fragment objects)
  private readonly fragments = new Map<number, Fragment>();
  private body: Buffer = Buffer.alloc(0);
  private generation = 0;
  reused = 0;
  rendered = 0;

  serialize(computation: FrontierComputation, refOf: (id: number) => string | undefined): SerializedFrontier {
    const fragments = this.fragments;
    const generation = ++this.generation;
    const pieces: Piece[] = [];
    let size = 0;
    let open: Piece | null = null;
    const text = (value: string): void => {
      const length = Buffer.byteLength(value, 'utf8');
      open = { text: value, self: false, start: -1, length };
      pieces.push(open);
      size += length;
    };
    // a range, with the comma before it when that comma sits right before it in the same source
    const range = (self: boolean, start: number, length: number, comma: boolean): void => {
      const last = open as Piece | null;
      const joined = comma ? start - 1 : start;
      if (last !== null && last.text === null && last.self === self && last.start + last.length === joined) {
        last.length += length + (comma ? 1 : 0);
        size += length + (comma ? 1 : 0);
        return;
      }
      if (comma) text(',');
      open = { text: null, self, start, length };
      pieces.push(open);
      size += length;
    };
    this.reused = 0;
    this.rendered = 0;
    const list = (items: readonly FrontierItem[]): void => {
      for (let k = 0; k < items.length; k++) {
        const item = items[k];
        const comma = k > 0;
        const fragment = fragments.get(item.item_id);
        if (fragment !== undefined && fragment.generation === generation) {
          if (fragment.item === item) {
            range(SELF, fragment.start, fragment.length, comma);
          } else {
            if (comma) text(',');
            text(JSON.stringify(toFrontierItemWire(item, refOf)));
          }
          continue;
        }
        if (
          fragment !== undefined &&
          (fragment.item === item || sameWireFields(fragment.item, item)) &&
          sameRefs(fragment.refs, item.blocked_by, refOf)
        ) {
          range(PREVIOUS, fragment.start, fragment.length, comma);
          fragment.item = item;
          fragment.start = size - fragment.length;
          fragment.generation = generation;
          this.reused++;
          continue;
        }
        if (comma) text(',');
        const json = JSON.stringify(toFrontierItemWire(item, refOf));
        const at = size;
        text(json);
        const refs = resolveRefs(item.blocked_by, refOf);
        if (fragment === undefined) {
          fragments.set(item.item_id, { item, refs, start: at, length: size - at, generation });
        } else {
          fragment.item = item;
          fragment.refs = refs;
          fragment.start = at;
          fragment.length = size - at;
          fragment.generation = generation;
        }
        this.rendered++;
      }
    };
    text('{"runnable":[');
    list(computation.runnable);
    text('],"blocked":[');
    list(computation.blocked);
    text('],"frozen":[');
    list(computation.frozen);
    text(`],"wip_cap":${JSON.stringify(computation.wip_cap)},"wip_active":${JSON.stringify(computation.wip_active)},`);
    text('"conduct_eligible":[');
    list(computation.conduct_eligible);
    text(']}');
    const body = Buffer.allocUnsafe(size);
    let at = 0;
    for (const piece of pieces) {
      if (piece.text !== null) {
        body.write(piece.text, at, piece.length, 'utf8');
      } else {
        // a range of this body always lies before the piece that copies it
        (piece.self ? body : this.body).copy(body, at, piece.start, piece.start + piece.length);
      }
      at += piece.length;
    }
    // items no longer on the frontier
    for (const [id, fragment] of fragments) if (fragment.generation !== generation) fragments.delete(id);
    this.body = body;
    return { body, etag: etagOf(body) };
  }
}

// blocked_by as public refs as they resolve now (a deleted blocker drops out).
function resolveRefs(ids: readonly number[], refOf: (id: number) => string | undefined): readonly string[] {
  if (ids.length === 0) return NO_REFS;
  const resolved: string[] = [];
  for (const id of ids) {
    const ref = refOf(id);
    if (ref !== undefined) resolved.push(ref);
  }
  return resolved;
}

// resolveRefs(ids) equals refs, without building the list.
function sameRefs(refs: readonly string[], ids: readonly number[], refOf: (id: number) => string | undefined): boolean {
  let at = 0;
  for (const id of ids) {
    const ref = refOf(id);
    if (ref === undefined) continue;
    if (at >= refs.length || refs[at] !== ref) return false;
    at++;
  }
  return at === refs.length;
}
