import fs from 'node:fs';
import path from 'node:path';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { buildAppSchema } from './schema';

/** The SDL committed as schema.graphql: sorted so it only changes when the schema does. */
export function schemaSdl(): string {
  return `${printSchema(lexicographicSortSchema(buildAppSchema()))}\n`;
}

if (require.main === module) {
  const out = path.resolve(__dirname, '../../../schema.graphql');
  fs.writeFileSync(out, schemaSdl());
  console.log(`wrote ${out}`);
}
