import { DataSource, EntityMetadata, EntityTarget, FindOperator, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { sqliteArrayRows } from './sqlite-rows';

/**
 * Lean reads for the per-request loaders, the hottest reads of every list page: one plain SELECT
 * through TypeORM's own connection (ds.query, so statements are still counted and pooled), its text
 * built once per shape, and rows turned into entities with the driver's own value conversion (dates,
 * booleans, column transformers) — without the query builder's per-call SQL assembly, alias rewriting
 * and result transformer, which cost more than the SQL on hot list paths. Entities come back as the
 * same classes with the same column values as repository.find would give.
 *
 * Supported: simple columns (no embedded or relation columns), where values that are plain values,
 * null or In([...]), and ascending/descending order by columns. Anything else answers null and the
 * caller falls back to the repository.
 */
interface Shape {
  metadata: EntityMetadata;
  columns: ColumnMetadata[];
  select: string;
  /** A row named by database column names as an entity (columns absent from the row stay unset). */
  hydrate: (row: Record<string, unknown>) => unknown;
  /** The same for rows as arrays (sqlite-rows.ts), one hydrator per result column list. */
  fromArrays: Map<string, (row: unknown[]) => unknown>;
  converters: (Convert | null)[];
  create: string;
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
  let shape: Shape | null = null;
  if (plain && !metadata.inheritancePattern) {
    const converters = columns.map((c) => converter(ds, c));
    const create = creation(metadata, columns);
    const select = `SELECT ${columns.map((c) => esc(c.databaseName)).join(', ')} FROM ${esc(metadata.tableName)}`;
    shape = { metadata, columns, select, converters, create, hydrate: compileHydrator(metadata, columns, converters, create), fromArrays: new Map() };
  }
  perDs.set(entity, shape);
  return shape;
}

type Convert = (value: unknown) => unknown;

function hydrateAll<T, R>(hydrate: (row: R) => unknown, rows: R[]): T[] {
  const out = new Array<T>(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = hydrate(rows[i]) as T;
  return out;
}

/** The rows of a lean SELECT as entities: as arrays where the driver hands them over so (SQLite). */
async function readEntities<T>(ds: DataSource, shape: Shape, sql: string, params: unknown[]): Promise<T[]> {
  const arrays = await sqliteArrayRows(ds, sql, params);
  if (!arrays) return hydrateAll<T, Record<string, unknown>>(shape.hydrate, await ds.query(sql, params));
  let hydrate = shape.fromArrays.get(arrays.columnsKey);
  if (!hydrate) {
    hydrate = compileArrayHydrator(shape, arrays.columns);
    shape.fromArrays.set(arrays.columnsKey, hydrate);
  }
  return hydrateAll<T, unknown[]>(hydrate, arrays.rows);
}

const digit = (s: string, i: number) => s.charCodeAt(i) - 48;

/**
 * SQLite keeps datetimes as 'YYYY-MM-DD HH:MM:SS[.mmm]' UTC text. TypeORM's hydration runs two
 * regexes, a replace and Date's string parser per value (about 400 ns); reading the digits is about
 * 90 ns, and a list of 1,000 module items holds 2,000 of them. Other shapes go to the driver.
 */
function sqliteDate(ds: DataSource, col: ColumnMetadata): Convert {
  return (v) => {
    if (typeof v === 'string' && (v.length === 19 || v.length === 23) && v.charCodeAt(4) === 45 && v.charCodeAt(10) === 32 && v.charCodeAt(13) === 58) {
      const ms = v.length === 23 ? digit(v, 20) * 100 + digit(v, 21) * 10 + digit(v, 22) : 0;
      const t = Date.UTC(
        digit(v, 0) * 1000 + digit(v, 1) * 100 + digit(v, 2) * 10 + digit(v, 3),
        digit(v, 5) * 10 + digit(v, 6) - 1,
        digit(v, 8) * 10 + digit(v, 9),
        digit(v, 11) * 10 + digit(v, 12),
        digit(v, 14) * 10 + digit(v, 15),
        digit(v, 17) * 10 + digit(v, 18),
        ms,
      );
      if (!Number.isNaN(t)) return new Date(t);
    }
    return ds.driver.prepareHydratedValue(v, col);
  };
}

/** Column types whose stored value is the entity's value as the driver hands it over. */
const AS_IS = new Set(['integer', 'int', 'varchar', 'text', 'float', 'double', 'real']);

/** How one column's stored value becomes the entity's: the driver's own conversion, specialised. */
function converter(ds: DataSource, col: ColumnMetadata): Convert | null {
  const generic: Convert = (v) => ds.driver.prepareHydratedValue(v, col);
  if (col.transformer) return generic;
  const type = typeof col.type === 'string' ? col.type : null;
  const sqlite = ds.driver.options.type === 'better-sqlite3';
  const mysql = ds.driver.options.type === 'mysql' || ds.driver.options.type === 'mariadb';
  if (!type || !(sqlite || mysql)) return generic;
  if (AS_IS.has(type)) return null;
  if (type === 'boolean' || type === 'bool') return (v) => (v == null ? v : Boolean(v));
  if (type === 'datetime') {
    // mysql2 (timezone 'Z') hands over Date objects already.
    if (mysql) return (v) => (typeof v === 'string' ? generic(v) : v);
    const date = sqliteDate(ds, col);
    return (v) => (v == null ? v : date(v));
  }
  return generic;
}

/**
 * How an entity starts. `new Target()` runs the class-field initialisers, which define every declared
 * property as undefined first (3% of a 1,000-item page). Where the constructor sets nothing but
 * undefined columns, starting from the prototype gives the same entity: every column is stored next,
 * in one order for every row.
 */
function creation(metadata: EntityMetadata, columns: ColumnMetadata[]): string {
  const target = metadata.target as new () => object;
  const columnProps = new Set(columns.map((c) => c.propertyName));
  const probe = new target() as Record<string, unknown>;
  const bare = Object.keys(probe).every((k) => probe[k] === undefined && columnProps.has(k));
  return bare ? 'Object.create(Target.prototype)' : 'new Target()';
}

/**
 * One generated function per entity (and, for arrays, per result column list): a fixed sequence of
 * property stores in the entity's column order (one hidden class for every row, the same entity from
 * either kind of row) instead of a loop that asks the driver to convert each value through its chain
 * of type tests. `source(i)` is where column i's value is read from the row, null when the result
 * lacks it.
 */
function generate(metadata: EntityMetadata, columns: ColumnMetadata[], converters: (Convert | null)[], create: string, source: (i: number) => string | null) {
  const lines = columns.flatMap((c, i) => {
    const from = source(i);
    if (from == null) return [];
    const to = `e[${JSON.stringify(c.propertyName)}]`;
    return [`v = ${from}; if (v !== undefined) ${to} = ${converters[i] ? `c[${i}](v)` : 'v'};`];
  });
  const body = `return function hydrate(row) { const e = ${create}; let v; ${lines.join(' ')} return e; };`;
  // Names come from the entity metadata (our own code), quoted with JSON.stringify: no input reaches this.
  return new Function('Target', 'c', body)(metadata.target, converters);
}

function compileHydrator(metadata: EntityMetadata, columns: ColumnMetadata[], converters: (Convert | null)[], create: string): (row: Record<string, unknown>) => unknown {
  return generate(metadata, columns, converters, create, (i) => `row[${JSON.stringify(columns[i].databaseName)}]`);
}

/** For rows as arrays: a column named twice takes its last value, as the driver's objects would. */
function compileArrayHydrator(shape: Shape, resultColumns: readonly string[]): (row: unknown[]) => unknown {
  const index = new Map<string, number>();
  resultColumns.forEach((name, i) => index.set(name, i));
  return generate(shape.metadata, shape.columns, shape.converters, shape.create, (i) => {
    const at = index.get(shape.columns[i].databaseName);
    return at === undefined ? null : `row[${at}]`;
  });
}

/**
 * Entities from rows of hand-written SQL whose result columns are the entity's database column names
 * (any subset of them: absent columns stay unset, so select only what the caller reads). Null when
 * the entity needs the repository (see leanFind).
 */
export async function leanRows<T extends ObjectLiteral>(ds: DataSource, entity: EntityTarget<T>, sql: string, params: unknown[]): Promise<T[] | null> {
  const shape = shapeOf(ds, entity);
  if (!shape) return null;
  return readEntities<T>(ds, shape, sql, params);
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
  const { metadata } = shape;
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
  // better-sqlite3 binds no booleans; TypeORM's runner (and sqlite-rows.ts) turn them into 0/1.
  return readEntities<T>(ds, shape, sql, params);
}

/**
 * Rows of `entity` matching `where` in `order`: the lean read where the shape allows it, else the
 * repository's find with the same where and order. What every caller of leanFind wants; leanFind
 * alone is for callers with a fallback of their own.
 */
export async function findRows<T extends ObjectLiteral>(
  ds: DataSource,
  entity: EntityTarget<T>,
  where: Record<string, unknown>,
  order: Record<string, 'ASC' | 'DESC'> = {},
): Promise<T[]> {
  return (await leanFind<T>(ds, entity, where, order)) ?? ds.getRepository<T>(entity).find({ where: where as never, order: order as never });
}

const selectLists = new WeakMap<DataSource, Map<unknown, Map<string, string>>>();

/**
 * The select list of hand-written SQL read through leanRows: the entity's columns as
 * `alias.column, …`, named as the database columns leanRows maps back — every column, or only the
 * properties given (the others stay unset on the entities, so list everything the caller reads).
 * Built once per data source, entity, alias and property list; an unknown property is a programming
 * error and throws.
 */
export function selectColumns(ds: DataSource, entity: EntityTarget<unknown>, alias: string, props?: readonly string[]): string {
  let perDs = selectLists.get(ds);
  if (!perDs) selectLists.set(ds, (perDs = new Map()));
  let perEntity = perDs.get(entity);
  if (!perEntity) perDs.set(entity, (perEntity = new Map()));
  const key = `${alias}|${props?.join(',') ?? '*'}`;
  let list = perEntity.get(key);
  if (!list) {
    const metadata = ds.getMetadata(entity);
    const columns = props
      ? props.map((p) => {
          const col = metadata.findColumnWithPropertyName(p);
          if (!col) throw new Error(`${metadata.name} has no column ${p}`);
          return col;
        })
      : metadata.columns.filter((c) => c.isSelect);
    list = columns.map((c) => `${alias}.${ds.driver.escape(c.databaseName)}`).join(', ');
    perEntity.set(key, list);
  }
  return list;
}
