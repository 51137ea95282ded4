import DataLoader from 'dataloader';
import { DataSource, EntityTarget, In, ObjectLiteral } from 'typeorm';
import { findRows } from './lean-read';

/**
 * Per-request DataLoader registry. Any field that loads related rows goes through one of these so a
 * list costs a fixed number of statements whatever its length.
 */
export class Loaders {
  private readonly cache = new Map<string, DataLoader<unknown, unknown>>();
  /** byId's loaders by entity: fields call byId per row, and its string key was made on every call. */
  private readonly byEntity = new Map<unknown, DataLoader<number, unknown>>();

  constructor(readonly ds: DataSource) {}

  /** A loader under `key`, created on first use by `factory`. */
  get<K, V>(key: string, factory: () => DataLoader<K, V>): DataLoader<K, V> {
    let l = this.cache.get(key);
    if (!l) {
      l = factory() as DataLoader<unknown, unknown>;
      this.cache.set(key, l);
    }
    return l as DataLoader<K, V>;
  }

  /** Rows of `entity` by primary key; missing ids resolve to null. */
  byId<T extends ObjectLiteral & { id: number }>(entity: EntityTarget<T>): DataLoader<number, T | null> {
    const known = this.byEntity.get(entity);
    if (known) return known as DataLoader<number, T | null>;
    const name = typeof entity === 'function' ? entity.name : String(entity);
    const loader = this.get(`byId:${name}`, () =>
      new DataLoader<number, T | null>(async (ids) => {
        // Lean: a plain SELECT mapped to the same entities (src/db/lean-read.ts); the repository otherwise.
        const where = { id: In([...ids]) };
        const rows = await findRows(this.ds, entity, where);
        const map = new Map(rows.map((r) => [r.id, r]));
        return ids.map((id) => map.get(id) ?? null);
      }),
    );
    this.byEntity.set(entity, loader as DataLoader<number, unknown>);
    return loader;
  }

  /**
   * A list field of many parents as one call: every parent asking for list `name` with the same `args`
   * in one tick goes to `batch` together, which answers per parent in order (an Error refuses that
   * parent alone). The service's bulk method does the permission rule for all parents at once, so a
   * list of courses each asking for its sections costs what one course does. Keyed by parent id and
   * the arguments, so a parent asked twice with different pages gets both.
   */
  perParent<P extends { id: number }, R>(name: string, args: unknown, batch: (parents: readonly P[]) => Promise<(R | Error)[]>): DataLoader<P, R, number> {
    return this.get(`perParent:${name}:${JSON.stringify(args ?? {})}`, () => new DataLoader<P, R, number>(batch, { cacheKeyFn: (p) => p.id }));
  }

  /** Rows of `entity` grouped by a foreign-key column, e.g. sections by course_id. */
  manyBy<T extends ObjectLiteral>(
    entity: EntityTarget<T>,
    column: keyof T & string,
    where: Partial<Record<keyof T, unknown>> = {},
    order: Partial<Record<keyof T, 'ASC' | 'DESC'>> = { id: 'ASC' } as never,
  ): DataLoader<number, T[]> {
    const name = typeof entity === 'function' ? entity.name : String(entity);
    return this.get(`manyBy:${name}:${column}:${JSON.stringify(where)}`, () =>
      new DataLoader<number, T[]>(async (keys) => {
        const all = { ...where, [column]: In([...keys]) };
        const rows = await findRows(this.ds, entity, all, order as Record<string, 'ASC' | 'DESC'>);
        const groups = new Map<number, T[]>(keys.map((k) => [k, []]));
        for (const r of rows) groups.get(r[column] as number)?.push(r);
        return keys.map((k) => groups.get(k) ?? []);
      }),
    );
  }
}
