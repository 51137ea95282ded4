import type { RequestContext } from '../request/context';
import { PlannerItemsService, PlannerItemsArgs } from '../planner/planner-items.service';
import type { PlannerItemView } from '../planner/planner-item-view';

/** Planner pages read for one to-do answer at most: 10 pages of 100 items, far past what a to-do list shows. */
const MAX_PAGES = 10;
const PAGE = 100;

/**
 * The planner items these lists are made of, read through the planner's own list (its scope, override
 * and submission rules), so the to-do, upcoming and missing lists say what the planner says. Read a
 * planner page at a time, in the planner's date order, only until `enough` says the items read
 * answer the caller's page (so a first page reads one planner page whatever the length of the list),
 * and never past MAX_PAGES × PAGE items: the planner's window bounds these lists as Canvas's do.
 */
export async function plannerItems(ctx: RequestContext, args: PlannerItemsArgs, enough: (items: PlannerItemView[]) => boolean | Promise<boolean> = () => false): Promise<PlannerItemView[]> {
  const out: PlannerItemView[] = [];
  let after: string | null = null;
  for (let i = 0; i < MAX_PAGES; i++) {
    const page = await ctx.use(PlannerItemsService).list({ ...args, first: PAGE, after });
    out.push(...page.nodes);
    if (!page.pageInfo.hasNextPage || !page.pageInfo.endCursor || (await enough(out))) break;
    after = page.pageInfo.endCursor;
  }
  return out;
}

/** Whether an item stands for an assignment (an assignment, a graded quiz or a graded discussion). */
export const assignmentOf = (item: PlannerItemView): number | null => item.plannable.assignmentId;

export const isoAt = (ms: number) => new Date(ms).toISOString();
export const DAY = 86_400_000;
