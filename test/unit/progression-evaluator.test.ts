import { actionCounts, evaluate, evaluateCourse, EvalInput, EvalItem, EvalModule, ItemFacts, MetRequirement, ModuleState, requirementMet } from '../../src/modules/progression-evaluator';

const NOW = new Date('2026-03-01T12:00:00Z');
const mod = (over: Partial<EvalModule> = {}): EvalModule => ({ id: 1, unlockAt: null, requireSequentialProgress: false, requirementType: 'all', prerequisiteIds: [], ...over });
const item = (id: number, requirement: EvalItem['requirement'] = null, position = id): EvalItem => ({ id, position, requirement });
const input = (over: Partial<EvalInput> = {}): EvalInput => ({
  module: mod(),
  items: [],
  facts: new Map(),
  previous: null,
  prerequisiteStates: new Map(),
  now: NOW,
  ...over,
});
const facts = (entries: [number, ItemFacts][]) => new Map(entries);
const prev = (state: ModuleState, met: MetRequirement[] = [], completedAt: Date | null = null) => ({ state, requirementsMet: met, completedAt });

describe('lock rules', () => {
  it('locks a module whose unlock_at is in the future, even for a student already in it', () => {
    const r = evaluate(input({ module: mod({ unlockAt: new Date('2026-03-02T00:00:00Z') }), previous: prev('started') }));
    expect(r.state).toBe('locked');
    expect(r.completedAt).toBeNull();
  });

  it('unlocks once unlock_at has passed', () => {
    expect(evaluate(input({ module: mod({ unlockAt: new Date('2026-02-01T00:00:00Z') }) })).state).toBe('completed');
  });

  it('keeps a module locked until every prerequisite is completed', () => {
    const m = mod({ prerequisiteIds: [7, 8] });
    expect(evaluate(input({ module: m, prerequisiteStates: new Map([[7, 'completed'], [8, 'started']]) })).state).toBe('locked');
    expect(evaluate(input({ module: m, prerequisiteStates: new Map([[7, 'completed'], [8, 'completed']]) })).state).toBe('completed');
  });

  it('does not lock out a student who already unlocked the module when prerequisites change (no relock)', () => {
    const m = mod({ prerequisiteIds: [7] });
    const r = evaluate(input({ module: m, items: [item(1, { type: 'must_view' })], previous: prev('unlocked'), prerequisiteStates: new Map([[7, 'started']]) }));
    expect(r.state).toBe('unlocked');
  });

  it('after a relock (previous state locked) checks prerequisites again', () => {
    const m = mod({ prerequisiteIds: [7] });
    expect(evaluate(input({ module: m, previous: prev('locked'), prerequisiteStates: new Map([[7, 'started']]) })).state).toBe('locked');
  });

  it('locks every item while the module is locked', () => {
    const r = evaluate(input({ module: mod({ prerequisiteIds: [9] }), items: [item(1), item(2)] }));
    expect(r.lockedItemIds).toEqual([1, 2]);
  });
});

describe('requirements', () => {
  it('completes a module without requirements as soon as it is unlocked', () => {
    const r = evaluate(input({ items: [item(1), item(2)] }));
    expect(r.state).toBe('completed');
    expect(r.completedAt).toEqual(NOW);
  });

  it('must_view is met by a recorded view or any other entry for the item', () => {
    const it1 = item(1, { type: 'must_view' });
    expect(requirementMet(it1, it1.requirement!, undefined, [])).toBe(false);
    expect(requirementMet(it1, it1.requirement!, undefined, [{ id: 1, type: 'must_view' }])).toBe(true);
    expect(requirementMet(it1, it1.requirement!, undefined, [{ id: 1, type: 'must_contribute' }])).toBe(true);
    expect(requirementMet(it1, it1.requirement!, undefined, [{ id: 2, type: 'must_view' }])).toBe(false);
  });

  it('must_contribute and must_mark_done are met only by recorded actions', () => {
    const c = item(1, { type: 'must_contribute' });
    const d = item(2, { type: 'must_mark_done' });
    expect(requirementMet(c, c.requirement!, { submitted: true }, [])).toBe(false);
    expect(requirementMet(c, c.requirement!, undefined, [{ id: 1, type: 'must_contribute' }])).toBe(true);
    expect(requirementMet(d, d.requirement!, undefined, [{ id: 2, type: 'must_view' }])).toBe(false);
    expect(requirementMet(d, d.requirement!, undefined, [{ id: 2, type: 'must_mark_done' }])).toBe(true);
  });

  it('must_submit is met by a submission', () => {
    const s = item(1, { type: 'must_submit' });
    expect(requirementMet(s, s.requirement!, { submitted: false }, [])).toBe(false);
    expect(requirementMet(s, s.requirement!, { submitted: true }, [])).toBe(true);
  });

  it('min_score compares the posted score with a tolerance; an unposted grade does not count', () => {
    const s = item(1, { type: 'min_score', minScore: 7 });
    expect(requirementMet(s, s.requirement!, { score: 6.9999999 }, [])).toBe(true);
    expect(requirementMet(s, s.requirement!, { score: 6.5 }, [])).toBe(false);
    expect(requirementMet(s, s.requirement!, { score: null, scorePending: true }, [])).toBe(false);
  });

  it('min_percentage compares score / points possible', () => {
    const s = item(1, { type: 'min_percentage', minPercentage: 80 });
    expect(requirementMet(s, s.requirement!, { score: 8, pointsPossible: 10 }, [])).toBe(true);
    expect(requirementMet(s, s.requirement!, { score: 7.9, pointsPossible: 10 }, [])).toBe(false);
    expect(requirementMet(s, s.requirement!, { score: 8, pointsPossible: 0 }, [])).toBe(false);
  });

  it('an excused submission meets any requirement', () => {
    const s = item(1, { type: 'min_score', minScore: 100 });
    expect(requirementMet(s, s.requirement!, { excused: true }, [])).toBe(true);
  });

  it('all: completed only when every requirement is met; started when some are', () => {
    const items = [item(1, { type: 'must_view' }), item(2, { type: 'must_submit' })];
    expect(evaluate(input({ items })).state).toBe('unlocked');
    const started = evaluate(input({ items, previous: prev('unlocked', [{ id: 1, type: 'must_view' }]) }));
    expect(started.state).toBe('started');
    const done = evaluate(input({ items, previous: prev('started', [{ id: 1, type: 'must_view' }]), facts: facts([[2, { submitted: true }]]) }));
    expect(done.state).toBe('completed');
    expect(done.requirementsMet).toEqual(expect.arrayContaining([{ id: 1, type: 'must_view' }, { id: 2, type: 'must_submit' }]));
  });

  it('one: any single requirement completes the module', () => {
    const items = [item(1, { type: 'must_view' }), item(2, { type: 'must_submit' })];
    const r = evaluate(input({ module: mod({ requirementType: 'one' }), items, facts: facts([[2, { submitted: true }]]) }));
    expect(r.state).toBe('completed');
  });

  it('an attempt below min_score starts the module without completing it', () => {
    const r = evaluate(input({ items: [item(1, { type: 'min_score', minScore: 9 })], facts: facts([[1, { submitted: true, score: 5 }]]) }));
    expect(r.state).toBe('started');
  });

  it('keeps completed_at while completed and clears it when requirements change', () => {
    const earlier = new Date('2026-01-01T00:00:00Z');
    const kept = evaluate(input({ previous: prev('completed', [], earlier) }));
    expect(kept.completedAt).toEqual(earlier);
    const reopened = evaluate(input({ items: [item(1, { type: 'must_view' })], previous: prev('completed', [], earlier) }));
    expect(reopened.state).toBe('unlocked');
    expect(reopened.completedAt).toBeNull();
  });

  it('keeps recorded actions for items whose requirement changed, so they count if it returns', () => {
    const r = evaluate(input({ items: [item(1, { type: 'must_submit' })], previous: prev('started', [{ id: 1, type: 'must_mark_done' }]) }));
    expect(r.requirementsMet).toContainEqual({ id: 1, type: 'must_mark_done' });
    // Kept, but it meets no current requirement: nothing is started (Canvas counts met requirements).
    expect(r.state).toBe('unlocked');
    const back = evaluate(input({ items: [item(1, { type: 'must_mark_done' })], previous: { state: r.state, requirementsMet: r.requirementsMet, completedAt: null } }));
    expect(back.state).toBe('completed');
  });

  it('started means a requirement is met or a scored attempt fell short, not any action on the module', () => {
    const items = [item(1, { type: 'must_submit' }), item(2, null), item(3, { type: 'must_view' })];
    expect(evaluate(input({ items, previous: prev('unlocked', [{ id: 2, type: 'must_view' }]) })).state).toBe('unlocked');
    // A submission on an item that must be viewed is not progress on that requirement.
    expect(evaluate(input({ items: [item(3, { type: 'must_view' }), item(4, { type: 'must_view' })], facts: facts([[3, { submitted: true, score: 2 }]]) })).state).toBe('unlocked');
    expect(evaluate(input({ items: [item(5, { type: 'min_percentage', minPercentage: 90 }), item(6, { type: 'must_view' })], facts: facts([[5, { score: 1, pointsPossible: 10 }]]) })).state).toBe('started');
  });

  it('re-reads score thresholds every time: a lowered score un-meets min_score and min_percentage', () => {
    const items = [item(1, { type: 'min_score', minScore: 7 }), item(2, { type: 'min_percentage', minPercentage: 50 })];
    const high = facts([[1, { score: 8 }], [2, { score: 6, pointsPossible: 10 }]]);
    const done = evaluate(input({ items, facts: high }));
    expect(done.state).toBe('completed');
    expect(done.requirementsMet).toEqual([{ id: 1, type: 'min_score' }, { id: 2, type: 'min_percentage' }]);
    const low = facts([[1, { score: 3 }], [2, { score: 6, pointsPossible: 10 }]]);
    const reopened = evaluate(input({ items, facts: low, previous: prev('completed', done.requirementsMet, NOW) }));
    expect(reopened.state).toBe('started');
    expect(reopened.requirementsMet).toEqual([{ id: 2, type: 'min_percentage' }]);
    expect(reopened.completedAt).toBeNull();
    // A score entry is not a view either.
    expect(requirementMet(item(1, { type: 'must_view' }), { type: 'must_view' }, undefined, [{ id: 1, type: 'min_score' }])).toBe(false);
  });

  it('other met requirements stay met once recorded (a submission cannot be taken back)', () => {
    const items = [item(1, { type: 'must_submit' })];
    const r = evaluate(input({ items, previous: prev('completed', [{ id: 1, type: 'must_submit' }], NOW) }));
    expect(r.state).toBe('completed');
    expect(r.completedAt).toEqual(NOW);
  });
});

describe('recording actions', () => {
  it('counts actions only on items open to the student: not while locked, not behind sequential progress', () => {
    expect(actionCounts(null, 1)).toBe(false);
    expect(actionCounts({ state: 'locked', lockedItemIds: [] }, 1)).toBe(false);
    expect(actionCounts({ state: 'started', lockedItemIds: [2, 3] }, 2)).toBe(false);
    expect(actionCounts({ state: 'started', lockedItemIds: [2, 3] }, 1)).toBe(true);
    expect(actionCounts({ state: 'completed', lockedItemIds: [] }, 1)).toBe(true);
    expect(actionCounts({ state: 'unlocked', lockedItemIds: [] }, 1)).toBe(true);
  });
});

describe('sequential progress', () => {
  it('locks the items after the first unmet requirement and reports its position', () => {
    const items = [item(1, null, 1), item(2, { type: 'must_view' }, 2), item(3, { type: 'must_view' }, 3), item(4, null, 4)];
    const r = evaluate(input({ module: mod({ requireSequentialProgress: true }), items }));
    expect(r.currentPosition).toBe(2);
    expect(r.lockedItemIds).toEqual([3, 4]);
    const next = evaluate(input({ module: mod({ requireSequentialProgress: true }), items, previous: prev('started', [{ id: 2, type: 'must_view' }]) }));
    expect(next.currentPosition).toBe(3);
    expect(next.lockedItemIds).toEqual([4]);
  });

  it('locks nothing once the module is completed', () => {
    const items = [item(1, { type: 'must_view' })];
    const r = evaluate(input({ module: mod({ requireSequentialProgress: true }), items, previous: prev('started', [{ id: 1, type: 'must_view' }]) }));
    expect(r.state).toBe('completed');
    expect(r.lockedItemIds).toEqual([]);
    expect(r.currentPosition).toBeNull();
  });
});

describe('evaluateCourse', () => {
  it('feeds each module’s state to the modules that require it, in order', () => {
    const m1 = mod({ id: 1 });
    const m2 = mod({ id: 2, prerequisiteIds: [1] });
    const base = { facts: new Map(), previous: null, now: NOW };
    const open = evaluateCourse([m1, m2], new Map([[1, { ...base, items: [] }], [2, { ...base, items: [] }]]));
    expect(open.get(2)!.state).toBe('completed');
    const blocked = evaluateCourse([m1, m2], new Map([[1, { ...base, items: [item(5, { type: 'must_view' })] }], [2, { ...base, items: [] }]]));
    expect(blocked.get(1)!.state).toBe('unlocked');
    expect(blocked.get(2)!.state).toBe('locked');
  });

  it('ignores prerequisites the student cannot see (not among the evaluated modules: unpublished, deleted, limited to others)', () => {
    const m2 = mod({ id: 2, prerequisiteIds: [1, 9] });
    const base = { facts: new Map(), previous: null, now: NOW };
    const r = evaluateCourse([m2], new Map([[2, { ...base, items: [] }]]));
    expect(r.get(2)!.state).toBe('completed');
    // A module listed but given no input (not assigned to the student) does not count either.
    const m1 = mod({ id: 1 });
    const r2 = evaluateCourse([m1, m2], new Map([[2, { ...base, items: [] }]]));
    expect(r2.get(2)!.state).toBe('completed');
    expect(r2.has(1)).toBe(false);
  });

  it('cascades completion through a chain of prerequisites', () => {
    const mods = [mod({ id: 1 }), mod({ id: 2, prerequisiteIds: [1] }), mod({ id: 3, prerequisiteIds: [2] })];
    const base = { facts: new Map(), now: NOW };
    const inputs = new Map([
      [1, { ...base, items: [item(1, { type: 'must_view' })], previous: prev('unlocked', [{ id: 1, type: 'must_view' }]) }],
      [2, { ...base, items: [], previous: prev('locked') }],
      [3, { ...base, items: [item(3, { type: 'must_view' })], previous: prev('locked') }],
    ]);
    const r = evaluateCourse(mods, inputs);
    expect([r.get(1)!.state, r.get(2)!.state, r.get(3)!.state]).toEqual(['completed', 'completed', 'unlocked']);
  });
});
