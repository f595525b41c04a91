import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { invalidRef, invalidRefs, itemNotFound, itemsNotFound } from './refs.errors';
import { RefsRepository, ResolvedRef } from './refs.repository';

export type { ResolvedRef };

export const REF_PATTERN = /^[A-Za-z][A-Za-z0-9]{0,15}-[0-9]{1,9}$/;

export { itemNotFound };

// A ref split into what the database keys on: the project's public prefix (upper case) and the item's sequence.
export interface RefParts {
  prefix: string;
  sequence: number;
}

export function parseRef(ref: string): RefParts {
  if (!REF_PATTERN.test(ref)) throw invalidRef(ref);
  const dash = ref.indexOf('-');
  return { prefix: ref.slice(0, dash).toUpperCase(), sequence: Number(ref.slice(dash + 1)) };
}

@Injectable()
export class RefsService {
  constructor(private readonly repository: RefsRepository) {}

  async resolve(ref: string, manager?: EntityManager): Promise<ResolvedRef> {
    const { prefix, sequence } = parseRef(ref);
    const found = await this.repository.resolveOne(prefix, sequence, manager);
    if (!found) throw itemNotFound(ref);
    return found;
  }

  async resolveAll(refs: readonly string[], manager?: EntityManager): Promise<Map<string, ResolvedRef>> {
    const bad = refs.filter((r) => !REF_PATTERN.test(r));
    if (bad.length > 0) throw invalidRefs(bad);
    const found = await this.repository.resolveMany(refs, manager);
    const byRef = new Map(found.map((r) => [r.ref.toUpperCase(), r]));
    const missing = refs.filter((r) => !byRef.has(r.toUpperCase()));
    if (missing.length > 0) throw itemsNotFound(missing);
    return new Map(refs.map((r) => [r, byRef.get(r.toUpperCase())!]));
  }

  refsOf(ids: readonly number[], manager?: EntityManager): Promise<Map<number, string>> {
    return this.repository.refsOf(ids, manager);
  }
}
