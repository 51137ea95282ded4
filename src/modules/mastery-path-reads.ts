import { In } from 'typeorm';
import type { Course } from '../courses/course.entity';
import type { RequestContext } from '../request/context';
import { loadStudentFacts } from './content-registry';
import { MasteryPathRule, MasteryPathSelection, ScoreRange } from './mastery-path.entity';
import type { ModuleItemView } from './module-views';

export interface MasteryPathInfo {
  locked: boolean;
  assignmentSets: { id: number; assignmentIds: number[] }[];
  selectedSetId: number | null;
  awaitingChoice: boolean;
  stillProcessing: boolean;
  modulesUrl: string;
  chooseUrl: string;
  modulesTabDisabled: boolean;
}

/**
 * What Mastery Paths withholds and shows, read per request: item lists, progress and sequences ask it,
 * and only MasteryPathService (rules and selections) changes what it answers.
 */
export class MasteryPathReads {
  constructor(private readonly ctx: RequestContext) {}

  /** Per request: assignments withheld from each student (cleared when a selection changes them). */
  private readonly withheld = new Map<string, Promise<Set<number>>>();

  /**
   * Assignments Mastery Paths holds back from a student, as Canvas's conditional release does: every
   * assignment of some rule's sets, except those released to the student (the set they chose, or the
   * only set of the range their trigger score falls in). Without a student (an observer's view) all
   * of them are withheld. Nothing when the course feature is off (no statements either).
   */
  withheldFor(course: Course, userId: number | null): Promise<Set<number>> {
    if (!course.masteryPathsEnabled) return Promise.resolve(new Set());
    const key = `${course.id}:${userId}`;
    let found = this.withheld.get(key);
    if (!found) {
      found = this.computeWithheld(course, userId);
      this.withheld.set(key, found);
    }
    return found;
  }

  private async computeWithheld(course: Course, userId: number | null): Promise<Set<number>> {
    const rules = await this.ctx.ds.getRepository(MasteryPathRule).findBy({ courseId: course.id });
    const conditional = new Set(rules.flatMap((r) => r.scoreRanges.flatMap((range) => range.assignmentSets.flatMap((set) => set.assignmentIds))));
    if (!conditional.size || userId == null) return conditional;
    const [selections, facts] = await Promise.all([
      this.ctx.ds.getRepository(MasteryPathSelection).findBy({ ruleId: In(rules.map((r) => r.id)), userId }),
      loadStudentFacts(this.ctx, course.id, [userId]),
    ]);
    const mine = facts.get(userId);
    for (const rule of rules) {
      const range = rangeOf(rule, mine?.byAssignment.get(rule.triggerAssignmentId));
      if (!range) continue;
      const chosen = selections.find((s) => s.ruleId === rule.id)?.assignmentSetId;
      const set = range.assignmentSets.find((x) => x.id === chosen) ?? (range.assignmentSets.length === 1 ? range.assignmentSets[0] : undefined);
      for (const id of set?.assignmentIds ?? []) conditional.delete(id);
    }
    return conditional;
  }

  /** A selection changed what is withheld: later reads of this request compute it again. */
  forgetWithheld(): void {
    this.withheld.clear();
  }

  /** The range a student's trigger score falls in ('pending' until graded, null when in no range). */
  async rangeFor(course: Course, rule: MasteryPathRule, userId: number): Promise<ScoreRange | null | 'pending'> {
    const facts = (await loadStudentFacts(this.ctx, course.id, [userId])).get(userId);
    const f = facts?.byAssignment.get(rule.triggerAssignmentId);
    if (!f || f.score == null) return 'pending';
    return rangeOf(rule, f);
  }

  /** The mastery_path object of a sequence node whose current item is a trigger assignment. */
  async pathInfo(course: Course, node: ModuleItemView): Promise<MasteryPathInfo | null> {
    if (node.item.contentType !== 'Assignment' || node.item.contentId == null) return null;
    const rule = await this.ctx.ds.getRepository(MasteryPathRule).findOneBy({ courseId: course.id, triggerAssignmentId: node.item.contentId });
    if (!rule) return null;
    const viewer = this.ctx.authz.requireViewer();
    const range = await this.rangeFor(course, rule, viewer.id);
    const selection = await this.ctx.ds.getRepository(MasteryPathSelection).findOneBy({ ruleId: rule.id, userId: viewer.id });
    const sets = range && range !== 'pending' ? range.assignmentSets : [];
    const selected = selection?.assignmentSetId ?? (sets.length === 1 ? sets[0].id : null);
    return {
      locked: range === 'pending',
      assignmentSets: sets,
      selectedSetId: selected,
      awaitingChoice: sets.length > 1 && selected == null,
      stillProcessing: false,
      modulesUrl: `${this.ctx.baseUrl}/courses/${course.id}/modules`,
      chooseUrl: `${this.ctx.baseUrl}/courses/${course.id}/modules/items/${node.item.id}/choose`,
      modulesTabDisabled: false,
    };
  }
}

/** The scoring range a trigger score falls in: percent of points possible, the top range including 100. */
function rangeOf(rule: MasteryPathRule, f: { score?: number | null; pointsPossible?: number | null } | undefined): ScoreRange | null {
  if (!f || f.score == null) return null;
  const points = f.pointsPossible ?? 0;
  const pct = points > 0 ? (f.score / points) * 100 : 0;
  return rule.scoreRanges.find((r) => pct >= r.lowerBound && (pct < r.upperBound || (r.upperBound >= 100 && pct >= 100))) ?? null;
}
