import type { FastifyInstance } from 'fastify';
import { pageSecurityHeaders } from '../graphiql/graphiql.routes';
import { asyncApiDocument, CatalogOptions } from './asyncapi';
import { catalogHtml, CATALOG_CSP } from './catalog.page';

/**
 * GET /api/asyncapi.json (the AsyncAPI 3.0 document) and GET /api/asyncapi (the same as a page), both
 * public like /api/openapi.json: they describe what subscribers receive, nothing of anyone's data.
 * Built once, on first request.
 */
export function registerEventCatalog(fastify: FastifyInstance, options: () => CatalogOptions): void {
  let doc: Record<string, unknown> | undefined;
  let html: string | undefined;
  const document = () => (doc ??= asyncApiDocument(options()));
  fastify.get('/api/asyncapi.json', async (_req, reply) => reply.type('application/json; charset=utf-8').send(document()));
  fastify.get('/api/asyncapi', async (_req, reply) => {
    html ??= catalogHtml(document());
    return pageSecurityHeaders(reply, CATALOG_CSP).type('text/html; charset=utf-8').send(html);
  });
}
