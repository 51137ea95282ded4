import { ForbiddenError, NotFoundError, ValidationError, Validator } from '../common/errors';
import { Enrollment } from '../courses/enrollment.entity';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import { ConnectionResult, parseAnyId } from '../common/relay';
import { keyWindow, SortKey } from '../common/keyset';
import { keysetPage } from '../db/keyset-page';
import { filterUrl } from '../api/rest/request-meta';
import { ErrorReport, SEVERITIES, Severity } from './error-report.entity';
import { collectHttpEnv, scrubHttpEnv } from './http-env';
import { AccountService } from '../accounts/account.service';

export interface ErrorReportInput {
  subject?: string | null;
  comments?: string | null;
  email?: string | null;
  url?: string | null;
  /** A JSON object; absent or null: the service collects the request's environment itself. */
  httpEnv?: Record<string, unknown> | null;
  userPerceivedSeverity?: string | null;
  contextAssetString?: string | null;
}

/** Size limits, in characters; exceeding one is a 400 naming the field, and nothing is stored. */
export const ERROR_REPORT_LIMITS = {
  subject: 255,
  comments: 16_000,
  email: 255,
  url: 2048,
  context_asset_string: 255,
  /** Of the http_env object serialized as JSON. */
  http_env: 16_000,
} as const;

/** Canvas's asset strings: `course_1`, `user_5`, `wiki_page_3`. */
const ASSET_STRING = /^[a-z]+(?:_[a-z]+)*_\d+$/;

/** Newest first: the order of the reports list and its cursors' keys. */
const REPORT_ORDER: SortKey[] = [{ expr: 'r.id', dir: 'DESC' }];

const blank = (s: string | null | undefined) => s == null || s.trim() === '';
const orNull = (s: string | null | undefined) => (blank(s) ? null : s!);

function httpUrl(s: string | null | undefined): string | null {
  if (blank(s)) return null;
  try {
    const u = new URL(s!);
    return u.protocol === 'http:' || u.protocol === 'https:' ? filterUrl(u.toString()) : null;
  } catch {
    return null;
  }
}

/**
 * Problem reports from the help dialog. Anyone may file one (anonymous callers too, as in Canvas); only
 * site admins (admins of the root account) may list and read them.
 */
export class ErrorReportService {
  constructor(private readonly ctx: RequestContext) {}

  private validate(input: ErrorReportInput, httpEnvJson: string | null): void {
    const v = new Validator();
    const L = ERROR_REPORT_LIMITS;
    const tooLong = (attr: keyof typeof L, value: string | null | undefined) => {
      if (value != null && value.length > L[attr]) v.add(attr, 'too_long', `${attr} is too long (maximum is ${L[attr]} characters)`);
    };
    if (blank(input.subject)) v.add('subject', 'blank', "subject can't be blank");
    tooLong('subject', input.subject);
    tooLong('comments', input.comments);
    tooLong('email', input.email);
    tooLong('url', input.url);
    tooLong('context_asset_string', input.contextAssetString);
    if (httpEnvJson != null && httpEnvJson.length > L.http_env) v.add('http_env', 'too_long', `http_env is too long (maximum is ${L.http_env} characters as JSON)`);
    if (!blank(input.userPerceivedSeverity) && !(SEVERITIES as readonly string[]).includes(input.userPerceivedSeverity!)) {
      v.add('user_perceived_severity', 'inclusion', `user_perceived_severity must be one of ${SEVERITIES.join(', ')}`);
    }
    if (!blank(input.contextAssetString) && input.contextAssetString!.length <= L.context_asset_string && !ASSET_STRING.test(input.contextAssetString!)) {
      v.add('context_asset_string', 'invalid', 'context_asset_string must look like [type]_[id], e.g. course_1');
    }
    v.throwIfInvalid();
  }

  /**
   * Files a report. The reporter, their roles, the account, the user agent and the request id are the
   * server's to record; the page URL is kept when it is an http(s) URL (else the Referer), and
   * http_env is the client's (credentials scrubbed) or, when absent, collected from the request.
   */
  async create(input: ErrorReportInput): Promise<{ errorReport: ErrorReport }> {
    const clientEnv = input.httpEnv != null ? scrubHttpEnv(input.httpEnv) : null;
    const clientEnvJson = clientEnv != null ? JSON.stringify(clientEnv) : null;
    this.validate(input, clientEnvJson);
    const req = this.ctx.request;
    const httpEnv = clientEnvJson ?? (req ? JSON.stringify(collectHttpEnv(req)) : null);
    const viewer = this.ctx.viewer;
    const realUser = this.ctx.realUser;
    const [userRoles, accountId] = await Promise.all([viewer ? this.roles(viewer.id) : Promise.resolve(null), this.rootAccountId()]);
    const userAgent = req?.headers['user-agent'];
    return transaction(this.ctx.ds, async (em) => {
      const repo = em.getRepository(ErrorReport);
      const errorReport = await repo.save(
        repo.create({
          subject: input.subject!.trim(),
          comments: orNull(input.comments),
          email: orNull(input.email?.trim()),
          url: httpUrl(input.url) ?? httpUrl(req?.headers.referer),
          userPerceivedSeverity: (orNull(input.userPerceivedSeverity) as Severity | null) ?? null,
          contextAssetString: orNull(input.contextAssetString),
          userRoles,
          httpEnv,
          userAgent: userAgent ? userAgent.slice(0, 2048) : null,
          requestId: req?.id.slice(0, 64) ?? null,
          userId: viewer?.id ?? null,
          realUserId: realUser && viewer && realUser.id !== viewer.id ? realUser.id : null,
          accountId,
        }),
      );
      return { errorReport };
    });
  }

  /** Canvas's User#roles for the reporter: user, then student / teacher / observer by active enrollments, admin, root_admin. */
  private async roles(userId: number): Promise<string> {
    const [types, adminIds, siteAdmin] = await Promise.all([
      this.ctx.ds
        .getRepository(Enrollment)
        .createQueryBuilder('e')
        .select('DISTINCT e.type', 'type')
        .where('e.user_id = :userId AND e.workflow_state = :active', { userId, active: 'active' })
        .getRawMany<{ type: string }>()
        .then((rows) => new Set(rows.map((r) => r.type))),
      this.ctx.authz.adminAccountIds(),
      this.ctx.authz.isSiteAdmin(),
    ]);
    const roles = ['user'];
    if (types.has('StudentEnrollment')) roles.push('student');
    if (['TeacherEnrollment', 'TaEnrollment', 'DesignerEnrollment'].some((t) => types.has(t))) roles.push('teacher');
    if (types.has('ObserverEnrollment')) roles.push('observer');
    if (adminIds.size) roles.push('admin');
    if (siteAdmin) roles.push('root_admin');
    return roles.join(',');
  }

  private async rootAccountId(): Promise<number | null> {
    try {
      return (await this.ctx.use(AccountService).rootAccount()).id;
    } catch (e) {
      if (e instanceof NotFoundError) return null;
      throw e;
    }
  }

  private async assertSiteAdmin(): Promise<void> {
    this.ctx.authz.requireViewer();
    if (!(await this.ctx.authz.isSiteAdmin())) throw new ForbiddenError();
  }

  /** Reports newest first, optionally of one severity; site admins only. */
  async list(args: { severity?: string | null; first?: number | null; after?: string | null }): Promise<ConnectionResult<ErrorReport>> {
    await this.assertSiteAdmin();
    if (args.severity != null && !(SEVERITIES as readonly string[]).includes(args.severity)) {
      throw ValidationError.of('severity', 'inclusion', `severity must be one of ${SEVERITIES.join(', ')}`);
    }
    // Ids grow with time: id order is newest first without the ties of second-precision timestamps.
    // A key set page from the primary key (or the (severity, id) index): the newest first + 1 after the
    // cursor, never an OFFSET over every newer report; the total is counted only when asked.
    const severity = args.severity ?? null;
    return keysetPage(
      this.ctx.ds,
      {
        entity: ErrorReport,
        alias: 'r',
        where: severity == null ? '1 = 1' : 'r.user_perceived_severity = ?',
        params: severity == null ? [] : [severity],
        order: REPORT_ORDER,
        keyOf: (r) => [r.id],
      },
      keyWindow(args, REPORT_ORDER.length),
    );
  }

  /** One report by numeric or global id; site admins only. */
  async find(raw: string | number): Promise<ErrorReport> {
    await this.assertSiteAdmin();
    const id = parseAnyId(raw, 'ErrorReport');
    const row = id == null ? null : await this.ctx.loaders.byId(ErrorReport).load(id);
    if (!row) throw new NotFoundError();
    return row;
  }

  /** The stored http_env as an object (null when none or unreadable). */
  static httpEnvObject(report: ErrorReport): Record<string, unknown> | null {
    if (!report.httpEnv) return null;
    try {
      const v = JSON.parse(report.httpEnv);
      return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
    } catch {
      return null;
    }
  }
}
