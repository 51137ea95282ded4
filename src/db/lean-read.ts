import { DataSource, EntityMetadata, EntityTarget, FindOperator, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

/**
 * Lean reads for the per-request loaders (issue 11): one plain SELECT through TypeORM's own
 * connection (ds.query, so statements are still counted and pooled), its text built once per shape,
 * and rows turned into entities with the driver's own value conversion (dates, booleans, column
 * transformers) — without the query builder's per-call SQL assembly, alias rewriting and result
 * transformer, which cost more than the SQL on hot list paths. Entities come back as the same
 * classes with the same column values as repository.find would give.
 *
 * Supported: simple columns (no embedded or relation columns), where values that are plain values,
 * null or In([...]), and ascending/descending order by columns. Anything else answers null and the
 * caller falls back to the repository.
 */
interface Shape {
  metadata: EntityMetadata;
  columns: ColumnMetadata[];
  select: string;
}

const shapes = new WeakMap<DataSource, Map<unknown, Shape | null>>();

function shapeOf(ds: DataSource, entity: EntityTarget<unknown>): Shape | null {
  let perDs = shapes.get(ds);
  if (!perDs) shapes.set(ds, (perDs = new Map()));
  if (perDs.has(entity)) return perDs.get(entity)!;
  const metadata = ds.getMetadata(entity);
  const columns = metadata.columns.filter((c) => c.isSelect);
  const plain = metadata.columns.every((c) => !c.embeddedMetadata && !c.relationMetadata && !c.isVirtual && !c.isVirtualProperty);
  const esc = (n: string) => ds.driver.escape(n);
  const shape = plain && !metadata.inheritancePattern ? { metadata, columns, select: `SELECT ${columns.map((c) => esc(c.databaseName)).join(', ')} FROM ${esc(metadata.tableName)}` } : null;
  perDs.set(entity, shape);
  return shape;
}

/** Rows of `entity` matching `where` in `order`, or null when the shape needs the repository. */
export async function leanFind<T extends ObjectLiteral>(
  ds: DataSource,
  entity: EntityTarget<T>,
  where: Record<string, unknown>,
  order: Record<string, 'ASC' | 'DESC'> = {},
): Promise<T[] | null> {
  const shape = shapeOf(ds, entity);
  if (!shape) return null;
  const { metadata, columns } = shape;
  const esc = (n: string) => ds.driver.escape(n);
  const conds: string[] = [];
  const params: unknown[] = [];
  for (const [prop, value] of Object.entries(where)) {
    const col = metadata.findColumnWithPropertyName(prop);
    if (!col) return null;
    const name = esc(col.databaseName);
    if (value instanceof FindOperator) {
      if (value.type !== 'in' || !Array.isArray(value.value)) return null;
      const list = value.value as unknown[];
      if (!list.length) {
        conds.push('1 = 0');
        continue;
      }
      conds.push(`${name} IN (${list.map(() => '?').join(', ')})`);
      for (const v of list) params.push(ds.driver.preparePersistentValue(v, col));
    } else if (value === null) {
      conds.push(`${name} IS NULL`);
    } else if (value === undefined || (typeof value === 'object' && !(value instanceof Date))) {
      return null;
    } else {
      conds.push(`${name} = ?`);
      params.push(ds.driver.preparePersistentValue(value, col));
    }
  }
  const orderBy: string[] = [];
  for (const [prop, dir] of Object.entries(order)) {
    const col = metadata.findColumnWithPropertyName(prop);
    if (!col || (dir !== 'ASC' && dir !== 'DESC')) return null;
    orderBy.push(`${esc(col.databaseName)} ${dir}`);
  }
  const sql = `${shape.select}${conds.length ? ` WHERE ${conds.join(' AND ')}` : ''}${orderBy.length ? ` ORDER BY ${orderBy.join(', ')}` : ''}`;
  // better-sqlite3 binds no booleans; TypeORM's runner turns them into 0/1 as its own reads do.
  const rows: Record<string, unknown>[] = await ds.query(sql, params);
  const target = metadata.target as new () => T;
  return rows.map((row) => {
    const e = new target() as Record<string, unknown>;
    for (const c of columns) e[c.propertyName] = ds.driver.prepareHydratedValue(row[c.databaseName], c);
    return e as T;
  });
}
