import type { DataSource, EntityTarget } from 'typeorm';

const lists = new WeakMap<DataSource, Map<unknown, Map<string, string>>>();

/**
 * The select list of hand-written SQL read through leanRows (issue 11): the entity's columns as
 * `alias.column, …`, named as the database columns leanRows maps back — every column, or only the
 * properties given (the others stay unset on the entities, so list everything the caller reads).
 * Built once per data source, entity, alias and property list; an unknown property is a programming
 * error and throws.
 */
export function selectColumns(ds: DataSource, entity: EntityTarget<unknown>, alias: string, props?: readonly string[]): string {
  let perDs = lists.get(ds);
  if (!perDs) lists.set(ds, (perDs = new Map()));
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
