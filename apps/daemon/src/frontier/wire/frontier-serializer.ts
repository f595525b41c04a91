import { createHash } from 'node:crypto';

import { FrontierComputation, FrontierItem, listStampsOf } from '@app/core';

import { RefBook, RefsAt } from './frontier-ref-book';
import { frontierItemJson, quote, Quoter, sameWireFields } from './frontier-wire-fields';

export { frontierItemJson, sameWireFields } from './frontier-wire-fields';
export type { Quoter } from './frontier-wire-fields';

export interface SerializedFrontier {
  // sent as they are; after a write most chunks are views of earlier answers' buffers
  chunks: readonly Buffer[];
  length: number;
  etag: string;
}

export interface SerializedAnswer extends SerializedFrontier {
  refs: RefsAt;
}

// The ETag hashes the digests of pieces cut at pieceEnd items (~1 in 32) and list bounds: the same on every
// replica for the same bytes, yet a write rehashes only the pieces it did not copy whole.
const PIECE_LISTS: ReadonlySet<string> = new Set(['runnable', 'blocked', 'frozen', 'conduct_eligible']);

// Whether a piece ends after the item with this item_id: FNV-1a (32 bits) of its UTF-16 code units, low 5 bits 0.
export function pieceEnd(itemId: string): boolean {
  let h = 0x811c9dc5;
  for (let k = 0; k < itemId.length; k++) h = Math.imul(h ^ itemId.charCodeAt(k), 0x01000193);
  return (h & 31) === 0;
}

function etagOfDigests(digests: Buffer): string {
  return `"${createHash('sha256').update(digests).digest('base64url').slice(0, 32)}"`;
}

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

export function etagOf(chunks: readonly Buffer[], cuts: readonly number[] = []): string {
  const starts = chunkStarts(chunks);
  const length = starts[starts.length - 1];
  const digests = Buffer.allocUnsafe((cuts.length + 1) * 32);
  for (let i = 0; i <= cuts.length; i++) {
    digestOfRange(chunks, starts, i === 0 ? 0 : cuts[i - 1], i < cuts.length ? cuts[i] : length).copy(digests, i * 32);
  }
  return etagOfDigests(digests);
}

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

export function bodyBytes(serialized: SerializedFrontier): Buffer {
  return serialized.chunks.length === 1 ? serialized.chunks[0] : Buffer.concat(serialized.chunks, serialized.length);
}

type RefOf = (id: number) => string | undefined;

class Range {
  constructor(
    readonly start: number,
    public end: number,
    readonly at: number,
  ) {}
}

class Span {
  constructor(
    readonly block: Buffer,
    readonly start: number,
    public end: number,
  ) {}
}

// Encodes straight into blocks so that no item's JSON string lives long enough to be promoted by the GC.
class TextBlocks {
  block: Buffer = Buffer.alloc(0);
  start = 0;
  private at = 0;

  constructor(private nextSize: number) {}

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

interface Placed {
  items: readonly FrontierItem[];
  start: Int32Array;
  end: Int32Array;
  cut: Uint8Array;
  stamps: Float64Array | null;
  buffers: PlacedBuffers | null;
}

// Kept for the body after next (two sets per list): faulting in fresh large arrays costs more than writing them.
class PlacedBuffers {
  private startBuffer = new Int32Array(0);
  private endBuffer = new Int32Array(0);
  private cutBuffer = new Uint8Array(0);
  private stampBuffer = new Float64Array(0);
  start = this.startBuffer;
  end = this.endBuffer;
  cut = this.cutBuffer;
  stamp = this.stampBuffer;

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
const LOOK_AHEAD = 4;
// missed items are encoded until this many were, then looked up by id (a map of every place costs more)
const LOCATE_AFTER_MISSES = 256;

// Past this many chunks the body of views is copied into one buffer again. A priority write splits about two views,
// so at 100k items under 32 writers 1,024 chunks meant a fresh 23 MB copy every 2.5 s: 70-80 ms of the thread here,
// most of it faulting in new pages. At 8,192 writes went 220 -> 270 a second (bench:writes, 2026-11-30); a read of the
// whole body sends its chunks in turn (frontier.controller.ts).
const MAX_CHUNKS = 8192;
const FIRST_BLOCK = 16 << 10;
const MAX_BLOCK = 4 << 20;
const RETAINED_SLACK = 1 << 20;
// a lookup of an old answer's ref walks the changes logged after it
const MAX_REF_CHANGES = 4096;

// Digest `from` of one table into slot `to` of another, byte by byte: Buffer's copy makes a Uint8Array view per
// call on Node 20, ~2k of them an answer at 100k items.
function copyDigest(source: Uint8Array, from: number, target: Uint8Array, to: number): void {
  for (let b = 0; b < 32; b++) target[to * 32 + b] = source[from * 32 + b];
}

function indexOf(sorted: Int32Array, length: number, value: number): number {
  let low = 0;
  let high = length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (sorted[mid] < value) low = mid + 1;
    else if (sorted[mid] > value) high = mid - 1;
    else return mid;
  }
  return -1;
}

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

class BodyWriter {
  readonly pieces: (Span | Range)[] = [];
  private readonly text = new TextBlocks(FIRST_BLOCK);
  size = 0;
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

// Every place in the previous body's lists by item id, for the items a write moved: (list << 24) + index at
// `placeOf[id]`, valid where `placedIn[id]` is the current round. One pair for every serializer (a serialization runs
// to its end without yielding), grown to the largest id seen. Filled by index: 0.26 ms at 100k places, where the Map
// that every write moving many items built again took 7.3 ms.
let placeOf = new Int32Array(0);
let placedIn = new Uint32Array(0);
let placeRound = 0;

function growPlaces(id: number): void {
  const size = Math.max(id + 1, placeOf.length * 2, 1024);
  const at = new Int32Array(size);
  at.set(placeOf);
  const round = new Uint32Array(size);
  round.set(placedIn);
  placeOf = at;
  placedIn = round;
}

class Placement {
  reused = 0;
  rendered = 0;
  misses = 0;
  readonly fromScratch: boolean;
  private round = -1;

  constructor(
    readonly previous: readonly Placed[],
    readonly changedBlockers: Set<number> | null,
    readonly refOf: RefOf,
    readonly quoter: Quoter,
  ) {
    this.fromScratch = previous.every((list) => list.items.length === 0);
  }

  locate(id: number): number {
    if (this.round !== placeRound || this.round < 0) this.placeAll();
    return id < placedIn.length && placedIn[id] === placeRound ? placeOf[id] : -1;
  }

  private placeAll(): void {
    if (placeRound === 0xffffffff) {
      placedIn.fill(0);
      placeRound = 0;
    }
    const round = ++placeRound;
    for (let l = 0; l < LIST_COUNT; l++) {
      const items = this.previous[l].items;
      for (let k = 0; k < items.length; k++) {
        const key = items[k].item_id;
        if (key >= placedIn.length) growPlaces(key);
        if (placedIn[key] !== round) {
          placedIn[key] = round;
          placeOf[key] = l * 0x1000000 + k;
        }
      }
    }
    this.round = round;
  }

  citesChanged(item: FrontierItem): boolean {
    const changed = this.changedBlockers;
    if (changed === null) return false;
    for (const id of item.blocked_by) if (changed.has(id)) return true;
    return false;
  }
}

// Tells items apart by stamp when it can (reading the objects in rank order is a cache miss each); module-level
// because as a closure over serialize's locals V8 kept deoptimizing it.
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
  const wasStamps = stamps === null ? null : was.stamps;
  if (stamps !== null) buffers.stamp.set(stamps);
  if (items === before && items.length > 0 && changedBlockers === null) {
    // the list the last body had (the core passes on a list no write reached): its bytes in one range
    const shift = body.size - wasStart[0];
    body.copy(wasStart[0], wasEnd[items.length - 1], false);
    for (let k = 0; k < items.length; k++) {
      start[k] = wasStart[k] + shift;
      end[k] = wasEnd[k] + shift;
    }
    cut.set(wasCut);
    placement.reused += items.length;
    return { items, start, end, cut, stamps: stamps === null ? null : buffers.stamp, buffers };
  }
  for (let k = 0; k < items.length; k++) {
    const item = items[k];
    const comma = k > 0;
    // the usual case after a write, inlined: the item that came next in the last body extends the copied range
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
    let list: Placed | null = null;
    let at = -1;
    if (j < before.length && sameWireFields(before[j], item)) {
      list = was;
      at = j++;
    } else if (j < before.length && before[j].item_id === item.item_id) {
      // changed in place: encoded and passed by, so a run of changed items does not make every item after it a miss
      j++;
    } else {
      for (let d = 1; d <= LOOK_AHEAD && j + d < before.length; d++) {
        if (sameWireFields(before[j + d], item)) {
          list = was;
          at = j + d;
          j += d + 1;
          break;
        }
      }
      // moved up or from another list: by id, once enough misses pay for the map
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
    const json = frontierItemJson(item, placement.refOf, placement.quoter);
    start[k] = body.size + (comma ? 1 : 0);
    body.write(comma ? `,${json}` : json);
    end[k] = body.size;
    cut[k] = pieceEnd(item.ref) ? 1 : 0;
    placement.rendered++;
  }
  return { items, start, end, cut, stamps: stamps === null ? null : buffers.stamp, buffers };
}

// An answer's pieces: where each starts and ends in its body, and the SHA-256 of its bytes; room for `capacity`, the
// first `count` in use. Reused from answer to answer, grown by a quarter when an answer has more pieces.
class PieceTable {
  readonly start: Int32Array;
  readonly end: Int32Array;
  readonly digests: Buffer;
  count = 0;

  constructor(capacity: number) {
    this.start = new Int32Array(capacity);
    this.end = new Int32Array(capacity);
    this.digests = Buffer.allocUnsafe(capacity * 32);
  }

  fit(count: number): PieceTable {
    const table = count <= this.start.length ? this : new PieceTable(count + (count >> 2));
    table.count = count;
    return table;
  }
}

// Invariant: the body is byte for byte JSON.stringify(toFrontierResultWire(...)).
export class FrontierSerializer {
  private chunks: readonly Buffer[] = [];
  private chunkStart: number[] = [0];
  private lists: Placed[] = [NO_LIST, NO_LIST, NO_LIST, NO_LIST];
  private spare: PlacedBuffers[] = [new PlacedBuffers(), new PlacedBuffers(), new PlacedBuffers(), new PlacedBuffers()];
  // every blocker named by the last body → its ref as written there (undefined: left out)
  private knownRefs = new RefBook();
  private quotedRefs = new Map<number, string>();
  private lastRefOf: RefOf | null = null;
  // the last body's pieces (start, end, digest), and a second table the next body's are written to: each answer
  // wrote ~100 KB of tables at 100k items that the next one dropped
  private pieces = new PieceTable(0);
  private sparePieces = new PieceTable(0);
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

  private etag(
    lists: readonly Placed[],
    listStarts: readonly number[],
    pieces: readonly (Span | Range)[],
    chunks: readonly Buffer[],
    starts: readonly number[],
    size: number,
  ): string {
    let cutCount = 0;
    for (let l = 0; l < lists.length; l++) {
      const { end, cut } = lists[l];
      cutCount++;
      for (let k = 0; k < end.length; k++) if (cut[k] === 1 || k === end.length - 1) cutCount++;
    }
    const count = cutCount + 1;
    const table = this.sparePieces.fit(count);
    const { start: pieceStart, end: pieceStop, digests } = table;
    // piece i runs from the cut before it to its own (the last one to the body's end)
    let piece = 0;
    for (let l = 0; l < lists.length; l++) {
      const { end, cut } = lists[l];
      pieceStop[piece++] = listStarts[l];
      for (let k = 0; k < end.length; k++) if (cut[k] === 1 || k === end.length - 1) pieceStop[piece++] = end[k];
    }
    pieceStop[piece] = size;
    const before = this.pieces;
    const ranges = pieces.filter((p): p is Range => p instanceof Range);
    let r = 0;
    let hashed = 0;
    for (let i = 0; i < count; i++) {
      const from = i === 0 ? 0 : pieceStop[i - 1];
      const to = pieceStop[i];
      pieceStart[i] = from;
      while (r < ranges.length && ranges[r].at + (ranges[r].end - ranges[r].start) <= from) r++;
      let reused = false;
      const range = r < ranges.length ? ranges[r] : null;
      if (range !== null && range.at <= from && to <= range.at + (range.end - range.start)) {
        // the piece's bytes are the last body's [was, was + length): its digest if that was a piece there
        const was = range.start + (from - range.at);
        const j = indexOf(before.start, before.count, was);
        if (j >= 0 && before.end[j] === was + (to - from)) {
          copyDigest(before.digests, j, digests, i);
          reused = true;
        }
      }
      if (!reused) {
        copyDigest(digestOfRange(chunks, starts, from, to), 0, digests, i);
        hashed += to - from;
      }
    }
    this.sparePieces = before;
    this.pieces = table;
    this.hashed = hashed;
    return etagOfDigests(digests.subarray(0, count * 32));
  }

  // Views rather than a copy per write (a large allocation and as much garbage), compacted now and then.
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

  private viewsOf(start: number, end: number, chunks: Buffer[]): void {
    const starts = this.chunkStart;
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
