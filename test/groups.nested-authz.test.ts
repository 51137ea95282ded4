import { addMembers, createCategory, createGroup, expectOk, groupsWorld, uniq } from './support/groups';
import { startTestServer, TestServer } from './support/server';
import { World } from './support/world';

/**
 * Issue 10, finding 3: objects reached through a field (GroupMembership.group, Group.users,
 * Group.leader, Group.groupCategory) are checked like their top-level queries. A student tagged in a
 * differentiation tag, or removed from the course, reads nothing of the group through their own
 * membership; the membership itself stays theirs to see.
 */
let server: TestServer;
let w: Awaited<ReturnType<typeof groupsWorld>>;
const TAG = `Needs Extra Help ${uniq()}`;
const TAG_NOTE = `private tag note ${uniq()}`;
const TAG_SET = `Tag Set ${uniq()}`;
const CLASS_GROUP = `Lab Partners ${uniq()}`;
const CLASS_NOTE = `lab bench five ${uniq()}`;
let tag: any;
let classGroup: any;
let removed: Awaited<ReturnType<World['user']>>;

const GROUP_FIELDS = 'name description users { name } leader { name } groupCategory { name } membersCount';
const SELF_MEMBERSHIP = `query($g: ID!) { groupMembership(groupId: $g, membershipId: "self") { _id workflowState group { ${GROUP_FIELDS} } } }`;

beforeAll(async () => {
  server = await startTestServer();
  const world = new World(server);
  w = await groupsWorld(world);
  // A differentiation tag with the student in it.
  const tagSet = await createCategory(w.teacher.api, w.course.id, { name: TAG_SET, non_collaborative: true });
  tag = await createGroup(w.teacher.api, tagSet.id, { name: TAG, description: TAG_NOTE });
  expectOk(await w.teacher.api.post(`/api/v1/groups/${tag.id}/memberships`, { members: [w.student.id] }), 'tag student');
  // A class group whose member is then removed from the course.
  removed = await world.user('Rita Removed');
  await world.enroll(w.course.id, removed.id, 'StudentEnrollment');
  const cat = await createCategory(w.teacher.api, w.course.id);
  classGroup = await createGroup(w.teacher.api, cat.id, { name: CLASS_GROUP, description: CLASS_NOTE });
  await addMembers(w.teacher.api, classGroup.id, [removed, w.student]);
  expectOk(await w.teacher.api.put(`/api/v1/groups/${classGroup.id}`, { leader: { id: w.student.id } }), 'set leader');
});
afterAll(() => server.close());

function expectNoSecrets(text: string, secrets: string[]) {
  for (const s of secrets) expect(text).not.toContain(s);
}

describe('a student tagged in a differentiation tag', () => {
  it('sees their own membership but not the tag through membership { group }', async () => {
    const res = await w.student.api.request('POST', '/graphql', { query: SELF_MEMBERSHIP, variables: { g: String(tag.id) } }, { json: true });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.groupMembership.workflowState).toBe('accepted');
    expect(res.body.data.groupMembership.group).toBeNull();
    expectNoSecrets(res.text, [TAG, TAG_NOTE, TAG_SET]);
  });

  it('gets nothing of the tag through aliased legacyNode(type: GroupMembership) lookups', async () => {
    const own = await w.student.api.get(`/api/v1/groups/${tag.id}/memberships/self`);
    expect(own.status).toBe(200);
    const q = `query($id: ID!) {
      a: legacyNode(type: GroupMembership, _id: $id) { ... on GroupMembership { group { ${GROUP_FIELDS} } } }
      b: legacyNode(type: GroupMembership, _id: $id) { ... on GroupMembership { user { name } group { name } } }
      c: node(id: "${Buffer.from(`GroupMembership-${own.body.id}`).toString('base64')}") { ... on GroupMembership { group { description } } }
    }`;
    const res = await w.student.api.request('POST', '/graphql', { query: q, variables: { id: String(own.body.id) } }, { json: true });
    expect(res.status).toBe(200);
    expect(res.body.data.a.group).toBeNull();
    expect(res.body.data.b).toEqual({ user: { name: w.student.name }, group: null });
    expect(res.body.data.c?.group ?? null).toBeNull();
    expectNoSecrets(res.text, [TAG, TAG_NOTE, TAG_SET]);
  });

  it('the teacher still reads the tag, its members and its set through the same fields', async () => {
    const res = await w.teacher.api.graphql(`query($g: ID!) { groupMembershipsConnection(groupId: $g) { nodes { user { name } group { ${GROUP_FIELDS} } } } }`, { g: String(tag.id) });
    expect(res.errors).toBeUndefined();
    const node = res.data.groupMembershipsConnection.nodes[0];
    expect(node.user.name).toBe(w.student.name);
    expect(node.group).toMatchObject({ name: TAG, description: TAG_NOTE, users: [{ name: w.student.name }], groupCategory: { name: TAG_SET } });
  });
});

describe('a student removed from the course', () => {
  beforeAll(async () => {
    // There is no enrollment delete route yet: the removal is made as Canvas stores it.
    await server.app.ds.query('UPDATE enrollments SET workflow_state = ? WHERE user_id = ? AND course_id = ?', ['deleted', removed.id, w.course.id]);
  });

  it('no longer reads the old group, its roster or its leader through their membership', async () => {
    const res = await removed.api.request('POST', '/graphql', { query: SELF_MEMBERSHIP, variables: { g: String(classGroup.id) } }, { json: true });
    expect(res.status).toBe(200);
    expect(res.body.data.groupMembership.group).toBeNull();
    expectNoSecrets(res.text, [CLASS_GROUP, CLASS_NOTE, w.student.name]);
  });

  it('a current member still reads the group, its roster and its leader', async () => {
    const res = await w.student.api.graphql(SELF_MEMBERSHIP, { g: String(classGroup.id) });
    expect(res.errors).toBeUndefined();
    expect(res.data.groupMembership.group).toMatchObject({ name: CLASS_GROUP, leader: { name: w.student.name } });
    expect(res.data.groupMembership.group.users.map((u: any) => u.name)).toContain(w.student.name);
  });
});

describe('groups listed to a student who is not a member', () => {
  it('show no members or leader through Group.users and Group.leader', async () => {
    const q = `query($c: ID!) { contextGroupsConnection(contextType: "Course", contextId: $c) { nodes { _id name users { name } leader { name } } } }`;
    const res = await w.student2.api.graphql(q, { c: String(w.course.id) });
    expect(res.errors).toBeUndefined();
    const g = res.data.contextGroupsConnection.nodes.find((n: any) => n._id === String(classGroup.id));
    expect(g).toEqual({ _id: String(classGroup.id), name: CLASS_GROUP, users: [], leader: null });
    const teacher = await w.teacher.api.graphql(q, { c: String(w.course.id) });
    const tg = teacher.data.contextGroupsConnection.nodes.find((n: any) => n._id === String(classGroup.id));
    expect(tg.leader).toEqual({ name: w.student.name });
    expect(tg.users.map((u: any) => u.name)).toContain(w.student.name);
  });
});
