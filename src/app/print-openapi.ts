import fs from 'node:fs';
import { openApiDocument } from '../rest/openapi';
import { packageInfo } from '../common/package-info';
import { restRoutes } from './routes';

/** The OpenAPI document /api/openapi.json serves, written to a file (or stdout) for linters and client generators. */
if (require.main === module) {
  const text = `${JSON.stringify(openApiDocument(restRoutes, { version: packageInfo().version }), null, 2)}\n`;
  const out = process.argv[2];
  if (out) fs.writeFileSync(out, text);
  else process.stdout.write(text);
}
