import { raise } from '../events/domain-events';
import { randomUUID } from 'node:crypto';
import DataLoader from 'dataloader';
import { Brackets, EntityManager, In } from 'typeorm';
import { Account } from '../accounts/account.entity';
import { NotFoundError, RequestError, ForbiddenError, Validator } from '../common/errors';
import { parseIdParam } from '../common/ids';
import { sortableName } from '../common/names';
import { containsPattern } from '../common/like';
import type { Course } from '../courses/course.entity';
import { Enrollment } from '../courses/enrollment.entity';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import { ConnectionResult } from '../common/relay';
import { pagePerParent } from '../db/page-per-parent';
import { accountUserOrder } from './account-user-order';
import { Pseudonym } from './pseudonym.entity';
import { User } from './user.entity';
import { CourseService } from '../courses/course.service';
import { AccountService } from '../accounts/account.service';

export interface CreateUserInput {
  accountId: string;
  name?: string | null;
  shortName?: string | null;
  sortableName?: string | null;
  timeZone?: string | null;
  locale?: string | null;
  uniqueId?: string | null;
  sisUserId?: string | null;
  integrationId?: string | null;
  skipRegistration?: boolean | null;
}

export class UserService {
  constructor(private readonly ctx: RequestContext) {}

  private anyDeletedOnce?: Promise<boolean>;

  /**
   * Whether any user is deleted: one probe of the users (workflow_state) index, once per request. No
   * route of this service deletes a user; imported data may hold some.
   */
  anyDeleted(): Promise<boolean> {
    return (this.anyDeletedOnce ??= this.ctx.ds.query(`SELECT 1 AS x FROM users WHERE workflow_state = 'deleted' LIMIT 1`).then((rows: unknown[]) => rows.length > 0));
  }

  /**
   * A user by numeric id, `self`, `sis_user_id:` or `sis_login_id:`. Numeric ids and `self` are not
   * checked; a SIS id resolves only to a user the caller may see (canSee), else 404 as for no such
   * login, so no caller (anonymous included) can probe which logins exist by the answer it gets.
   */
  async lookup(raw: string | number): Promise<User> {
    const { user, bySis } = await this.resolve(raw);
    if (bySis && !(await this.canSeeQuietly(user))) throw new NotFoundError();
    return user;
  }

  /**
   * lookup without the SIS-id visibility check, for callers that already hold a right to reach any user
   * of the account by login (adding enrollments), where a refusal would tell nothing new.
   */
  async lookupAny(raw: string | number): Promise<User> {
    return (await this.resolve(raw)).user;
  }

  private async resolve(raw: string | number): Promise<{ user: User; bySis: boolean }> {
    const p = parseIdParam(raw, ['sis_user_id', 'sis_login_id'], true);
    let user: User | null = null;
    if (p.kind === 'self') user = this.ctx.authz.requireViewer();
    else if (p.kind === 'id') user = await this.ctx.loaders.byId(User).load(p.id);
    else {
      const login = await this.ctx.ds.getRepository(Pseudonym).findOneBy(
        p.prefix === 'sis_user_id' ? { sisUserId: p.value } : { uniqueIdNormalized: p.value.toLowerCase() },
      );
      user = login ? await this.ctx.loaders.byId(User).load(login.userId) : null;
    }
    if (!user || user.workflowState === 'deleted') throw new NotFoundError();
    return { user, bySis: p.kind === 'prefixed' };
  }

  /**
   * A user the viewer may see: themself, users of accounts they administer, people in their courses.
   * One they may not see is 403 by numeric id (Canvas's answer) but 404 by SIS id (see lookup).
   */
  async find(raw: string | number): Promise<User> {
    const { user, bySis } = await this.resolve(raw);
    if (bySis) {
      if (!(await this.canSeeQuietly(user))) throw new NotFoundError();
    } else if (!(await this.canSee(user))) throw new ForbiddenError();
    return user;
  }

  /** canSee for a caller who may be anonymous (who sees nobody). */
  private async canSeeQuietly(user: User): Promise<boolean> {
    return this.ctx.viewer != null && this.canSee(user);
  }

  async canSee(user: User): Promise<boolean> {
    const viewer = this.ctx.authz.requireViewer();
    if (viewer.id === user.id) return true;
    if (await this.canAdminister(user)) return true;
    return (await this.observes(user)) || this.sharesRosterWith(user);
  }

  /** An observer sees the students they observe (a live observer enrollment linked to them). */
  private async observes(user: User): Promise<boolean> {
    const viewer = this.ctx.viewer;
    if (!viewer) return false;
    const links = await this.ctx.loaders.manyBy(Enrollment, 'userId', { type: 'ObserverEnrollment', workflowState: In(['active', 'invited']) }).load(viewer.id);
    return links.some((e) => e.associatedUserId === user.id);
  }

  /** Admins of an account where the user has a login administer the user. */
  async canAdminister(user: User): Promise<boolean> {
    const logins = await this.loginsLoader().load(user.id);
    for (const l of logins) if (await this.ctx.authz.isAccountAdmin(l.accountId)) return true;
    return (await this.ctx.authz.isSiteAdmin()) === true;
  }

  /**
   * Whether the viewer may read the roster entry of one of the user's enrollments: the course's roster
   * right and, for a section-limited viewer, the enrollment's section (Authz.canReadRosterEntry).
   */
  private async sharesRosterWith(user: User): Promise<boolean> {
    const theirs = await this.ctx.loaders
      .manyBy(Enrollment, 'userId', { workflowState: In(['active', 'invited', 'creation_pending', 'completed', 'inactive']) })
      .load(user.id);
    const courses = new Map<number, Course>();
    for (const c of await this.ctx.use(CourseService).loadMany([...new Set(theirs.map((e) => e.courseId))])) if (c) courses.set(c.id, c);
    for (const e of theirs) {
      const c = courses.get(e.courseId);
      if (c && (await this.ctx.authz.canReadRosterEntry(c, e.courseSectionId))) return true;
    }
    return false;
  }

  loginsLoader(): DataLoader<number, Pseudonym[]> {
    return this.ctx.loaders.manyBy(Pseudonym, 'userId', { workflowState: 'active' });
  }

  /** The user's login in the domain root account (first login otherwise). */
  async primaryLogin(user: User): Promise<Pseudonym | null> {
    const logins = await this.loginsLoader().load(user.id);
    return logins[0] ?? null;
  }

  async create(input: CreateUserInput): Promise<{ user: User; login: Pseudonym }> {
    const account = await this.ctx.use(AccountService).lookup(input.accountId);
    await this.ctx.authz.assertAccountAdmin(account.id);
    const rootId = account.resolvedRootId;
    const uniqueId = (input.uniqueId ?? '').trim();
    const v = new Validator();
    v.check(uniqueId.length > 0, 'unique_id', 'blank', "can't be blank");
    v.check(uniqueId.length <= 100, 'unique_id', 'too_long', 'is too long (maximum is 100 characters)');
    const name = (input.name ?? '').trim() || uniqueId;
    v.check(name.length <= 255, 'name', 'too_long', 'is too long (maximum is 255 characters)');
    const pseudonyms = this.ctx.ds.getRepository(Pseudonym);
    if (uniqueId && (await pseudonyms.findOneBy({ accountId: rootId, uniqueIdNormalized: uniqueId.toLowerCase() }))) {
      v.add('unique_id', 'taken', 'ID already in use for this account and authentication provider');
    }
    if (input.sisUserId && (await pseudonyms.findOneBy({ accountId: rootId, sisUserId: input.sisUserId }))) {
      v.add('sis_user_id', 'taken', `SIS ID "${input.sisUserId}" is already in use`);
    }
    v.throwIfInvalid();
    return transaction(this.ctx.ds, async (em) => {
      const created = await UserService.insert(em, {
        accountId: rootId,
        name,
        shortName: input.shortName?.trim() || name,
        sortableName: input.sortableName?.trim() || sortableName(name),
        uniqueId,
        timeZone: input.timeZone ?? null,
        locale: input.locale ?? null,
        sisUserId: input.sisUserId ?? null,
        integrationId: input.integrationId ?? null,
        workflowState: input.skipRegistration ? 'registered' : 'pre_registered',
      });
      // Group invitations sent to this address before the user existed now wait as invited memberships.
      await raise(em, this.ctx, { type: 'user.created', userId: created.user.id, login: uniqueId });
      return created;
    });
  }

  static async insert(
    em: EntityManager,
    a: {
      accountId: number;
      name: string;
      shortName?: string;
      sortableName?: string;
      uniqueId: string;
      timeZone?: string | null;
      locale?: string | null;
      sisUserId?: string | null;
      integrationId?: string | null;
      workflowState?: string;
    },
  ): Promise<{ user: User; login: Pseudonym }> {
    const users = em.getRepository(User);
    const user = await users.save(
      users.create({
        name: a.name,
        shortName: a.shortName ?? a.name,
        sortableName: a.sortableName ?? sortableName(a.name),
        uuid: randomUUID().replace(/-/g, ''),
        workflowState: a.workflowState ?? 'registered',
        timeZone: a.timeZone ?? null,
        locale: a.locale ?? null,
        avatarImageUrl: null,
      }),
    );
    const logins = em.getRepository(Pseudonym);
    const login = await logins.save(
      logins.create({
        userId: user.id,
        accountId: a.accountId,
        uniqueId: a.uniqueId,
        uniqueIdNormalized: a.uniqueId.toLowerCase(),
        sortableName: user.sortableName,
        sisUserId: a.sisUserId ?? null,
        integrationId: a.integrationId ?? null,
        workflowState: 'active',
      }),
    );
    return { user, login };
  }

  /**
   * Users with a login in the account's root account, by sortable name then id (Canvas's order), in
   * key set pages read from the logins' (account, sortable name, user) index: each login carries its
   * user's sortable name, and a user's several logins are one row (GROUP BY the key, which walks the
   * index; DISTINCT made the engines collect every user of the account in a temporary table first).
   * The total is counted only when asked.
   */
  async listInAccount(accountRaw: string, args: { first?: number | null; after?: string | null; searchTerm?: string | null; sort?: string | null; order?: string | null }): Promise<ConnectionResult<User>> {
    const account = await this.ctx.use(AccountService).lookup(accountRaw);
    await this.ctx.authz.assertAccountAdmin(account.id);
    const term = args.searchTerm?.trim();
    if (term != null && term.length > 0 && term.length < 2) {
      throw new RequestError('search_term too short', 400, {
        errors: [{ field: 'search_term', code: 'invalid', message: '2 or more characters is required' }],
      });
    }
    const qb = this.ctx.ds
      .getRepository(User)
      .createQueryBuilder('u')
      // `+ 0`: the page is read from the account's logins in their index order. Joined as a plain
      // equality, both engines carry a bookmark's `p.user_id < ?` over to `u.id` and could read every
      // user of every account below it, then group them in a temporary table.
      .innerJoin(Pseudonym, 'p', 'u.id = p.user_id + 0 AND p.workflow_state = :active', { active: 'active' })
      .where('u.workflow_state != :deleted', { deleted: 'deleted' });
    if (term) {
      const like = containsPattern(term);
      qb.andWhere(
        new Brackets((b) =>
          b
            .where("LOWER(u.name) LIKE :like ESCAPE '!'", { like })
            .orWhere("p.unique_id_normalized LIKE :like ESCAPE '!'", { like })
            .orWhere("LOWER(p.sis_user_id) LIKE :like ESCAPE '!'", { like }),
        ),
      );
    }
    const p = (c: string) => ({ expression: `${qb.escape('p')}.${qb.escape(c)}` });
    const order = accountUserOrder(p, args.sort, args.order);
    const root = account.resolvedRootId;
    const pages = await pagePerParent(qb, p('account_id'), order, [root], args, { id: p('user_id'), distinct: true });
    return pages.get(root)!;
  }

  /** Whether the viewer may see SIS and login details of this user (admins of their account). */
  async canSeeLoginDetails(user: User): Promise<boolean> {
    const viewer = this.ctx.viewer;
    if (!viewer) return false;
    return viewer.id === user.id || this.canAdminister(user);
  }

  rootAccountOf(login: Pseudonym): Promise<Account | null> {
    return this.ctx.loaders.byId(Account).load(login.accountId);
  }
}
