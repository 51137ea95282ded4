import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NOT_FOUND_BODY } from '../api/rest/errors';
import { baseUrl } from '../api/rest/request-meta';
import { ASSET_PATH, BOOT_JS, graphiqlCsp, graphiqlHtml, PAGE_CSS, VENDOR_ASSETS } from './graphiql.page';

/** Headers every page and asset of ours carries. */
export function pageSecurityHeaders(reply: FastifyReply, csp: string): FastifyReply {
  return reply
    .header('Content-Security-Policy', csp)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('X-Frame-Options', 'DENY');
}

/** A browser asking for a page: Accept prefers HTML and no operation is given in the query string. */
function wantsGraphiql(req: FastifyRequest): boolean {
  if (req.method !== 'GET') return false;
  const accept = String(req.headers.accept ?? '');
  if (!accept.includes('text/html')) return false;
  const query = req.query as Record<string, unknown> | undefined;
  return !query || query.query === undefined;
}

/** Files read once, on first use; a missing package is a 404 rather than a crash. */
const cache = new Map<string, Buffer | null>();

function vendorFile(name: string): Buffer | null {
  if (cache.has(name)) return cache.get(name)!;
  const asset = VENDOR_ASSETS[name];
  let body: Buffer | null = null;
  if (asset) {
    try {
      // package.json is exported by each of these packages; their umd/ files are not, so resolve the folder.
      const dir = path.dirname(require.resolve(`${asset.pkg}/package.json`));
      body = fs.readFileSync(path.join(dir, asset.file));
    } catch {
      body = null;
    }
  }
  cache.set(name, body);
  return body;
}

/**
 * GraphiQL for browsers at GET /graphql (an onRequest hook of the /graphql route, so Apollo never sees
 * these requests; Apollo's own landing page, which loads its script from a CDN, is disabled) and its
 * assets under /graphiql/assets/.
 */
export function registerGraphiql(fastify: FastifyInstance, version: string) {
  const html = graphiqlHtml(version);
  const ownAssets: Record<string, { body: string; type: string }> = {
    'boot.js': { body: BOOT_JS, type: 'application/javascript; charset=utf-8' },
    'page.css': { body: PAGE_CSS, type: 'text/css; charset=utf-8' },
  };

  fastify.get<{ Params: { name: string } }>(`${ASSET_PATH}/:name`, async (req, reply) => {
    const name = req.params.name;
    const own = Object.hasOwn(ownAssets, name) ? ownAssets[name] : undefined;
    const body = own ? own.body : Object.hasOwn(VENDOR_ASSETS, name) ? vendorFile(name) : null;
    if (body == null) return reply.code(404).type('application/json; charset=utf-8').send(NOT_FOUND_BODY);
    // Asset URLs carry the service version, so a browser may keep them for a day.
    reply.header('Cache-Control', 'public, max-age=86400').header('X-Content-Type-Options', 'nosniff').header('Cross-Origin-Resource-Policy', 'same-origin');
    return reply.type(own ? own.type : VENDOR_ASSETS[name].type).send(body);
  });

  /** The /graphql route's onRequest hook: answers browsers with the page, leaves everything else to Apollo. */
  return async function graphiqlForBrowsers(req: FastifyRequest, reply: FastifyReply) {
    if (!wantsGraphiql(req)) return;
    const host = new URL(baseUrl(req)).host;
    pageSecurityHeaders(reply, graphiqlCsp(host)).header('Cache-Control', 'no-store');
    return reply.code(200).type('text/html; charset=utf-8').send(html);
  };
}
