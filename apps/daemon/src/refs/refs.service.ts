import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

import { DomainError } from '../common/domain-error';
import { RefsRepository, ResolvedRef } from './refs.repository';

export const REF_PATTERN = /^[A-Za-z][A-Za-z0-9]{0,15}-[0-9]{1,9}$/;

export const itemNotFound = (ref: string) => new DomainError('item_not_found', `no item ${ref}`, 404, { item_id: ref });

@Injectable()
export class RefsService {
  constructor(private readonly repository: RefsRepository) {}

  async resolve(ref: string, manager?: EntityManager): Promise<ResolvedRef> {
    if (!REF_PATTERN.test(ref)) {
      throw new DomainError('invalid_ref', `"${ref.slice(0, 40)}" is not an item ref such as ABC-12`, 400);
    }
    const [found] = await this.repository.resolveMany([ref], manager);
    if (!found) throw itemNotFound(ref);
    return found;
  }

  // All or nothing: names every ref that does not resolve.
  async resolveAll(refs: readonly string[], manager?: EntityManager): Promise<Map<string, ResolvedRef>> {
    const bad = refs.filter((r) => !REF_PATTERN.test(r));
    if (bad.length > 0) throw new DomainError('invalid_ref', `not item refs: ${bad.join(', ')}`, 400);
    const found = await this.repository.resolveMany(refs, manager);
    const byRef = new Map(found.map((r) => [r.ref.toUpperCase(), r]));
    const missing = refs.filter((r) => !byRef.has(r.toUpperCase()));
    if (missing.length > 0) throw new DomainError('item_not_found', `no items ${missing.join(', ')}`, 404, { missing });
    return new Map(refs.map((r) => [r, byRef.get(r.toUpperCase())!]));
  }

  refsOf(ids: readonly number[], manager?: EntityManager): Promise<Map<number, string>> {
    return this.repository.refsOf(ids, manager);
  }
}
