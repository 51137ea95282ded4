import type { FastifyBaseLogger } from 'fastify';
import { createBaseContext, type RequestContext } from '../request/context';
import type { Runtime } from '../request/runtime';
import type { ToolProxy } from '../lti/tool-proxy.entity';
import type { User } from '../users/user.entity';
import type { AccessToken } from './access-token.entity';
import { Authz } from './authz';

// Who is asking is the auth area's part of the request kernel: declared here so src/request/ imports no area.
declare module '../request/context' {
  interface RequestContext {
    /** The user the request acts as (the masqueraded user when as_user_id is used). */
    viewer: User | null;
    /** The user who authenticated; differs from viewer while masquerading. */
    realUser: User | null;
    token: AccessToken | null;
    /** The LTI tool proxy a tool's JWT access token authenticated (viewer is then null). */
    tool: ToolProxy | null;
    authz: Authz;
  }
}

/** A request's context: the kernel's part plus who is asking. */
export function createContext(args: {
  app: Runtime;
  viewer: User | null;
  realUser?: User | null;
  token?: AccessToken | null;
  tool?: ToolProxy | null;
  baseUrl: string;
  log: FastifyBaseLogger;
}): RequestContext {
  const ctx = createBaseContext(args);
  ctx.viewer = args.viewer;
  ctx.realUser = args.realUser ?? args.viewer;
  ctx.token = args.token ?? null;
  ctx.tool = args.tool ?? null;
  ctx.authz = new Authz(args.app.ds, args.viewer, ctx.loaders);
  return ctx;
}
