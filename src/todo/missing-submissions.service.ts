import { ConnectionResult, pageWindow } from '../common/relay';
import { offsetConnection } from '../common/connection';
import type { PlannerItemView } from '../planner/planner-item-view';
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

  /**
   * A page of the list: planner pages (in the planner's date order, which is the list's) are read only
   * until the page's entries and one more are found; the total, which needs them all, is counted only
   * when selected.
   */
  async list(args: MissingArgs): Promise<ConnectionResult<MissingSubmission>> {
    const w = pageWindow(args);
    const need = w.offset + w.limit + 1;
    const rows = (await this.read(args, need)).slice(w.offset, need);
    return offsetConnection(rows, w, async () => (await this.read(args)).length);
  }

  private async read(args: MissingArgs, need?: number): Promise<MissingSubmission[]> {
    const now = Date.now();
    const onlyCourses = args.courseIds?.length ? new Set(args.courseIds.map(Number)) : null;
    const submittable = (args.filter ?? []).includes('submittable');
    const entries = async (items: PlannerItemView[]): Promise<MissingSubmission[]> => {
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
      return candidates
        .filter((_, i) => open[i])
        .map((item) => ({ courseId: item.courseId!, assignmentId: item.plannable.assignmentId!, dueAt: item.plannable.dueAt, plannerOverride: item.plannerOverride }));
    };
    const items = await plannerItems(this.ctx, { userId: args.userId ?? null, endDate: isoAt(now) }, async (read) => need != null && (await entries(read)).length >= need);
    return entries(items);
  }
}
