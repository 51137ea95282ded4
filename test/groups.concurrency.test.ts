import { count, createCategory, createGroup } from './support/groups';
import { startTestServer, TestServer } from './support/server';
import { World } from './support/world';

/**
 * Concurrent writes that lock rows in opposite orders: a teacher adding one student to every group of
 * a set at once. Each join inserts its membership and then clears the student's other memberships of
 * the set, so on MariaDB two joins deadlock and InnoDB rolls one back. The transaction is run again
 * (src/db/transaction.ts): every request answers 200, and the student ends up in exactly one group of
 * the set, as Canvas's exclusive categories require.
 */
let server: TestServer;
beforeAll(async () => (server = await startTestServer()));
afterAll(() => server.close());

it('adds one user to every group of a set at once without a 500, leaving one live membership', async () => {
  const { course, teacher, student } = await new World(server).classroom();
  for (let round = 0; round < 3; round++) {
    const cat = await createCategory(teacher.api, course.id, { name: `Set ${round}` });
    const groups = await Promise.all(Array.from({ length: 6 }, (_, i) => createGroup(teacher.api, cat.id, { name: `G${round}.${i}` })));
    const answers = await Promise.all(groups.map((g) => teacher.api.post(`/api/v1/groups/${g.id}/memberships`, { user_id: student.id })));
    expect(answers.map((a) => a.status)).toEqual(groups.map(() => 200));
    const live = await count(server, 'group_memberships', `user_id = ? AND workflow_state <> 'deleted' AND group_id IN (${groups.map(() => '?').join(', ')})`, [student.id, ...groups.map((g) => g.id)]);
    expect(live).toBe(1);
  }
});
