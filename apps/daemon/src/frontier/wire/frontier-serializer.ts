import { createHash } from 'node:crypto';

import { FrontierComputation, FrontierItem, listStampsOf } from '@app/core';

import { RefBook, RefsAt } from './frontier-ref-book';
import { frontierItemJson, quote, Quoter, sameWireFields } from './frontier-wire-fields';

// the item's JSON and the identity check live with the wire-field table
export { frontierItemJson, sameWireFields } from './frontier-wire-fields';
export type { Quoter } from './frontier-wire-fields';

export interface SerializedFrontier {
  // the UTF-8 bytes, sent one chunk after another as they are (no per-response encoding); after a write most chunks
  // are views of earlier answers' buffers (see FrontierSerializer)
  chunks: readonly Buffer[];
  // bytes in all
  length: number;
  // a strong validator of exactly these bytes: a digest of the body, computed once with the serialization
  etag: string;
}

// A serializer's answer: also the refs its items wrote for their blockers (the delta history keeps them).
export interface SerializedAnswer extends SerializedFrontier {
  refs: RefsAt;
}

// The ETag (h-perf): a function of the body's bytes alone, so every replica names the same one for the same body,
// but one a write does not pay in full. The body is cut into pieces after each item (of the four lists) whose
// item_id is a piece end (pieceEnd: about one item in 32), after each list's last item and where each list's
// items begin (right after its "["); the ETag is the SHA-256 of
// the pieces' SHA-256 digests one after another, base64url, the first 32 characters, quoted. A serializer keeps the
// digests of its last body's pieces and hashes again only the pieces whose bytes it did not copy whole from a piece
// of that body: after a one-item write at 100k items a few pieces of ~7 KB instead of 23 MB (SHA-256 of the whole
// body was 10 % of the daemon's CPU in the 100k burst). A plain SHA-256 of the body would have no such cut.
const PIECE_LISTS: ReadonlySet<string> = new Set(['runnable', 'blocked', 'frozen', 'conduct_eligible']);

// Whether a piece ends after the item with this item_id: FNV-1a (32 bits) of its UTF-16 code units, low 5 bits 0.
export function pieceEnd(itemId: string): boolean {
  let h = 0x811c9dc5;
  for (let k = 0; k < itemId.length; k++) h = Math.imul(h ^ itemId.charCodeAt(k), 0x01000193);
  return (h & 31) === 0;
}

// The ETag of pieces' digests (32 bytes each, in body order).
function etagOfDigests(digests: Buffer): string {
  return `"${createHash('sha256').update(digests).digest('base64url').slice(0, 32)}"`;
}

// SHA-256 of the bytes [from, to) of a body given as chunks starting at `starts`.
function digestOfRange(chunks: readonly Buffer[], starts: readonly number[], from: number, to: number): Buffer {
  const hash = createHash('sha256');
  let low = 0;
  let high = chunks.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid] <= from) low = mid;
    else high = mid - 1;
  }
  for (let k = low; from < to; k++) {
    const end = Math.min(to, starts[k + 1]);
    if (end > from) hash.update(chunks[k].subarray(from - starts[k], end - starts[k]));
    from = end;
  }
  return hash.digest();
}

function chunkStarts(chunks: readonly Buffer[]): number[] {
  const starts = [0];
  for (const chunk of chunks) starts.push(starts[starts.length - 1] + chunk.length);
  return starts;
}

// The ETag of a body cut at the given byte offsets (ascending, inside the body).
export function etagOf(chunks: readonly Buffer[], cuts: readonly number[] = []): string {
  const starts = chunkStarts(chunks);
  const length = starts[starts.length - 1];
  const digests = Buffer.allocUnsafe((cuts.length + 1) * 32);
  for (let i = 0; i <= cuts.length; i++) {
    digestOfRange(chunks, starts, i === 0 ? 0 : cuts[i - 1], i < cuts.length ? cuts[i] : length).copy(digests, i * 32);
  }
  return etagOfDigests(digests);
}

// Where a body JSON.stringify(result) is cut into pieces, found by walking `result` (the reference the serializer's
// ETag is tested against; a value that is no object is one piece).
export function pieceCuts(result: unknown): number[] {
  const cuts: number[] = [];
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return cuts;
  let at = 1;
  let first = true;
  for (const [key, value] of Object.entries(result)) {
    if (value === undefined) continue;
    at += (first ? 0 : 1) + Buffer.byteLength(JSON.stringify(key)) + 1;
    first = false;
    if (PIECE_LISTS.has(key) && Array.isArray(value)) {
      at += 1;
      cuts.push(at);
      value.forEach((item: unknown, k) => {
        at += (k > 0 ? 1 : 0) + Buffer.byteLength(JSON.stringify(item) ?? 'null');
        const id = (item as { item_id?: unknown } | null)?.item_id;
        if (k === value.length - 1 || (typeof id === 'string' && pieceEnd(id))) cuts.push(at);
      });
      at += 1;
    } else {
      at += Buffer.byteLength(JSON.stringify(value));
    }
  }
  return cuts;
}

export function serializeFrontier(result: unknown): SerializedFrontier {
  const body = Buffer.from(JSON.stringify(result), 'utf8');
  return { chunks: [body], length: body.length, etag: etagOf([body], pieceCuts(result)) };
}

// The whole body in one buffer (tests; the daemon sends the chunks).
export function bodyBytes(serialized: SerializedFrontier): Buffer {
  return serialized.chunks.length === 1 ? serialized.chunks[0] : Buffer.concat(serialized.chunks, serialized.length);
}

type RefOf = (id: number) => string | undefined;

// A byte range of the last body, taken into the next one.
class Range {
  constructor(
    readonly start: number,
    public end: number,
    // where it starts in the next body
    readonly at: number,
  ) {}
}

// Bytes just encoded, in one of the TextBlocks' buffers.
class Span {
  constructor(
    readonly block: Buffer,
    readonly start: number,
    public end: number,
  ) {}
}

// Where one serialization writes what it encodes, as it encodes it: no item's JSON string outlives the item (kept
// until the end, 23 MB of them at 100k were promoted by the GC before being written), and the write's byte count
// comes with the copy. Blocks double from a small first one, so a write that encodes a few items keeps a few KB.
class TextBlocks {
  block: Buffer = Buffer.alloc(0);
  // where the last write began in `block`
  start = 0;
  private at = 0;

  constructor(private nextSize: number) {}

  // Writes the text and returns its bytes (at `start` in `block`).
  write(value: string): number {
    // UTF-8 takes at most 3 bytes per UTF-16 unit
    const worst = value.length * 3;
    if (this.at + worst > this.block.length) {
      this.block = Buffer.allocUnsafe(Math.max(worst, this.nextSize));
      this.at = 0;
      this.nextSize = Math.min(this.nextSize * 2, MAX_BLOCK);
    }
    this.start = this.at;
    const bytes = this.block.write(value, this.at, 'utf8');
    this.at += bytes;
    return bytes;
  }
}

// One list of the last body (runnable, blocked, frozen, conduct_eligible): its items and where each one's JSON sits.
interface Placed {
  items: readonly FrontierItem[];
  start: Int32Array;
  end: Int32Array;
  // 1 where a piece of the ETag ends after the item (pieceEnd of its item_id: copied with its bytes)
  cut: Uint8Array;
  // the items' stamps (core's stamps.ts), when the computation had them
  stamps: Float64Array | null;
  // what start, end, cut and stamps are views of
  buffers: PlacedBuffers | null;
}

// A list's start, end and cut arrays, kept from one body to the one after next (two sets per list, used in turn): at
// 1M items fresh ones were 9 MB per write, and the pages of a fresh large allocation cost more to fault in than the
// writes into them (about 3 ms per MB on these machines).
class PlacedBuffers {
  private startBuffer = new Int32Array(0);
  private endBuffer = new Int32Array(0);
  private cutBuffer = new Uint8Array(0);
  private stampBuffer = new Float64Array(0);
  start = this.startBuffer;
  end = this.endBuffer;
  cut = this.cutBuffer;
  stamp = this.stampBuffer;

  // Views of `length` entries (what they held before is overwritten by the caller).
  fit(length: number): this {
    if (this.startBuffer.length < length) {
      const capacity = length + (length >> 3);
      this.startBuffer = new Int32Array(capacity);
      this.endBuffer = new Int32Array(capacity);
      this.cutBuffer = new Uint8Array(capacity);
      this.stampBuffer = new Float64Array(capacity);
    }
    this.start = this.startBuffer.subarray(0, length);
    this.end = this.endBuffer.subarray(0, length);
    this.cut = this.cutBuffer.subarray(0, length);
    this.stamp = this.stampBuffer.subarray(0, length);
    return this;
  }
}

const NO_LIST: Placed = {
  items: [],
  start: new Int32Array(0),
  end: new Int32Array(0),
  cut: new Uint8Array(0),
  stamps: null,
  buffers: null,
};
const LIST_COUNT = 4;
// how far ahead in the same list an item is looked for before it counts as missed
const LOOK_AHEAD = 4;
// encoding an item costs a few microseconds, a map of every item's place a few milliseconds at 100k items: items
// missed in place are encoded until this many were, then looked up by id
const LOCATE_AFTER_MISSES = 256;

// A body after many writes is a list of views; past this many chunks it is copied into one buffer again.
const MAX_CHUNKS = 1024;
// TextBlocks' sizes: the first, and the largest (a body from scratch at 100k items takes a dozen blocks)
const FIRST_BLOCK = 16 << 10;
const MAX_BLOCK = 4 << 20;
const RETAINED_SLACK = 1 << 20;
// ref changes logged in one RefBook before the next answer starts a new one (a lookup of an old answer's ref walks
// the changes after it)
const MAX_REF_CHANGES = 4096;

// The index of `value` in an ascending array, or -1.
function indexOf(sorted: Int32Array, value: number): number {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (sorted[mid] < value) low = mid + 1;
    else if (sorted[mid] > value) high = mid - 1;
    else return mid;
  }
  return -1;
}

// Bytes of the distinct buffers a body's chunks are views of.
function retainedBytes(chunks: readonly Buffer[]): number {
  const seen = new Set<ArrayBufferLike>();
  let bytes = 0;
  for (const chunk of chunks) {
    if (!seen.has(chunk.buffer)) {
      seen.add(chunk.buffer);
      bytes += chunk.buffer.byteLength;
    }
  }
  return bytes;
}

// The body being written: encoded texts and copied ranges of the last body, in order (neighbours of one kind merged).
class BodyWriter {
  readonly pieces: (Span | Range)[] = [];
  private readonly text = new TextBlocks(FIRST_BLOCK);
  size = 0;
  // the range being copied, if the last piece is one
  last: Range | null = null;
  private span: Span | null = null;

  write(value: string): number {
    const text = this.text;
    const bytes = text.write(value);
    const open = this.span;
    if (open !== null && open.block === text.block && open.end === text.start) {
      open.end += bytes;
    } else {
      this.span = new Span(text.block, text.start, text.start + bytes);
      this.pieces.push(this.span);
    }
    this.size += bytes;
    this.last = null;
    return bytes;
  }

  copy(start: number, end: number, comma: boolean): void {
    const open = this.last;
    if (comma && open !== null && open.end + 1 === start) {
      // the item sat right after the previous one in the last body: the comma between them comes along
      this.size += end - open.end;
      open.end = end;
      return;
    }
    if (comma) this.write(',');
    const range = new Range(start, end, this.size);
    this.last = range;
    this.pieces.push(range);
    this.span = null;
    this.size += end - start;
  }
}

// What placing one body's lists reads of the last body, and what it counts.
class Placement {
  reused = 0;
  rendered = 0;
  misses = 0;
  // an answer from scratch has nothing to look up
  readonly fromScratch: boolean;
  // id → list * 2^24 + index of its first place in the last body, built on the first item not found in place
  private located: Map<number, number> | null = null;

  constructor(
    readonly previous: readonly Placed[],
    // blockers whose ref changed since the last body (null: none)
    readonly changedBlockers: Set<number> | null,
    readonly refOf: RefOf,
    readonly quoter: Quoter,
  ) {
    this.fromScratch = previous.every((list) => list.items.length === 0);
  }

  locate(id: number): number {
    let located = this.located;
    if (located === null) {
      located = new Map();
      for (let l = 0; l < LIST_COUNT; l++) {
        const items = this.previous[l].items;
        for (let k = 0; k < items.length; k++) {
          const key = items[k].item_id;
          if (!located.has(key)) located.set(key, l * 0x1000000 + k);
        }
      }
      this.located = located;
    }
    return located.get(id) ?? -1;
  }

  citesChanged(item: FrontierItem): boolean {
    const changed = this.changedBlockers;
    if (changed === null) return false;
    for (const id of item.blocked_by) if (changed.has(id)) return true;
    return false;
  }
}

// Places one list of the next body: each item's bytes copied from the last body when they can be, else encoded. Items
// are told apart by stamp when both bodies have them: comparing the objects read each one's header, and at 1M items
// in rank order (scattered over the heap) that was a cache miss an item, ~150 ns: 100 ms a body. A module-level
// function over plain objects (as a closure over serialize's locals V8 deoptimized it again and again).
function placeList(
  body: BodyWriter,
  placement: Placement,
  items: readonly FrontierItem[],
  was: Placed,
  buffers: PlacedBuffers,
  stamps: Float64Array | null,
): Placed {
  const { start, end, cut } = buffers;
  const { previous, changedBlockers } = placement;
  const before = was.items;
  let j = 0;
  const wasStart = was.start;
  const wasEnd = was.end;
  const wasCut = was.cut;
  // items are told apart by stamp when both bodies have them (no read of the item objects), else by identity
  const wasStamps = stamps === null ? null : was.stamps;
  if (stamps !== null) buffers.stamp.set(stamps);
  for (let k = 0; k < items.length; k++) {
    const item = items[k];
    const comma = k > 0;
    // the usual case after a write, inlined: the very item that came next in the last body, right after the range
    // being copied (no blocker changed its ref), extends that range with the comma between them
    const open = body.last;
    if (
      comma &&
      open !== null &&
      changedBlockers === null &&
      j < before.length &&
      (wasStamps !== null ? wasStamps[j] === stamps![k] : before[j] === item) &&
      open.end + 1 === wasStart[j]
    ) {
      const size = body.size + wasEnd[j] - open.end;
      body.size = size;
      open.end = wasEnd[j];
      end[k] = size;
      start[k] = size - (wasEnd[j] - wasStart[j]);
      cut[k] = wasCut[j];
      j++;
      placement.reused++;
      continue;
    }
    // where the item's JSON sits in the last body, if it can be copied from there
    let list: Placed | null = null;
    let at = -1;
    if (j < before.length && sameWireFields(before[j], item)) {
      list = was;
      at = j++;
    } else if (j < before.length && before[j].item_id === item.item_id) {
      // the same item in the same place, changed: encoded, and the last body's copy passed by (a run of changed items
      // longer than LOOK_AHEAD, such as the top five retitled, would otherwise miss every item after it)
      j++;
    } else {
      // a few places ahead: the items in between left the list or moved down
      for (let d = 1; d <= LOOK_AHEAD && j + d < before.length; d++) {
        if (sameWireFields(before[j + d], item)) {
          list = was;
          at = j + d;
          j += d + 1;
          break;
        }
      }
      // further away (moved up, or from another list): by id, once enough items were missed to pay for the map
      if (list === null && !placement.fromScratch && ++placement.misses > LOCATE_AFTER_MISSES) {
        const found = placement.locate(item.item_id);
        if (found >= 0) {
          const l = Math.floor(found / 0x1000000);
          const index = found % 0x1000000;
          if (sameWireFields(previous[l].items[index], item)) {
            list = previous[l];
            at = index;
            if (list === was && index >= j) j = index + 1;
          }
        }
      }
    }
    if (list !== null && !placement.citesChanged(item)) {
      body.copy(list.start[at], list.end[at], comma);
      end[k] = body.size;
      start[k] = body.size - (list.end[at] - list.start[at]);
      cut[k] = list.cut[at];
      placement.reused++;
      continue;
    }
    // the comma goes with the item's text: one write each
    const json = frontierItemJson(item, placement.refOf, placement.quoter);
    start[k] = body.size + (comma ? 1 : 0);
    body.write(comma ? `,${json}` : json);
    end[k] = body.size;
    cut[k] = pieceEnd(item.ref) ? 1 : 0;
    placement.rendered++;
  }
  return { items, start, end, cut, stamps: stamps === null ? null : buffers.stamp, buffers };
}

// Serializes FrontierResults of one project's successive graphs. The last body is kept with each item's byte range,
// list by list; the next body copies an item's range when the item is the same object as before (compute_frontier
// hands back the previous object for an unchanged item) or has the same wire fields, and none of its blockers'
// refs changed. Lists are walked side by side with the previous ones, so an unchanged item costs one comparison and
// neighbouring unchanged items are copied as one range (with the commas between them); items found elsewhere (moved
// by a change of rank) are looked up by id. A write thus encodes only the items it reached.
// The body is byte for byte JSON.stringify(toFrontierResultWire(...)).
export class FrontierSerializer {
  // the last body's chunks, and where each starts in the whole (one more entry: the length)
  private chunks: readonly Buffer[] = [];
  private chunkStart: number[] = [0];
  private lists: Placed[] = [NO_LIST, NO_LIST, NO_LIST, NO_LIST];
  // the buffers the next body's lists are placed in (not the last body's)
  private spare: PlacedBuffers[] = [new PlacedBuffers(), new PlacedBuffers(), new PlacedBuffers(), new PlacedBuffers()];
  // every blocker named by an item of the last body → its ref as written there (undefined: left out), with the
  // refs earlier bodies wrote (frontier-ref-book.ts)
  private knownRefs = new RefBook();
  // the same blockers' refs as JSON (an answer names a few thousand blockers over and over)
  private quotedRefs = new Map<number, string>();
  // the last body's pieces (see etagOf): where each starts and ends, and their SHA-256 digests one after another
  // the refOf the last body was written with
  private lastRefOf: RefOf | null = null;
  private pieceStart = new Int32Array(0);
  private pieceEnd = new Int32Array(0);
  private pieceDigests = Buffer.alloc(0);
  // items copied and items encoded by the last serialize, and bytes hashed for its ETag (tests and profiles read them)
  reused = 0;
  rendered = 0;
  hashed = 0;

  constructor(private readonly maxChunks = MAX_CHUNKS) {}

  serialize(computation: FrontierComputation, refOf: RefOf): SerializedAnswer {
    const changedBlockers = this.changedBlockers(refOf);
    const previous = this.lists;
    const body = new BodyWriter();
    const placement = new Placement(previous, changedBlockers, refOf, this.quoter(refOf));
    const knownRefs = this.knownRefs;
    const spare = this.spare;
    const stamps = listStampsOf(computation);
    const listStamps = stamps && [stamps.runnable, stamps.blocked, stamps.frozen, stamps.conduct_eligible];
    const place = (items: readonly FrontierItem[], l: number): Placed =>
      placeList(body, placement, items, previous[l], spare[l].fit(items.length), listStamps ? listStamps[l] : null);
    const write = (value: string): void => {
      body.write(value);
    };

    const next: Placed[] = [];
    const listStarts: number[] = [];
    write('{"runnable":[');
    listStarts.push(body.size);
    next.push(place(computation.runnable, 0));
    write('],"blocked":[');
    listStarts.push(body.size);
    next.push(place(computation.blocked, 1));
    write('],"frozen":[');
    listStarts.push(body.size);
    next.push(place(computation.frozen, 2));
    write(`],"wip_cap":${JSON.stringify(computation.wip_cap)},"wip_active":${JSON.stringify(computation.wip_active)},`);
    write('"conduct_eligible":[');
    listStarts.push(body.size);
    next.push(place(computation.conduct_eligible, 3));
    write(']}');

    const { pieces, size } = body;
    const chunks = this.assemble(pieces, size);
    const starts = chunkStarts(chunks);
    const etag = this.etag(next, listStarts, pieces, chunks, starts, size);
    this.chunks = chunks;
    this.chunkStart = starts;
    // the last body's buffers are written by the next one
    this.spare = previous.map((list, l) =>
      list.buffers === null || list.buffers === spare[l] ? new PlacedBuffers() : list.buffers,
    );
    this.lists = next;
    this.reused = placement.reused;
    this.rendered = placement.rendered;
    // blockers named long ago pile up in knownRefs; past a bound the next answer is encoded afresh
    const refs = { book: knownRefs, version: knownRefs.version };
    if (
      knownRefs.size > 4 * (next[0].items.length + next[1].items.length + next[2].items.length) + 1024 ||
      knownRefs.version > MAX_REF_CHANGES
    ) {
      this.forget();
    }
    return { chunks, length: size, etag, refs };
  }

  // The new body's ETag (etagOf with its piece cuts): a piece copied whole from a piece of the last body takes that
  // piece's digest, the others are hashed. Records the new body's pieces.
  private etag(
    lists: readonly Placed[],
    // where each list's items begin
    listStarts: readonly number[],
    pieces: readonly (Span | Range)[],
    chunks: readonly Buffer[],
    starts: readonly number[],
    size: number,
  ): string {
    const cuts: number[] = [];
    for (let l = 0; l < lists.length; l++) {
      const { end, cut } = lists[l];
      cuts.push(listStarts[l]);
      for (let k = 0; k < end.length; k++) if (cut[k] === 1 || k === end.length - 1) cuts.push(end[k]);
    }
    const count = cuts.length + 1;
    const pieceStart = new Int32Array(count);
    const pieceStop = new Int32Array(count);
    const digests = Buffer.allocUnsafe(count * 32);
    const before = { start: this.pieceStart, end: this.pieceEnd, digests: this.pieceDigests };
    const ranges = pieces.filter((p): p is Range => p instanceof Range);
    let r = 0;
    let hashed = 0;
    for (let i = 0; i < count; i++) {
      const from = i === 0 ? 0 : cuts[i - 1];
      const to = i < cuts.length ? cuts[i] : size;
      pieceStart[i] = from;
      pieceStop[i] = to;
      while (r < ranges.length && ranges[r].at + (ranges[r].end - ranges[r].start) <= from) r++;
      let reused = false;
      const range = r < ranges.length ? ranges[r] : null;
      if (range !== null && range.at <= from && to <= range.at + (range.end - range.start)) {
        // the piece's bytes are the last body's [was, was + length): its digest if that was a piece there
        const was = range.start + (from - range.at);
        const j = indexOf(before.start, was);
        if (j >= 0 && before.end[j] === was + (to - from)) {
          before.digests.copy(digests, i * 32, j * 32, j * 32 + 32);
          reused = true;
        }
      }
      if (!reused) {
        digestOfRange(chunks, starts, from, to).copy(digests, i * 32);
        hashed += to - from;
      }
    }
    this.pieceStart = pieceStart;
    this.pieceEnd = pieceStop;
    this.pieceDigests = digests;
    this.hashed = hashed;
    return etagOfDigests(digests);
  }

  // The next body's chunks: views of the encoded texts' blocks, and each range of the last body as views of its
  // chunks. A body is thus never copied whole after a write (at 100k items a 23 MB allocation and copy per read,
  // and as much garbage); past maxChunks, or when the buffers the views keep alive hold more than twice the body,
  // it is copied into one buffer again.
  private assemble(pieces: readonly (Span | Range)[], size: number): Buffer[] {
    const chunks: Buffer[] = [];
    for (const piece of pieces) {
      if (piece instanceof Span) {
        chunks.push(piece.block.subarray(piece.start, piece.end));
      } else {
        this.viewsOf(piece.start, piece.end, chunks);
      }
    }
    if (chunks.length > this.maxChunks || retainedBytes(chunks) > 2 * size + RETAINED_SLACK) {
      return [Buffer.concat(chunks, size)];
    }
    return chunks;
  }

  // Views of the last body's bytes [start, end), appended to `chunks` (merged with the last one when contiguous).
  private viewsOf(start: number, end: number, chunks: Buffer[]): void {
    const starts = this.chunkStart;
    // the last chunk starting at or before `start`
    let low = 0;
    let high = this.chunks.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid] <= start) low = mid;
      else high = mid - 1;
    }
    for (let k = low; start < end; k++) {
      const chunk = this.chunks[k];
      const to = Math.min(end, starts[k + 1]);
      const view = chunk.subarray(start - starts[k], to - starts[k]);
      const tail = chunks.length > 0 ? chunks[chunks.length - 1] : null;
      if (tail !== null && tail.buffer === view.buffer && tail.byteOffset + tail.length === view.byteOffset) {
        chunks[chunks.length - 1] = Buffer.from(tail.buffer, tail.byteOffset, tail.length + view.length);
      } else {
        chunks.push(view);
      }
      start = to;
    }
  }

  // Quotes through the memos; a blocker quoted for the first time is recorded in knownRefs.
  private quoter(refOf: RefOf): Quoter {
    const { knownRefs, quotedRefs } = this;
    return {
      ref: (id) => {
        let quoted = quotedRefs.get(id);
        if (quoted === undefined) {
          const ref = refOf(id);
          knownRefs.set(id, ref);
          quoted = ref === undefined ? '' : quote(ref);
          quotedRefs.set(id, quoted);
        }
        return quoted;
      },
      text: quote,
    };
  }

  // Blockers whose ref is not what the last body says (deleted, or back): items naming them are encoded again.
  private changedBlockers(refOf: RefOf): Set<number> | null {
    // the graph's refOf is the same function while its refs are the same (a patched graph keeps its predecessor's)
    if (refOf === this.lastRefOf) return null;
    this.lastRefOf = refOf;
    let changed: Set<number> | null = null;
    this.knownRefs.refresh(refOf, (id) => {
      (changed ??= new Set()).add(id);
      this.quotedRefs.delete(id);
    });
    return changed;
  }

  private forget(): void {
    this.lists = [NO_LIST, NO_LIST, NO_LIST, NO_LIST];
    this.knownRefs = new RefBook();
    this.quotedRefs = new Map();
  }
}
