import type { FastifyInstance } from 'fastify';
import { packageInfo } from '../common/package-info';
import { pageSecurityHeaders } from '../graphiql/graphiql.routes';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Static HTML: no script, no style, nothing from elsewhere. */
const LANDING_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function landingHtml(): string {
  const { name, version, description } = packageInfo();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(name)} ${escape(version)}</title>
</head>
<body>
<h1>${escape(name)}</h1>
<p>Version ${escape(version)}</p>
${description ? `<p>${escape(description)}</p>\n` : ''}<ul>
<li><a href="/graphql">GraphiQL</a>: explore and run GraphQL (paste an access token first)</li>
<li><a href="/api/openapi.json">OpenAPI document</a> of the Canvas REST API</li>
<li><a href="/api/asyncapi">Event catalog</a> (<a href="/api/asyncapi.json">AsyncAPI document</a>): webhook events and graphql-ws subscriptions</li>
<li><a href="/health/ready">Health</a> of the service and its dependencies</li>
</ul>
</body>
</html>
`;
}

/** GET / answers a small page naming the service and where to go, rather than a JSON 404. */
export function registerLandingPage(fastify: FastifyInstance): void {
  const html = landingHtml();
  fastify.get('/', async (_req, reply) => pageSecurityHeaders(reply, LANDING_CSP).type('text/html; charset=utf-8').send(html));
}
