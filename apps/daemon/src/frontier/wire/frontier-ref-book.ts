// A blocker's ref seldom changes (left out once the blocker is gone, back with it), so one book per serializer
// holds the current refs and a log of changes instead of a Map per answer: an answer is (book, version), and two
// answers of one book differ only at the ids logged between their versions.
export class RefBook {
  private readonly refs = new Map<number, string | undefined>();
  // the change that made version k + 1: the id and its ref before
  private readonly changedIds: number[] = [];
  private readonly before: (string | undefined)[] = [];

  // a change of a known id's ref is a new version; a newly named id is not
  get version(): number {
    return this.changedIds.length;
  }

  get size(): number {
    return this.refs.size;
  }

  has(id: number): boolean {
    return this.refs.has(id);
  }

  get(id: number): string | undefined {
    return this.refs.get(id);
  }

  set(id: number, ref: string | undefined): void {
    if (!this.refs.has(id)) {
      this.refs.set(id, ref);
      return;
    }
    const was = this.refs.get(id);
    if (was === ref) return;
    this.changedIds.push(id);
    this.before.push(was);
    this.refs.set(id, ref);
  }

  changedBetween(from: number, to: number): Set<number> | null {
    if (from === to) return null;
    const low = Math.min(from, to);
    const high = Math.max(from, to);
    const ids = new Set<number>();
    for (let k = low; k < high; k++) ids.add(this.changedIds[k]);
    return ids;
  }

  refAt(id: number, version: number): string | undefined {
    for (let k = version; k < this.changedIds.length; k++) if (this.changedIds[k] === id) return this.before[k];
    return this.refs.get(id);
  }

  // Every id's current ref, with a callback per id whose ref is not what refOf says now (which is then recorded).
  refresh(refOf: (id: number) => string | undefined, changed: (id: number) => void): void {
    for (const [id, ref] of this.refs) {
      const now = refOf(id);
      if (now !== ref) {
        this.set(id, now);
        changed(id);
      }
    }
  }
}

export interface RefsAt {
  book: RefBook;
  version: number;
}

export function refsOf(at: RefsAt): (id: number) => string | undefined {
  const { book, version } = at;
  return (id) => book.refAt(id, version);
}

// null: no blocker's ref differs between the answers
export function refsDiffer(from: RefsAt, to: RefsAt): ((blockedBy: readonly number[]) => boolean) | null {
  if (from.book === to.book) {
    const changed = from.book.changedBetween(from.version, to.version);
    if (changed === null) return null;
    return (blockedBy) => {
      for (const id of blockedBy) if (changed.has(id)) return true;
      return false;
    };
  }
  // a reload in between: blocker by blocker
  const a = refsOf(from);
  const b = refsOf(to);
  return (blockedBy) => {
    for (const id of blockedBy) if (a(id) !== b(id)) return true;
    return false;
  };
}
