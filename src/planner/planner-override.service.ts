import type { DomainEventHandler } from '../events/domain-events';
import { EntityManager, In } from 'typeorm';
import { NotFoundError, ValidationError } from '../common/errors';
import { numericId } from '../common/ids';
import { Course } from '../courses/course.entity';
import { Assignment } from '../content/assignments/assignment.entity';
import { Quiz } from '../content/quizzes/quiz.entity';
import { nowToSecond } from '../db/columns';
import { transaction } from '../db/transaction';
import { DiscussionTopic } from '../discussions/discussion-topic.entity';
import type { RequestContext } from '../request/context';
import { idArg, ConnectionResult } from '../common/relay';
import { keyWindow, SortKey } from '../common/keyset';
import { keysetPage } from '../db/keyset-page';
import { ModuleItem } from '../modules/module-item.entity';
import { publishOverrideChange } from './planner-events';
import { PlannerOverride } from './planner-override.entity';
import { WikiPage } from '../content/pages/page.entity';
import { PlannerNote } from './planner-note.entity';
import { assignmentRef, locatePlannable, noteRef, pageRef, PLANNABLE_TYPES, PlannableRef, quizRef, topicRef, unknownType } from './plannables';
import { ProgressService } from '../modules/progress.service';

export interface CreateOverrideInput {
  plannableType?: string | null;
  plannableId?: string | null;
  markedComplete?: boolean | null;
  dismissed?: boolean | null;
}

export interface UpdateOverrideInput {
  id: string;
  markedComplete?: boolean | null;
  dismissed?: boolean | null;
}

/** By id: the order of a user's overrides list and its cursors' keys. */
const OVERRIDE_ORDER: SortKey[] = [{ expr: 'o.id', dir: 'ASC' }];

export const overrideIdArg = (raw: string | number): number => numericId(idArg(raw, 'PlannerOverride'));

/** Module item content types behind each plannable kind (for the must_mark_done link). */
function contentKeys(ref: { type: string; id: number; assignmentId: number | null }): [ModuleItem['contentType'], number][] {
  const withAssignment = (k: [ModuleItem['contentType'], number][]) => (ref.assignmentId != null ? [...k, ['Assignment', ref.assignmentId] as [ModuleItem['contentType'], number]] : k);
  switch (ref.type) {
    case 'assignment':
      return [['Assignment', ref.id]];
    case 'quiz':
      return withAssignment([['Quiz', ref.id]]);
    case 'discussion_topic':
    case 'announcement':
      return withAssignment([['Discussion', ref.id]]);
    case 'wiki_page':
      return [['Page', ref.id]];
    default:
      return [];
  }
}

/** The live module items with a must_mark_done requirement that link a plannable. */
async function markDoneItems(em: EntityManager, courseId: number, keys: [ModuleItem['contentType'], number][]): Promise<ModuleItem[]> {
  if (!keys.length) return [];
  const rows = await em.getRepository(ModuleItem).findBy({
    courseId,
    contentType: In([...new Set(keys.map((k) => k[0]))]),
    contentId: In(keys.map((k) => k[1])),
    workflowState: 'active',
    requirementType: 'must_mark_done',
  });
  return rows.filter((r) => keys.some(([t, id]) => r.contentType === t && r.contentId === id));
}

/**
 * Planner overrides: the caller's own rows only (another user's id is 404). Marking a plannable
 * complete marks its module item done when it is the content of exactly one must_mark_done item, and
 * marking it done in the module marks the override (Canvas's two-way link).
 */
export class PlannerOverrideService {
  constructor(private readonly ctx: RequestContext) {}

  /** GET /planner/overrides: the caller's active overrides, by id. */
  async list(args: { first?: number | null; after?: string | null }): Promise<ConnectionResult<PlannerOverride>> {
    const viewer = this.ctx.authz.requireViewer();
    // A key set page of the (user, state, id) index: first + 1 rows after the cursor however many
    // overrides the user has made, the total counted only when asked.
    return keysetPage(
      this.ctx.ds,
      { entity: PlannerOverride, alias: 'o', where: "o.user_id = ? AND o.workflow_state = 'active'", params: [viewer.id], order: OVERRIDE_ORDER, keyOf: (o) => [o.id] },
      keyWindow(args, OVERRIDE_ORDER.length),
    );
  }

  /** The caller's override in any state; another user's is 404. */
  async own(raw: string | number): Promise<PlannerOverride> {
    const viewer = this.ctx.authz.requireViewer();
    const row = await this.ctx.ds.getRepository(PlannerOverride).findOneBy({ id: overrideIdArg(raw), userId: viewer.id });
    if (!row) throw new NotFoundError();
    return row;
  }

  /** POST /planner/overrides → 201; a second override of the same plannable is Canvas's 400 "taken". */
  async create(input: CreateOverrideInput): Promise<{ plannerOverride: PlannerOverride }> {
    const viewer = this.ctx.authz.requireViewer();
    const type = input.plannableType?.trim() ?? '';
    if (!type) throw ValidationError.of('plannable_type', 'blank');
    if (!(PLANNABLE_TYPES as readonly string[]).includes(type)) throw unknownType('plannable_type', type, PLANNABLE_TYPES);
    if (input.plannableId == null || String(input.plannableId).trim() === '') throw ValidationError.of('plannable_id', 'blank');
    const ref = await locatePlannable(this.ctx, type, input.plannableId);
    const markedComplete = Boolean(input.markedComplete);
    return transaction(this.ctx.ds, async (em) => {
      const repo = em.getRepository(PlannerOverride);
      if (await repo.findOneBy({ userId: viewer.id, plannableType: ref.type, plannableId: ref.id })) throw ValidationError.of('plannable_id', 'taken');
      const row = await repo.save(
        repo.create({ userId: viewer.id, plannableType: ref.type, plannableId: ref.id, markedComplete, dismissed: Boolean(input.dismissed), workflowState: ref.state, deletedAt: null }),
      );
      await this.syncModuleDone(em, ref, viewer.id, markedComplete);
      publishOverrideChange(em, this.ctx, row, 'created', ref.courseId);
      return { plannerOverride: row };
    });
  }

  /** PUT /planner/overrides/:id: both flags are overwritten (absent means false); a deleted row comes back. */
  async update(input: UpdateOverrideInput): Promise<{ plannerOverride: PlannerOverride }> {
    const row = await this.own(input.id);
    const ref = await this.refOf(row);
    return transaction(this.ctx.ds, async (em) => {
      row.markedComplete = Boolean(input.markedComplete);
      row.dismissed = Boolean(input.dismissed);
      if (row.deletedAt) {
        row.deletedAt = null;
        row.workflowState = ref?.state ?? 'active';
      }
      const saved = await em.getRepository(PlannerOverride).save(row);
      if (ref) await this.syncModuleDone(em, ref, row.userId, saved.markedComplete);
      publishOverrideChange(em, this.ctx, saved, 'updated', ref?.courseId ?? null);
      return { plannerOverride: saved };
    });
  }

  /** DELETE /planner/overrides/:id: soft delete (workflow_state deleted, deleted_at set). */
  async delete(raw: string | number): Promise<{ plannerOverride: PlannerOverride }> {
    const row = await this.own(raw);
    if (row.deletedAt) return { plannerOverride: row };
    const ref = await this.refOf(row);
    return transaction(this.ctx.ds, async (em) => {
      row.workflowState = 'deleted';
      row.deletedAt = nowToSecond();
      const saved = await em.getRepository(PlannerOverride).save(row);
      publishOverrideChange(em, this.ctx, saved, 'deleted', ref?.courseId ?? null);
      return { plannerOverride: saved };
    });
  }

  /** The plannable behind a stored override (whatever its state), without visibility rules. */
  private async refOf(row: PlannerOverride): Promise<(PlannableRef & { assignmentId: number | null }) | null> {
    const refs = await plannableRefs(this.ctx.ds.manager, [row]);
    return refs.get(row.id) ?? null;
  }

  /** The assignment behind each override (Canvas's assignment_id), batched over a list. */
  async assignmentIds(rows: PlannerOverride[]): Promise<Map<number, number | null>> {
    const refs = await plannableRefs(this.ctx.ds.manager, rows);
    return new Map(rows.map((r) => [r.id, refs.get(r.id)?.assignmentId ?? null]));
  }

  /** Planner → module: marking complete marks the single must_mark_done item done (false undoes it). */
  private async syncModuleDone(em: EntityManager, ref: { type: string; id: number; assignmentId: number | null; courseId: number | null }, userId: number, done: boolean): Promise<void> {
    if (ref.courseId == null) return;
    const items = await markDoneItems(em, ref.courseId, contentKeys(ref));
    if (items.length !== 1) return;
    const course = await em.getRepository(Course).findOneBy({ id: ref.courseId });
    if (!course) return;
    if (done) await this.ctx.use(ProgressService).record(em, course, userId, items[0], 'must_mark_done');
    else await this.ctx.use(ProgressService).unrecord(em, course, userId, items[0]);
  }

  /**
   * Module → planner: PUT/DELETE of a module item's done mark sets the override of its content
   * (marked_complete and dismissed both follow), creating it when needed, when the item is a
   * must_mark_done requirement and the only one linking that content.
   */
  async syncFromModuleDone(em: EntityManager, courseId: number, item: { requirementType: string | null; contentType: ModuleItem['contentType']; contentId: number | null }, userId: number, done: boolean): Promise<void> {
    if (item.requirementType !== 'must_mark_done' || item.contentId == null) return;
    const ref = await contentPlannable(em, item.contentType, item.contentId);
    if (!ref) return;
    const items = await markDoneItems(em, courseId, contentKeys(ref));
    if (items.length !== 1) return;
    const repo = em.getRepository(PlannerOverride);
    const existing = await repo.findOneBy({ userId, plannableType: ref.type, plannableId: ref.id });
    const row = existing ?? repo.create({ userId, plannableType: ref.type, plannableId: ref.id, workflowState: ref.state, deletedAt: null });
    row.markedComplete = done;
    row.dismissed = done;
    if (row.deletedAt) {
      row.deletedAt = null;
      row.workflowState = ref.state;
    }
    const saved = await repo.save(row);
    publishOverrideChange(em, this.ctx, saved, existing ? 'updated' : 'created', ref.courseId);
  }
}

/** A module item's content as a plannable (an assignment that is a quiz or graded topic becomes that). */
async function contentPlannable(em: EntityManager, kind: ModuleItem['contentType'], id: number): Promise<PlannableRef | null> {
  const fake = { id: -1, userId: -1 } as unknown as PlannerOverride;
  const type = kind === 'Assignment' ? 'assignment' : kind === 'Quiz' ? 'quiz' : kind === 'Discussion' ? 'discussion_topic' : kind === 'Page' ? 'wiki_page' : null;
  if (!type) return null;
  const refs = await plannableRefs(em, [Object.assign(fake, { plannableType: type, plannableId: id })], true);
  return refs.get(-1) ?? null;
}

/**
 * The plannables behind override rows, batched (a handful of statements for any number of rows).
 * With `normalize`, an assignment behind a quiz or graded topic is reported as that quiz or topic.
 */
export async function plannableRefs(em: EntityManager, rows: Pick<PlannerOverride, 'id' | 'plannableType' | 'plannableId'>[], normalize = false): Promise<Map<number, PlannableRef>> {
  const ids = (...types: string[]) => [...new Set(rows.filter((r) => types.includes(r.plannableType)).map((r) => r.plannableId))];
  const [assignmentIds, quizIds, topicIds, pageIds, noteIds] = [ids('assignment'), ids('quiz'), ids('discussion_topic', 'announcement'), ids('wiki_page'), ids('planner_note')];
  const find = <T>(fn: () => Promise<T[]>, n: number) => (n ? fn() : Promise.resolve([] as T[]));
  const [assignments, quizzes, topics, pages, notes, backingQuizzes, backingTopics] = await Promise.all([
    find(() => em.getRepository(Assignment).findBy({ id: In(assignmentIds) }), assignmentIds.length),
    find(() => em.getRepository(Quiz).findBy({ id: In(quizIds) }), quizIds.length),
    find(() => em.getRepository(DiscussionTopic).findBy({ id: In(topicIds) }), topicIds.length),
    find(() => em.getRepository(WikiPage).findBy({ id: In(pageIds) }), pageIds.length),
    find(() => em.getRepository(PlannerNote).findBy({ id: In(noteIds) }), noteIds.length),
    find(() => em.getRepository(Quiz).findBy({ assignmentId: In(assignmentIds) }), normalize ? assignmentIds.length : 0),
    find(() => em.getRepository(DiscussionTopic).findBy({ assignmentId: In(assignmentIds) }), normalize ? assignmentIds.length : 0),
  ]);
  const out = new Map<number, PlannableRef>();
  for (const r of rows) {
    let ref: PlannableRef | null = null;
    switch (r.plannableType) {
      case 'assignment': {
        const a = assignments.find((x) => x.id === r.plannableId);
        if (a) {
          const q = backingQuizzes.find((x) => x.assignmentId === a.id && x.workflowState !== 'deleted') ?? null;
          const t = backingTopics.find((x) => x.assignmentId === a.id && x.workflowState !== 'deleted') ?? null;
          ref = assignmentRef(a, q, t);
        }
        break;
      }
      case 'quiz': {
        const q = quizzes.find((x) => x.id === r.plannableId);
        ref = q ? quizRef(q) : null;
        break;
      }
      case 'discussion_topic':
      case 'announcement': {
        const t = topics.find((x) => x.id === r.plannableId);
        ref = t ? topicRef(t) : null;
        break;
      }
      case 'wiki_page': {
        const p = pages.find((x) => x.id === r.plannableId);
        ref = p ? pageRef(p) : null;
        break;
      }
      case 'planner_note': {
        const n = notes.find((x) => x.id === r.plannableId);
        ref = n ? noteRef(n) : null;
        break;
      }
    }
    if (ref) out.set(r.id, ref);
  }
  return out;
}

/** A module item marked done (or not) by its student marks the content complete on their planner. */
export const plannerModuleDoneHandler: DomainEventHandler = async (em, ctx, event) => {
  if (event.type === 'module_item.done_changed') await ctx.use(PlannerOverrideService).syncFromModuleDone(em, event.courseId, event.item, event.userId, event.done);
};
