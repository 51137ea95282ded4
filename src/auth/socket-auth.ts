import type { Runtime } from '../request/runtime';
import type { ToolProxy } from '../lti/tool-proxy.entity';
import { looksLikeJwt, verifyToolAccessToken } from '../lti/lti-tokens';
import type { User } from '../users/user.entity';
import type { AccessToken } from './access-token.entity';
import { authenticate, reauthenticate, type AuthResult } from './authenticate';

/**
 * Who a graphql-ws connection acts as. A socket can stay open for days, so what connection_init
 * proved is not trusted for the socket's life: `recheck()` re-reads the token and its user (or
 * re-verifies a tool's JWT and proxy) before every operation. Subscription events are not preceded
 * by a read: a write to the token or its user is announced to every instance (token-flush.ts), and
 * live-sockets.ts re-checks the sockets it names, on a timer and at the token's expiry. A token
 * deleted, regenerated or expired since, a deleted user or a deleted tool proxy ends the socket.
 */
export class SocketAuth {
  viewer: User | null = null;
  token: AccessToken | null = null;
  tool: ToolProxy | null = null;

  private constructor(
    private readonly app: Runtime,
    /** Only a tool's JWT is kept (it cannot be re-read by id); a user's token is re-read by its id. */
    private readonly toolJwt: string | null,
    /** The host the tool's JWT must name as its audience. */
    private readonly host: string,
  ) {}

  /** The connection's credentials checked once, or null when they are missing or bad. */
  static async connect(app: Runtime, bearer: string | null, host: string): Promise<SocketAuth | null> {
    if (bearer && looksLikeJwt(bearer)) {
      const auth = new SocketAuth(app, bearer, host);
      return (await auth.recheck()) ? auth : null;
    }
    const result = await authenticate(app.ds, app.tokenKey, bearer);
    if (result.kind !== 'ok') return null;
    const auth = new SocketAuth(app, null, host);
    auth.viewer = result.user;
    auth.token = result.token;
    return auth;
  }

  /** Whether the socket acts as an LTI tool (its JWT is re-verified one socket at a time, not in batches). */
  get isTool(): boolean {
    return this.toolJwt != null;
  }

  /** True while the credentials still hold; refreshes viewer/token/tool with what the database says now. */
  async recheck(): Promise<boolean> {
    if (this.toolJwt) {
      this.tool = await verifyToolAccessToken(this.app.ds, this.app.tokenKey, this.toolJwt, this.host);
      return this.tool != null;
    }
    if (!this.token) return false;
    return this.apply(await reauthenticate(this.app.ds, this.token));
  }

  /** Takes the other socket's reading of the same token (the same row, by hash and user) instead of its own. */
  share(other: SocketAuth): void {
    const mine = this.token;
    const theirs = other.token;
    if (!mine || !theirs || !other.viewer || this.toolJwt) return;
    if (mine.id !== theirs.id || mine.cryptedToken !== theirs.cryptedToken || mine.userId !== theirs.userId) return;
    this.token = theirs;
    this.viewer = other.viewer;
  }

  /** Takes a fresh reading of the token (from recheck or a batch re-verify); true while it holds. */
  apply(result: AuthResult): boolean {
    if (result.kind !== 'ok') {
      this.viewer = null;
      this.token = null;
      return false;
    }
    this.viewer = result.user;
    this.token = result.token;
    return true;
  }
}
