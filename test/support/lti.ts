import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { Account } from '../../src/accounts/account.entity';
import { AccountService } from '../../src/accounts/account.service';
import { Api } from './api';
import type { TestServer } from './server';
import { World, WorldUser } from './world';

/** Helpers of the LTI test files: sub-accounts, tool proxies, signed assertions and tool clients. */

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const ALL = 'vnd.instructure.webhooks.root_account.all';
export const cap = (scope: 'root_account' | 'assignment', event: string) => `vnd.instructure.webhooks.${scope}.${event}`;

export interface Proxy {
  id: number;
  guid: string;
  shared_secret: string;
  [k: string]: unknown;
}

/** A sub-account (there is no REST route for accounts) with an admin of its own. */
export async function subAccount(server: TestServer, world: World, name: string, parentId = 1): Promise<{ account: Account; admin: WorldUser }> {
  const account = await server.app.ds.getRepository(Account).save(
    Object.assign(new Account(), { name, parentAccountId: parentId, rootAccountId: 1, workflowState: 'active', uuid: randomUUID(), defaultTimeZone: null, sisAccountId: null }),
  );
  const admin = await world.user(`${name} Admin`);
  await AccountService.addAdmin(server.app.ds.manager, account.id, admin.id);
  return { account, admin };
}

export async function courseIn(server: TestServer, accountId: number, name = 'Course'): Promise<{ id: number }> {
  const res = await server.admin.post(`/api/v1/accounts/${accountId}/courses`, { course: { name }, offer: 'true' });
  if (res.status !== 200) throw new Error(`create course: ${res.status} ${res.text}`);
  return res.body;
}

export async function assignmentIn(server: TestServer, courseId: number, name = 'Essay'): Promise<{ id: number }> {
  const res = await server.admin.post(`/api/v1/courses/${courseId}/assignments`, { assignment: { name, published: true } });
  if (res.status >= 300) throw new Error(`create assignment: ${res.status} ${res.text}`);
  return res.body;
}

/** Registers a tool proxy as the site admin (or `api`). */
export async function createProxy(
  server: TestServer,
  opts: { accountId?: number; capabilities?: string[]; contextType?: string; contextId?: number; name?: string; api?: Api } = {},
): Promise<Proxy> {
  const res = await (opts.api ?? server.admin).post(`/api/v1/accounts/${opts.accountId ?? 1}/tool_proxies`, {
    name: opts.name ?? 'Plagiarism checker',
    capabilities: opts.capabilities ?? [ALL],
    context_type: opts.contextType,
    context_id: opts.contextId,
  });
  if (res.status !== 200) throw new Error(`create tool proxy: ${res.status} ${res.text}`);
  return res.body;
}

const now = () => Math.floor(Date.now() / 1000);

/** A JWT-bearer assertion; `claims` override the defaults (undefined removes one). */
export async function assertion(
  secret: string,
  claims: Record<string, unknown>,
  opts: { alg?: 'HS256' | 'HS512' } = {},
): Promise<string> {
  const payload: Record<string, unknown> = { iat: now(), exp: now() + 50, jti: randomUUID(), ...claims };
  for (const k of Object.keys(payload)) if (payload[k] === undefined) delete payload[k];
  return new SignJWT(payload).setProtectedHeader({ alg: opts.alg ?? 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(secret));
}

export const authorizePath = (kind: 'accounts' | 'courses', id: number | string) => `/api/lti/${kind}/${id}/authorize`;

/** POSTs a grant; by default a fresh valid assertion for the proxy at that path. */
export async function authorizeRaw(server: TestServer, path: string, body: Record<string, unknown>, api?: Api) {
  return (api ?? server.as(null)).post(path, body);
}

/** A tool access token for the proxy, obtained through the account (or course) authorize endpoint. */
export async function toolToken(server: TestServer, proxy: Proxy, path = authorizePath('accounts', 1)): Promise<string> {
  const res = await authorizeRaw(server, path, {
    grant_type: JWT_BEARER,
    assertion: await assertion(proxy.shared_secret, { sub: proxy.guid, aud: `${server.url}${path}` }),
  });
  if (res.status !== 200) throw new Error(`authorize: ${res.status} ${res.text}`);
  return res.body.access_token;
}

export async function toolApi(server: TestServer, proxy: Proxy, path?: string): Promise<Api> {
  return server.as(await toolToken(server, proxy, path));
}
