import DataLoader from 'dataloader';
import { In } from 'typeorm';
import { Account } from '../accounts/account.entity';
import { ForbiddenError, NotFoundError, ValidationError, Validator } from '../common/errors';
import { Course } from '../courses/course.entity';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import { idArg, parseAnyId } from '../common/relay';
import { BLACKOUT_CONTEXT_TYPES, BlackoutContextType, BlackoutDate } from './blackout-date.entity';
import { CourseService } from '../courses/course.service';
import { AccountService } from '../accounts/account.service';

/** The course or account that owns blackout dates. */
export interface BlackoutContext {
  type: BlackoutContextType;
  id: number;
  rootAccountId: number;
  course?: Course;
}

export interface BlackoutFields {
  startDate?: string | null;
  endDate?: string | null;
  eventTitle?: string | null;
}

/** One element of the bulk replacement: with an id it updates that date, without one it creates a date. */
export interface BlackoutEntry extends BlackoutFields {
  id?: string | null;
}

/** What GET …/blackout_dates/new answers: a record initialised for the context, not stored. */
export interface UnsavedBlackoutDate {
  _id: null;
  contextType: BlackoutContextType;
  contextId: number;
  rootAccountId: null;
  startDate: null;
  endDate: null;
  eventTitle: null;
  createdAt: null;
  updatedAt: null;
}

export const EVENT_TITLE_MAX = 255;
/** Most entries one bulk replacement may carry: a bound on the work (and the transaction) of one request. */
export const BULK_MAX = 1000;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar day written `YYYY-MM-DD` (2024-02-30 is not one). */
export function isCalendarDay(s: string): boolean {
  const m = DAY.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

const LABEL: Record<keyof BlackoutFields, [string, string]> = {
  startDate: ['start_date', 'Start date'],
  endDate: ['end_date', 'End date'],
  eventTitle: ['event_title', 'Event title'],
};

/**
 * Canvas's BlackoutDate validations, with Canvas's full messages: all three fields present, the title at
 * most 255 characters, dates as `YYYY-MM-DD`, and the end not before the start (same day is fine).
 * `prefix` names the element of a bulk request (`blackout_dates[2]`).
 */
function validateFields(f: BlackoutFields, v: Validator, prefix = ''): void {
  const attr = (k: keyof BlackoutFields) => (prefix ? `${prefix}[${LABEL[k][0]}]` : LABEL[k][0]);
  const msg = (k: keyof BlackoutFields, rest: string) => `${prefix ? `${prefix}: ` : ''}${LABEL[k][1]} ${rest}`;
  for (const k of ['startDate', 'endDate'] as const) {
    const value = f[k];
    if (value == null || value.trim() === '') v.add(attr(k), 'blank', msg(k, "can't be blank"));
    else if (!isCalendarDay(value)) v.add(attr(k), 'invalid', msg(k, 'must be a date in YYYY-MM-DD format'));
  }
  if (f.eventTitle == null || f.eventTitle.trim() === '') v.add(attr('eventTitle'), 'blank', msg('eventTitle', "can't be blank"));
  else if (f.eventTitle.length > EVENT_TITLE_MAX) v.add(attr('eventTitle'), 'too_long', msg('eventTitle', `is too long (maximum is ${EVENT_TITLE_MAX} characters)`));
  if (f.startDate && f.endDate && isCalendarDay(f.startDate) && isCalendarDay(f.endDate) && f.endDate < f.startDate) {
    v.add(attr('endDate'), 'invalid', msg('endDate', "can't be before start date"));
  }
}

/** Merges given fields over a stored row: undefined keeps the stored value, null or '' clears it (and fails). */
function merged(row: BlackoutFields, given: BlackoutFields): Required<BlackoutFields> {
  const pick = (k: keyof BlackoutFields) => (given[k] === undefined ? row[k] ?? null : given[k]);
  return { startDate: pick('startDate'), endDate: pick('endDate'), eventTitle: pick('eventTitle') };
}

const ORDER = { startDate: 'ASC', id: 'ASC' } as const;

/**
 * Blackout dates of courses and accounts. Who may manage them: holders of course-pacing rights on the
 * course (teachers, designers, admins above it) or admins of the account. Who may read them: as Canvas,
 * those who may manage the course's content (a TA too); students and observers may not.
 */
export class BlackoutDateService {
  constructor(private readonly ctx: RequestContext) {}

  /** The context of a path (`Course` or `Account`, numeric, global or SIS id), without permission checks. */
  async context(type: string, raw: string | number): Promise<BlackoutContext> {
    if (!(BLACKOUT_CONTEXT_TYPES as readonly string[]).includes(type)) {
      throw ValidationError.of('context_type', 'inclusion', 'context_type must be Course or Account');
    }
    const id = idArg(raw, type);
    if (type === 'Course') {
      const course = await this.ctx.use(CourseService).lookup(id);
      return { type: 'Course', id: course.id, rootAccountId: course.rootAccountId, course };
    }
    const account = await this.ctx.use(AccountService).lookup(id);
    return { type: 'Account', id: account.id, rootAccountId: account.resolvedRootId };
  }

  private async loadContext(type: BlackoutContextType, id: number): Promise<BlackoutContext | null> {
    if (type === 'Course') {
      const course = await this.ctx.loaders.byId(Course).load(id);
      return course && course.workflowState !== 'deleted' ? { type, id, rootAccountId: course.rootAccountId, course } : null;
    }
    const account = await this.ctx.loaders.byId(Account).load(id);
    return account && account.workflowState !== 'deleted' ? { type, id, rootAccountId: account.resolvedRootId } : null;
  }

  /** Whether the viewer may read (`read`) or create, change and delete (`manage`) the context's dates. */
  async can(c: BlackoutContext, action: 'read' | 'manage'): Promise<boolean> {
    if (!this.ctx.viewer) return false;
    if (c.type === 'Account') return this.ctx.authz.isAccountAdmin(c.id);
    if (await this.ctx.authz.canCourse(c.course!, 'manage_course_pacing')) return true;
    return action === 'read' && this.ctx.authz.canCourse(c.course!, 'manage_content');
  }

  private async assert(c: BlackoutContext, action: 'read' | 'manage'): Promise<void> {
    this.ctx.authz.requireViewer();
    if (!(await this.can(c, action))) throw new ForbiddenError();
  }

  private async contextWith(type: string, raw: string | number, action: 'read' | 'manage'): Promise<BlackoutContext> {
    const c = await this.context(type, raw);
    await this.assert(c, action);
    return c;
  }

  /**
   * One date with the viewer's right on its context. With a context (REST paths) the date must belong
   * to it, else 404; the permission is checked first, so a refused caller learns nothing of ids.
   */
  private async withRight(rawId: string | number, action: 'read' | 'manage', where?: { type?: string | null; id?: string | null }): Promise<{ row: BlackoutDate; context: BlackoutContext }> {
    const id = parseAnyId(rawId, 'BlackoutDate');
    if (where?.type && where.id != null) {
      const context = await this.contextWith(where.type, where.id, action);
      const row = id == null ? null : await this.ctx.ds.getRepository(BlackoutDate).findOneBy({ id, contextType: context.type, contextId: context.id });
      if (!row) throw new NotFoundError();
      return { row, context };
    }
    const row = id == null ? null : await this.ctx.loaders.byId(BlackoutDate).load(id);
    const context = row ? await this.loadContext(row.contextType, row.contextId) : null;
    if (!row || !context) throw new NotFoundError();
    await this.assert(context, action);
    return { row, context };
  }

  // ---- reads ------------------------------------------------------------------------------------

  /** GET …/blackout_dates: every date of the context, by start date (Canvas answers them all, unpaginated). */
  async list(type: string, raw: string | number): Promise<BlackoutDate[]> {
    const c = await this.contextWith(type, raw, 'read');
    // Through a loader: a list of courses (or accounts) each asking for its dates costs one statement.
    return this.ctx.loaders.manyBy(BlackoutDate, 'contextId', { contextType: c.type }, ORDER).load(c.id);
  }

  async show(rawId: string | number, contextType?: string | null, contextId?: string | null): Promise<BlackoutDate> {
    return (await this.withRight(rawId, 'read', { type: contextType, id: contextId })).row;
  }

  /** GET …/blackout_dates/new: an unsaved record for the context (id and fields null). */
  async initial(type: string, raw: string | number): Promise<UnsavedBlackoutDate> {
    const c = await this.contextWith(type, raw, 'read');
    return { _id: null, contextType: c.type, contextId: c.id, rootAccountId: null, startDate: null, endDate: null, eventTitle: null, createdAt: null, updatedAt: null };
  }

  /**
   * A course's pacing view: its own dates and those of every account above it, by start date. Batched:
   * a list of courses costs a fixed number of statements.
   */
  async forCoursePacing(course: Course): Promise<BlackoutDate[]> {
    const c: BlackoutContext = { type: 'Course', id: course.id, rootAccountId: course.rootAccountId, course };
    await this.assert(c, 'read');
    return this.pacingLoader().load(course);
  }

  private pacingLoader(): DataLoader<Course, BlackoutDate[], number> {
    return this.ctx.loaders.get('blackoutDates:pacing', () =>
      new DataLoader<Course, BlackoutDate[], number>(
        async (courses) => {
          const chains = await Promise.all(courses.map((c) => this.ctx.authz.accountChain(c.accountId)));
          const accountIds = [...new Set(chains.flat().map((a) => a.id))];
          const qb = this.ctx.ds
            .getRepository(BlackoutDate)
            .createQueryBuilder('b')
            .where("(b.context_type = 'Course' AND b.context_id IN (:...courseIds))", { courseIds: courses.map((c) => c.id) });
          if (accountIds.length) qb.orWhere("(b.context_type = 'Account' AND b.context_id IN (:...accountIds))", { accountIds });
          const rows = await qb.orderBy('b.start_date', 'ASC').addOrderBy('b.id', 'ASC').getMany();
          return courses.map((course, i) => {
            const accounts = new Set(chains[i].map((a) => a.id));
            return rows.filter((r) => (r.contextType === 'Course' ? r.contextId === course.id : accounts.has(r.contextId)));
          });
        },
        { cacheKeyFn: (c) => c.id },
      ),
    );
  }

  // ---- writes -----------------------------------------------------------------------------------

  async create(type: string, raw: string | number, fields: BlackoutFields): Promise<{ blackoutDate: BlackoutDate }> {
    const c = await this.contextWith(type, raw, 'manage');
    const v = new Validator();
    validateFields(fields, v);
    v.throwIfInvalid();
    return transaction(this.ctx.ds, async (em) => {
      const repo = em.getRepository(BlackoutDate);
      const blackoutDate = await repo.save(
        repo.create({ contextType: c.type, contextId: c.id, rootAccountId: c.rootAccountId, startDate: fields.startDate!, endDate: fields.endDate!, eventTitle: fields.eventTitle! }),
      );
      return { blackoutDate };
    });
  }

  async update(rawId: string | number, fields: BlackoutFields, where?: { type?: string | null; id?: string | null }): Promise<{ blackoutDate: BlackoutDate }> {
    const { row } = await this.withRight(rawId, 'manage', where);
    const next = merged(row, fields);
    const v = new Validator();
    validateFields(next, v);
    v.throwIfInvalid();
    return transaction(this.ctx.ds, async (em) => {
      Object.assign(row, next);
      return { blackoutDate: await em.getRepository(BlackoutDate).save(row) };
    });
  }

  /** Deletes the date (Canvas deletes the row) and returns it as it was. */
  async delete(rawId: string | number, where?: { type?: string | null; id?: string | null }): Promise<{ blackoutDate: BlackoutDate }> {
    const { row } = await this.withRight(rawId, 'manage', where);
    return transaction(this.ctx.ds, async (em) => {
      await em.getRepository(BlackoutDate).delete({ id: row.id });
      return { blackoutDate: row };
    });
  }

  /**
   * Makes the context's dates equal the given list, as Canvas's bulk update: entries with an id update
   * that date, entries without one are created, stored dates missing from the list are deleted. Every
   * entry is checked before anything is written, and the writes are one transaction: one bad entry and
   * nothing changes. An id that is not a date of this context is 404, as in Canvas.
   */
  async replace(type: string, raw: string | number, entries: BlackoutEntry[]): Promise<{ blackoutDates: BlackoutDate[] }> {
    const c = await this.contextWith(type, raw, 'manage');
    if (entries.length > BULK_MAX) throw ValidationError.of('blackout_dates', 'too_long', `blackout_dates can hold at most ${BULK_MAX} entries`);
    return transaction(this.ctx.ds, async (em) => {
      const tx = em.getRepository(BlackoutDate);
      // Read inside the transaction (locking the context's range on MySQL) so a concurrent change cannot slip between check and write.
      const lock = this.ctx.ds.options.type === 'better-sqlite3' ? {} : { lock: { mode: 'pessimistic_write' as const } };
      const existing = new Map((await tx.find({ where: { contextType: c.type, contextId: c.id }, ...lock })).map((r) => [r.id, r]));
      const v = new Validator();
      const updates: { row: BlackoutDate; next: Required<BlackoutFields> }[] = [];
      const creates: Required<BlackoutFields>[] = [];
      const kept = new Set<number>();
      entries.forEach((entry, i) => {
        const prefix = `blackout_dates[${i}]`;
        if (entry.id != null && String(entry.id).trim() !== '') {
          const id = parseAnyId(entry.id, 'BlackoutDate');
          const row = id == null ? undefined : existing.get(id);
          if (!row) throw new NotFoundError();
          if (kept.has(row.id)) v.add(`${prefix}[id]`, 'taken', `${prefix}: id ${row.id} appears more than once`);
          kept.add(row.id);
          const next = merged(row, entry);
          validateFields(next, v, prefix);
          updates.push({ row, next });
        } else {
          const next = merged({}, entry);
          validateFields(next, v, prefix);
          creates.push(next);
        }
      });
      // Nothing has been written yet; throwing also rolls the (empty) transaction back.
      v.throwIfInvalid();
      const gone = [...existing.keys()].filter((id) => !kept.has(id));
      if (gone.length) await tx.delete({ id: In(gone) });
      for (const { row, next } of updates) {
        if (row.startDate === next.startDate && row.endDate === next.endDate && row.eventTitle === next.eventTitle) continue;
        Object.assign(row, next);
        await tx.save(row);
      }
      if (creates.length) {
        await tx.save(creates.map((f) => tx.create({ contextType: c.type, contextId: c.id, rootAccountId: c.rootAccountId, startDate: f.startDate!, endDate: f.endDate!, eventTitle: f.eventTitle! })));
      }
      const blackoutDates = await tx.find({ where: { contextType: c.type, contextId: c.id }, order: ORDER });
      return { blackoutDates };
    });
  }
}
