/**
 * The module progression rules, pure: given a module, the items a student can see, what the student
 * has done and what they were at before, it says where the student stands. No I/O here, so every
 * rule is unit-tested directly (test/unit/progression-evaluator.test.ts).
 */

export type ModuleState = 'locked' | 'unlocked' | 'started' | 'completed';
export type RequirementType = 'must_view' | 'must_submit' | 'must_contribute' | 'min_score' | 'min_percentage' | 'must_mark_done';
export const REQUIREMENT_TYPES: RequirementType[] = ['must_view', 'must_submit', 'must_contribute', 'min_score', 'min_percentage', 'must_mark_done'];

export interface Requirement {
  type: RequirementType;
  minScore?: number | null;
  minPercentage?: number | null;
}

export interface EvalModule {
  id: number;
  unlockAt: Date | null;
  requireSequentialProgress: boolean;
  /** 'one': any one requirement completes the module. */
  requirementType: 'all' | 'one';
  /** Prerequisite module ids that still count (published, lower position, not deleted). */
  prerequisiteIds: number[];
}

export interface EvalItem {
  id: number;
  position: number;
  requirement: Requirement | null;
}

/** What the student has done for an item's content. */
export interface ItemFacts {
  /** A submission (or quiz submission) the student made: submitted, graded after an attempt, complete or pending review. */
  submitted?: boolean;
  /** The score that counts (a quiz's kept score), when it is posted; null when not graded. */
  score?: number | null;
  /** A graded attempt exists but its grade is not posted yet: counts as started, not as met. */
  scorePending?: boolean;
  pointsPossible?: number | null;
  excused?: boolean;
}

export interface MetRequirement {
  id: number;
  type: RequirementType;
}

export interface PreviousProgression {
  state: ModuleState;
  /** Recorded actions (views, contributions, done marks) and requirements met earlier. */
  requirementsMet: MetRequirement[];
  completedAt: Date | null;
}

export interface EvalInput {
  module: EvalModule;
  /** Items the student can see, in module order. */
  items: EvalItem[];
  facts: Map<number, ItemFacts>;
  previous: PreviousProgression | null;
  /** States of the prerequisite modules for this student. */
  prerequisiteStates: Map<number, ModuleState>;
  now: Date;
}

export interface EvalResult {
  state: ModuleState;
  requirementsMet: MetRequirement[];
  completedAt: Date | null;
  /** Sequential modules: position of the first item whose requirement is not met (null when none). */
  currentPosition: number | null;
  /** Sequential modules: items the student cannot open yet. */
  lockedItemIds: number[];
}

const TOLERANCE = 1e-6;

/** Score thresholds are checked against the current score every time: a lowered grade un-meets them. */
const SCORED: ReadonlySet<RequirementType> = new Set(['min_score', 'min_percentage']);

/** Whether a requirement is met now, given recorded actions and the content facts. */
export function requirementMet(item: EvalItem, req: Requirement, facts: ItemFacts | undefined, recorded: MetRequirement[]): boolean {
  if (!SCORED.has(req.type) && recorded.some((m) => m.id === item.id && m.type === req.type)) return true;
  if (facts?.excused) return true;
  switch (req.type) {
    case 'must_view':
      // A contribution or any earlier action on the item implies it was seen (scores are not actions).
      return recorded.some((m) => m.id === item.id && !SCORED.has(m.type));
    case 'must_contribute':
    case 'must_mark_done':
      return false;
    case 'must_submit':
      return Boolean(facts?.submitted);
    case 'min_score':
      return facts?.score != null && req.minScore != null && facts.score + TOLERANCE >= req.minScore;
    case 'min_percentage': {
      if (facts?.score == null || req.minPercentage == null || !facts.pointsPossible) return false;
      return (facts.score / facts.pointsPossible) * 100 + TOLERANCE >= req.minPercentage;
    }
  }
}

export function evaluate(input: EvalInput): EvalResult {
  const { module, items, facts, previous, now } = input;
  const recorded = previous?.requirementsMet ?? [];

  // 1. Lock: a future unlock_at always locks. Prerequisites are checked only while locked, so a
  //    student past the module is not locked out by prerequisites or requirements added later.
  const wasLocked = previous == null || previous.state === 'locked';
  const waiting = module.unlockAt != null && module.unlockAt.getTime() > now.getTime();
  const prerequisitesDone = module.prerequisiteIds.every((id) => input.prerequisiteStates.get(id) === 'completed');
  if (waiting || (wasLocked && !prerequisitesDone)) {
    return { state: 'locked', requirementsMet: recorded, completedAt: null, currentPosition: null, lockedItemIds: items.map((i) => i.id) };
  }

  // 2. Requirements over the visible items.
  const withReq = items.filter((i) => i.requirement);
  const met: MetRequirement[] = [];
  let attempted = false;
  for (const item of withReq) {
    const req = item.requirement!;
    const f = facts.get(item.id);
    if (requirementMet(item, req, f, recorded)) met.push({ id: item.id, type: req.type });
    else if (SCORED.has(req.type) && (f?.submitted || f?.scorePending || f?.score != null)) attempted = true;
  }
  // Keep recorded actions (views, contributions, done marks) for items that no longer carry that
  // requirement: they count if it returns. Scores are never kept: they are re-read each time.
  const keep = recorded.filter((r) => !SCORED.has(r.type) && !met.some((m) => m.id === r.id && m.type === r.type));
  const requirementsMet = [...met, ...keep];

  // 3. State: started once a requirement is met (or a scored attempt falls short), as Canvas counts it.
  let state: ModuleState;
  const total = withReq.length;
  const completed = total === 0 || (module.requirementType === 'one' ? met.length >= 1 : met.length >= total);
  if (completed) state = 'completed';
  else if (met.length > 0 || attempted) state = 'started';
  else state = 'unlocked';

  // 4. completed_at is kept while completed, set on entering, cleared otherwise.
  const completedAt = state === 'completed' ? (previous?.state === 'completed' && previous.completedAt ? previous.completedAt : now) : null;

  // 5. Sequential progress: items after the first unmet requirement are locked.
  let currentPosition: number | null = null;
  const lockedItemIds: number[] = [];
  if (module.requireSequentialProgress && state !== 'completed') {
    let blocked = false;
    for (const item of items) {
      if (blocked) {
        lockedItemIds.push(item.id);
        continue;
      }
      if (item.requirement && !met.some((m) => m.id === item.id)) {
        currentPosition = item.position;
        blocked = true;
      }
    }
  }
  return { state, requirementsMet, completedAt, currentPosition, lockedItemIds };
}

/**
 * Whether a student's action on an item (a view, a contribution, a done mark) is recorded: not while
 * the module is locked for them, nor on an item sequential progress still locks.
 */
export function actionCounts(progression: { state: ModuleState; lockedItemIds: number[] } | null | undefined, itemId: number): boolean {
  return progression != null && progression.state !== 'locked' && !progression.lockedItemIds.includes(itemId);
}

/**
 * Evaluates the modules of a course for one student in position order, feeding each module's state
 * to the modules that list it as a prerequisite. `modules` are the modules the student can see
 * (published, assigned to them): a prerequisite that is not among them cannot be completed by the
 * student and does not count, like an unpublished or deleted one.
 */
export function evaluateCourse(
  modules: EvalModule[],
  inputs: Map<number, Omit<EvalInput, 'module' | 'prerequisiteStates'>>,
): Map<number, EvalResult> {
  const states = new Map<number, ModuleState>();
  const results = new Map<number, EvalResult>();
  const seen = new Set(modules.filter((m) => inputs.has(m.id)).map((m) => m.id));
  for (const m of modules) {
    const base = inputs.get(m.id);
    if (!base) continue;
    const module = { ...m, prerequisiteIds: m.prerequisiteIds.filter((id) => seen.has(id)) };
    const r = evaluate({ ...base, module, prerequisiteStates: states });
    states.set(m.id, r.state);
    results.set(m.id, r);
  }
  return results;
}
