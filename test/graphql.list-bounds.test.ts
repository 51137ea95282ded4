import { buildAppSchema } from '../src/graphql/schema';
import { unboundedLists } from '../src/graphql/list-bounds';

describe('list bounds', () => {
  it('every list field of the schema is a bounded connection page or declares its maximum', () => {
    expect(unboundedLists(buildAppSchema())).toEqual([]);
  });
});
