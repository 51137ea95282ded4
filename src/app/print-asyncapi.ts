import fs from 'node:fs';
import { asyncApiDocument } from '../event-catalog/asyncapi';
import { packageInfo } from '../common/package-info';
import { loadConfig } from '../config';
import { buildAppSchema } from './schema';

/** The AsyncAPI document /api/asyncapi.json serves, written to a file (or stdout) for tools and code generators. */
if (require.main === module) {
  const { name, version, description } = packageInfo();
  const doc = asyncApiDocument({ name, version, description, graphqlSchema: buildAppSchema(), delivery: loadConfig() });
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  const out = process.argv[2];
  if (out) fs.writeFileSync(out, text);
  else process.stdout.write(text);
}
