import { contentRoom, ContentRoom } from './support/content';
import { startTestServer, TestServer } from './support/server';
import { World } from './support/world';
import { at, Content, day } from './planner.support';

let server: TestServer;
let world: World;
let room: ContentRoom;
let content: Content;
const ids: Record<string, number> = {};

const toGlobal = (type: string, id: number) => Buffer.from(`${type}-${id}`).toString('base64');

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  room = await contentRoom(world);
  content = new Content(room.teacher.api, room.course.id);
  ids.a1 = (await content.assignment('First', at(1, 9))).id;
  ids.a2 = (await content.assignment('Second', at(2, 9))).id;
  ids.page = (await content.page('Reading', at(3, 9))).page_id;
  ids.topic = (await content.topic('Talk', at(4, 9))).id;
});
afterAll(() => server.close());

const ITEMS = `query($first: Int, $after: String, $filter: String, $start: String, $end: String, $codes: [String!], $userId: ID, $observed: ID) {
  plannerItems(first: $first, after: $after, filter: $filter, startDate: $start, endDate: $end, contextCodes: $codes, userId: $userId, observedUserId: $observed) {
    totalCount
    pageInfo { hasNextPage hasPreviousPage endCursor }
    edges { cursor }
    nodes {
      contextType courseId contextName plannableId plannableType plannableDate newActivity htmlUrl
      plannerOverride { id _id markedComplete dismissed assignmentId }
      submissions { submitted missing hasFeedback withFeedback }
      plannable { id title dueAt todoDate readState unreadCount }
    }
  }
}`;

describe('plannerItems', () => {
  it('is a connection of planner items with the same kinds, order and fields as REST', async () => {
    const res = await room.student.api.graphql(ITEMS, {});
    expect(res.errors).toBeUndefined();
    const conn = res.data.plannerItems;
    expect(conn.nodes.map((n: any) => `${n.plannableType}:${n.plannableId}`)).toEqual([`assignment:${ids.a1}`, `assignment:${ids.a2}`, `wiki_page:${ids.page}`, `discussion_topic:${ids.topic}`]);
    expect(conn.totalCount).toBe(4);
    expect(conn.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
    expect(conn.nodes[0]).toMatchObject({
      contextType: 'Course',
      courseId: String(room.course.id),
      contextName: 'Biology 101',
      plannableDate: at(1, 9),
      newActivity: false,
      plannerOverride: null,
      submissions: { submitted: false, missing: false, hasFeedback: false, withFeedback: false },
      plannable: { id: String(ids.a1), title: 'First', dueAt: at(1, 9) },
    });
    expect(conn.nodes[2].submissions).toBeNull();
    expect(conn.nodes[3]).toMatchObject({ newActivity: true, plannable: { readState: 'unread', unreadCount: 0, todoDate: at(4, 9) } });
    const rest = await room.student.api.get('/api/v1/planner/items');
    expect(rest.body.map((i: any) => i.html_url)).toEqual(conn.nodes.map((n: any) => n.htmlUrl));
  });

  it('pages by key set with first/after, and takes the REST filters and windows', async () => {
    const first = (await room.student.api.graphql(ITEMS, { first: 3 })).data.plannerItems;
    expect(first.nodes).toHaveLength(3);
    expect(first.pageInfo.hasNextPage).toBe(true);
    expect(first.edges[2].cursor).toBe(first.pageInfo.endCursor);
    const second = (await room.student.api.graphql(ITEMS, { first: 3, after: first.pageInfo.endCursor })).data.plannerItems;
    expect(second.nodes.map((n: any) => n.plannableId)).toEqual([String(ids.topic)]);
    expect(second.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    const todo = (await room.student.api.graphql(ITEMS, { filter: 'ungraded_todo_items' })).data.plannerItems;
    expect(todo.nodes.map((n: any) => n.plannableType)).toEqual(['wiki_page', 'discussion_topic']);
    const window = (await room.student.api.graphql(ITEMS, { start: day(2), end: day(3) })).data.plannerItems;
    expect(window.nodes.map((n: any) => n.plannableId)).toEqual([String(ids.a2)]);
  });

  it('reports bad dates, refused contexts and anonymous callers as GraphQL errors with codes', async () => {
    const bad = await room.student.api.graphql(ITEMS, { start: 'soon' });
    expect(bad.errors?.[0]).toMatchObject({ message: 'Invalid date or datetime for start_date', extensions: { code: 'REQUEST_ERROR' } });
    const refused = await room.outsider.api.graphql(ITEMS, { codes: [`course_${room.course.id}`] });
    expect(refused.errors?.[0].extensions.code).toBe('FORBIDDEN');
    const observed = await room.observer.api.graphql(ITEMS, { observed: String(room.student.id), codes: [`course_${room.course.id}`] });
    expect(observed.errors).toBeUndefined();
    expect(observed.data.plannerItems.totalCount).toBe(4);
    const notObserved = await room.observer.api.graphql(ITEMS, { userId: String(room.student2.id) });
    expect(notObserved.errors?.[0].extensions.code).toBe('FORBIDDEN');
    const anon = await server.as(null).graphql(ITEMS, {});
    expect(anon.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});

const NOTE = 'id _id title details description userId courseId workflowState todoDate linkedObjectType linkedObjectId linkedObjectHtmlUrl linkedObjectUrl';

describe('planner notes', () => {
  it('creates, lists, shows, updates and deletes through mutations and queries', async () => {
    const created = await room.student.api.graphql(`mutation($input: CreatePlannerNoteInput!) { createPlannerNote(input: $input) { plannerNote { ${NOTE} } errors { attribute type message } } }`, {
      input: { title: 'Revise', details: 'ch 4', todoDate: at(1, 18), courseId: String(room.course.id), linkedObjectType: 'assignment', linkedObjectId: String(ids.a1) },
    });
    expect(created.errors).toBeUndefined();
    const note = created.data.createPlannerNote.plannerNote;
    expect(note).toMatchObject({
      id: toGlobal('PlannerNote', Number(note._id)),
      title: 'Revise',
      details: 'ch 4',
      description: 'ch 4',
      userId: String(room.student.id),
      courseId: String(room.course.id),
      workflowState: 'active',
      todoDate: at(1, 18),
      linkedObjectType: 'assignment',
      linkedObjectId: String(ids.a1),
      linkedObjectHtmlUrl: `${server.url}/courses/${room.course.id}/assignments/${ids.a1}`,
    });
    const list = await room.student.api.graphql(`{ plannerNotes { totalCount nodes { _id } } }`);
    expect(list.data.plannerNotes).toEqual({ totalCount: 1, nodes: [{ _id: note._id }] });
    const ranged = await room.student.api.graphql(`query($s: String, $e: String) { plannerNotes(startDate: $s, endDate: $e) { totalCount } }`, { s: day(2), e: day(2) });
    expect(ranged.data.plannerNotes.totalCount).toBe(0);
    const byNode = await room.student.api.graphql(`query($id: ID!) { node(id: $id) { ... on PlannerNote { title } } }`, { id: note.id });
    expect(byNode.data.node).toEqual({ title: 'Revise' });
    const byLegacy = await room.student.api.graphql(`query($id: ID!) { legacyNode(type: PlannerNote, _id: $id) { ... on PlannerNote { title } } }`, { id: note._id });
    expect(byLegacy.data.legacyNode).toEqual({ title: 'Revise' });
    const shown = await room.student.api.graphql(`query($id: ID!) { plannerNote(id: $id) { title } }`, { id: note.id });
    expect(shown.data.plannerNote).toEqual({ title: 'Revise' });

    const updated = await room.student.api.graphql(`mutation($input: UpdatePlannerNoteInput!) { updatePlannerNote(input: $input) { plannerNote { title details } errors { attribute type } } }`, {
      input: { id: note._id, title: 'Revise more', details: null },
    });
    expect(updated.data.updatePlannerNote).toEqual({ plannerNote: { title: 'Revise more', details: null }, errors: null });
    const blank = await room.student.api.graphql(`mutation($input: UpdatePlannerNoteInput!) { updatePlannerNote(input: $input) { plannerNote { title } errors { attribute type message } } }`, {
      input: { id: note._id, title: '' },
    });
    expect(blank.data.updatePlannerNote).toEqual({ plannerNote: null, errors: [{ attribute: 'title', type: 'blank', message: 'blank' }] });
    const linkedMove = await room.student.api.graphql(`mutation($input: UpdatePlannerNoteInput!) { updatePlannerNote(input: $input) { plannerNote { title } } }`, {
      input: { id: note._id, courseId: null },
    });
    expect(linkedMove.errors?.[0]).toMatchObject({ message: 'course_id cannot be changed for linked planner notes', extensions: { code: 'REQUEST_ERROR' } });

    const deleted = await room.student.api.graphql(`mutation($id: ID!) { deletePlannerNote(id: $id) { plannerNote { workflowState } } }`, { id: note.id });
    expect(deleted.data.deletePlannerNote.plannerNote).toEqual({ workflowState: 'deleted' });
    expect((await room.student.api.graphql(`{ plannerNotes { totalCount } }`)).data.plannerNotes.totalCount).toBe(0);
  });

  it('never shows or changes another user’s note', async () => {
    const created = await room.student.api.graphql(`mutation($input: CreatePlannerNoteInput!) { createPlannerNote(input: $input) { plannerNote { id _id } } }`, {
      input: { title: 'Mine', todoDate: at(1, 18) },
    });
    const { id, _id } = created.data.createPlannerNote.plannerNote;
    const other = room.student2.api;
    expect((await other.graphql(`query($id: ID!) { node(id: $id) { id } }`, { id })).data.node).toBeNull();
    expect((await other.graphql(`query($id: ID!) { plannerNote(id: $id) { title } }`, { id: _id })).errors?.[0].extensions.code).toBe('NOT_FOUND');
    expect((await other.graphql(`mutation($input: UpdatePlannerNoteInput!) { updatePlannerNote(input: $input) { plannerNote { title } } }`, { input: { id, title: 'x' } })).errors?.[0].extensions.code).toBe('NOT_FOUND');
    expect((await other.graphql(`mutation($id: ID!) { deletePlannerNote(id: $id) { plannerNote { title } } }`, { id })).errors?.[0].extensions.code).toBe('NOT_FOUND');
    expect((await other.graphql(`{ plannerNotes { totalCount } }`)).data.plannerNotes.totalCount).toBe(0);
    expect((await room.student.api.graphql(`query($id: ID!) { plannerNote(id: $id) { title workflowState } }`, { id })).data.plannerNote).toEqual({ title: 'Mine', workflowState: 'active' });
  });

  it('reports validation problems in the payload and nothing is stored', async () => {
    const res = await room.student.api.graphql(`mutation($input: CreatePlannerNoteInput!) { createPlannerNote(input: $input) { plannerNote { id } errors { attribute type message } } }`, {
      input: { details: 'no title or date' },
    });
    expect(res.data.createPlannerNote).toEqual({
      plannerNote: null,
      errors: [
        { attribute: 'title', type: 'blank', message: 'blank' },
        { attribute: 'todo_date', type: 'blank', message: 'blank' },
      ],
    });
    const bad = await room.student.api.graphql(`mutation($input: CreatePlannerNoteInput!) { createPlannerNote(input: $input) { plannerNote { id } } }`, { input: { title: 'x', todoDate: 'whenever' } });
    expect(bad.errors?.[0].message).toMatch(/DateTime cannot represent/);
  });
});

const OVERRIDE = 'id _id plannableType plannableId userId assignmentId workflowState markedComplete dismissed deletedAt';

describe('planner overrides', () => {
  it('creates, lists, shows, updates and deletes; overrides appear on planner items', async () => {
    const created = await room.student.api.graphql(`mutation($input: CreatePlannerOverrideInput!) { createPlannerOverride(input: $input) { plannerOverride { ${OVERRIDE} } errors { attribute type message } } }`, {
      input: { plannableType: 'assignment', plannableId: String(ids.a2), markedComplete: true },
    });
    const o = created.data.createPlannerOverride.plannerOverride;
    expect(o).toMatchObject({ plannableType: 'assignment', plannableId: String(ids.a2), assignmentId: String(ids.a2), markedComplete: true, dismissed: false, workflowState: 'active', deletedAt: null });
    const items = (await room.student.api.graphql(ITEMS, {})).data.plannerItems.nodes;
    expect(items.find((n: any) => n.plannableType === 'assignment' && n.plannableId === String(ids.a2)).plannerOverride).toEqual({ id: o.id, _id: o._id, markedComplete: true, dismissed: false, assignmentId: String(ids.a2) });
    const complete = (await room.student.api.graphql(ITEMS, { filter: 'complete_items' })).data.plannerItems.nodes;
    expect(complete.map((n: any) => `${n.plannableType}:${n.plannableId}`)).toEqual([`assignment:${ids.a2}`]);
    const dup = await room.student.api.graphql(`mutation($input: CreatePlannerOverrideInput!) { createPlannerOverride(input: $input) { plannerOverride { id } errors { attribute type message } } }`, {
      input: { plannableType: 'assignment', plannableId: String(ids.a2) },
    });
    expect(dup.data.createPlannerOverride).toEqual({ plannerOverride: null, errors: [{ attribute: 'plannable_id', type: 'taken', message: 'taken' }] });
    const unknown = await room.student.api.graphql(`mutation($input: CreatePlannerOverrideInput!) { createPlannerOverride(input: $input) { errors { attribute type } } }`, {
      input: { plannableType: 'widget', plannableId: '1' },
    });
    expect(unknown.data.createPlannerOverride.errors).toEqual([{ attribute: 'plannable_type', type: 'inclusion' }]);

    const updated = await room.student.api.graphql(`mutation($input: UpdatePlannerOverrideInput!) { updatePlannerOverride(input: $input) { plannerOverride { markedComplete dismissed } } }`, {
      input: { id: o.id, dismissed: true },
    });
    expect(updated.data.updatePlannerOverride.plannerOverride).toEqual({ markedComplete: false, dismissed: true });
    expect((await room.student.api.graphql(`{ plannerOverrides { totalCount nodes { _id } } }`)).data.plannerOverrides).toEqual({ totalCount: 1, nodes: [{ _id: o._id }] });
    expect((await room.student.api.graphql(`query($id: ID!) { plannerOverride(id: $id) { dismissed } }`, { id: o._id })).data.plannerOverride).toEqual({ dismissed: true });
    expect((await room.student.api.graphql(`query($id: ID!) { node(id: $id) { ... on PlannerOverride { plannableType } } }`, { id: o.id })).data.node).toEqual({ plannableType: 'assignment' });

    const other = room.student2.api;
    expect((await other.graphql(`query($id: ID!) { plannerOverride(id: $id) { id } }`, { id: o.id })).errors?.[0].extensions.code).toBe('NOT_FOUND');
    expect((await other.graphql(`mutation($id: ID!) { deletePlannerOverride(id: $id) { plannerOverride { id } } }`, { id: o.id })).errors?.[0].extensions.code).toBe('NOT_FOUND');
    expect((await other.graphql(`query($id: ID!) { node(id: $id) { id } }`, { id: o.id })).data.node).toBeNull();

    const deleted = await room.student.api.graphql(`mutation($id: ID!) { deletePlannerOverride(id: $id) { plannerOverride { workflowState deletedAt } } }`, { id: o.id });
    expect(deleted.data.deletePlannerOverride.plannerOverride).toMatchObject({ workflowState: 'deleted', deletedAt: expect.any(String) });
    expect((await room.student.api.graphql(`{ plannerOverrides { totalCount } }`)).data.plannerOverrides.totalCount).toBe(0);
  });
});
