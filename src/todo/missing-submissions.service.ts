import { ConnectionResult, pageWindow, toConnection } from '../common/relay';
import type { RequestContext } from '../request/context';
import type { PlannerOverride } from '../planner/planner-override.entity';
import { AssignmentService } from '../content/assignments/assignment.service';
import { orHidden } from '../common/visible';
import { isoAt, plannerItems } from './todo-reads';

export interface MissingSubmission {
  courseId: number;
  assignmentId: number;
  dueAt: Date | null;
  plannerOverride: PlannerOverride | null;
}

export interface MissingArgs {
  userId?: string | null;
  filter?: string[] | null;
  courseIds?: string[] | null;
  first?: number | null;
  after?: string | null;
}

/**
 * Canvas's users#missing_submissions: the user's past-due assignments with nothing turned in, from the
 * planner's submission statuses (its `missing`) over everything due until now. Whose list it is and who
 * may read it (the user, or an observer linked to them) is the planner's own rule. filter[]=submittable
 * leaves out locked assignments; current_grading_period keeps all (this service has no grading periods).
 */
export class MissingSubmissionsService {
  constructor(private readonly ctx: RequestContext) {}

  async list(args: MissingArgs): Promise<ConnectionResult<MissingSubmission>> {
    const now = Date.now();
    const items = await plannerItems(this.ctx, { userId: args.userId ?? null, endDate: isoAt(now) });
    const onlyCourses = args.courseIds?.length ? new Set(args.courseIds.map(Number)) : null;
    const submittable = (args.filter ?? []).includes('submittable');
    const seen = new Set<number>();
    const candidates = items.filter((item) => {
      const assignmentId = item.plannable.assignmentId;
      if (assignmentId == null || item.courseId == null || !item.submissions?.missing || seen.has(assignmentId)) return false;
      if (onlyCourses && !onlyCourses.has(item.courseId)) return false;
      seen.add(assignmentId);
      return true;
    });
    // Side by side, so the assignment loads batch.
    const open = await Promise.all(
      candidates.map(async (item) => {
        if (!submittable) return true;
        const a = (await orHidden(this.ctx.use(AssignmentService).find(item.courseId!, item.plannable.assignmentId!)))?.assignment;
        return a != null && !(a.lockAt && a.lockAt.getTime() < now) && !(a.unlockAt && a.unlockAt.getTime() > now);
      }),
    );
    const out: MissingSubmission[] = candidates
      .filter((_, i) => open[i])
      .map((item) => ({ courseId: item.courseId!, assignmentId: item.plannable.assignmentId!, dueAt: item.plannable.dueAt, plannerOverride: item.plannerOverride }));
    const w = pageWindow(args);
    return toConnection(out.slice(w.offset, w.offset + w.limit), out.length, w);
  }
}
