import { parse } from 'graphql';
import { buildAppSchema } from '../../src/app/schema';
import { CompiledPlans } from '../../src/graphql/jit-executor';

/** HTTP GraphQL's compiled-plan cache (src/graphql/jit-executor.ts). */
describe('CompiledPlans', () => {
  const schema = buildAppSchema();
  const plan = (plans: CompiledPlans, source: string, op: string | null = null) => plans.plan(source, parse(source), op);

  it('compiles a document once and reuses the plan for the same text and operation', () => {
    const plans = new CompiledPlans(schema);
    const doc = '{ viewer { _id name } }';
    const first = plan(plans, doc);
    expect(first).not.toBeNull();
    expect(plan(plans, doc)).toBe(first);
    expect(plans.size).toBe(1);
    const two = 'query A { viewer { _id } } query B { viewer { name } }';
    expect(plan(plans, two, 'A')).not.toBe(plan(plans, two, 'B'));
  });

  it('leaves introspection and interface or union selections to graphql-js', () => {
    const plans = new CompiledPlans(schema);
    expect(plan(plans, '{ __schema { queryType { name } } }')).toBeNull();
    expect(plan(plans, '{ node(id: "x") { id } }')).toBeNull();
  });

  it('keeps at most its bound, dropping the least recently used plan', () => {
    const plans = new CompiledPlans(schema, 2);
    const a = plan(plans, '{ viewer { _id } }');
    plan(plans, '{ viewer { name } }');
    expect(plan(plans, '{ viewer { _id } }')).toBe(a);
    plan(plans, '{ viewer { sortableName } }');
    expect(plans.size).toBe(2);
    // `_id` was used last before the third came in, so `name` went.
    expect(plan(plans, '{ viewer { _id } }')).toBe(a);
  });
});
