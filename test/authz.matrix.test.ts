import { randomBytes } from 'node:crypto';
import type { Api } from './support/api';
import { createCategory, createGroup, expectOk, makeAccountAdmin } from './support/groups';
import { startTestServer, TestServer } from './support/server';
import { subscription, toolProxy } from './support/webhooks';
import { World, WorldUser } from './support/world';

/**
 * The authorization matrix (issue 10): for every resource type, through REST (its GET path) and
 * GraphQL (the top-level query, node(id:), legacyNode(type:, _id:) and nested fields that reach it),
 * callers with no claim on it get nothing of it: an outsider student (no enrollment), a student and
 * a teacher of another course, an observer linked to someone else, and an anonymous caller. Each
 * resource carries unique text; a refusal must not contain it. A positive control per row shows the
 * text does come back to someone allowed, so a row cannot pass by probing the wrong thing.
 *
 * Section limits (issue 19): a student of course A whose enrollment has
 * limit_privileges_to_course_section sees only their own section's people and enrollments, by id as
 * in lists; the victim, an observer link to the victim and another enrollment of a person they do see
 * all sit in another section. Wherever a classmate is refused, so is the section-limited student.
 *
 * A new resource type is one row of ROWS.
 */
let server: TestServer;
let world: World;
const K = randomBytes(3).toString('hex');
const secret = (what: string) => `${what}-${K}-${randomBytes(3).toString('hex')}`;

// The victim side: course A with its teacher, a student (the owner of personal objects) and an admin.
let courseA: { id: number; name: string };
let teacher: WorldUser;
let victim: WorldUser;
let admin: WorldUser;
// The callers.
type Who = 'outsider' | 'otherStudent' | 'otherTeacher' | 'unlinkedObserver' | 'anonymous' | Insider;
const CALLERS: Who[] = ['outsider', 'otherStudent', 'otherTeacher', 'unlinkedObserver', 'anonymous'];
/**
 * People of course A itself, refused where the object is another person's: a classmate, an observer of
 * someone else, and a student limited to the default section (the victim's is another).
 */
type Insider = 'classmate' | 'courseObserver' | 'sectionLimited';
const callers = {} as Record<Who, Api>;

/** Ids and texts of what the world holds, filled in beforeAll. */
const S = {
  course: secret('Course'),
  section: secret('Section'),
  victim: secret('Victim'),
  category: secret('GroupSet'),
  group: secret('Group'),
  groupNote: secret('GroupNote'),
  module: secret('Module'),
  item: secret('ModuleItem'),
  assignment: secret('Assignment'),
  essay: secret('Essay'),
  quiz: secret('Quiz'),
  page: secret('Page'),
  pageBody: secret('PageBody'),
  topic: secret('Topic'),
  topicBody: secret('TopicBody'),
  entry: secret('Entry'),
  file: `${secret('File')}.txt`,
  note: secret('Note'),
  blackout: secret('Blackout'),
  courseEvent: secret('CourseEvent'),
  userEvent: secret('UserEvent'),
  tool: secret('Tool'),
  hook: `https://hooks.example.com/${secret('Hook')}`,
  report: secret('Report'),
  watcher: secret('Watcher'),
  overdue: secret('Overdue'),
  // Distinct start dates mark enrollments in REST and GraphQL answers alike.
  bridgeStart: `2031-0${1 + (randomBytes(1)[0] % 9)}-1${randomBytes(1)[0] % 10}T0${randomBytes(1)[0] % 10}:17:43Z`,
  watchStart: `2032-0${1 + (randomBytes(1)[0] % 9)}-1${randomBytes(1)[0] % 10}T0${randomBytes(1)[0] % 10}:29:51Z`,
};
const ids: Record<string, number | string> = {};

interface Probe {
  query: string;
  variables?: Record<string, unknown>;
}
interface Row {
  type: string;
  /** Texts of the object that must never reach a refused caller. */
  texts: () => string[];
  /** Its Canvas GET path, when one exists. */
  rest?: () => string;
  /** The top-level query (aliased `x`). */
  top?: () => Probe;
  /** Its NodeType and numeric id, for node(id:) and legacyNode. */
  node?: () => { type: string; id: number };
  /** Nested fields that reach it from elsewhere. */
  nested?: () => Probe[];
  /** Insiders of course A who must be refused as well (objects personal to the victim or staff-only). */
  insiders?: Insider[];
  /** Insiders to whom the REST path, a list, answers 200 (without the object). */
  listFor?: Insider[];
  /** The top-level probe returns a parent the caller may see (the object is a field of it), so only the texts are checked. */
  topIsParent?: boolean;
  /** Who may see it, and the probe that shows them its text (the positive control). */
  allowed: () => { api: Api; probe: { rest: string } | Probe };
}

const gid = (type: string, id: number | string) => Buffer.from(`${type}-${id}`).toString('base64');
const q = (query: string, variables: Record<string, unknown> = {}): Probe => ({ query, variables });
const n = (k: string) => Number(ids[k]);

const ROWS: Row[] = [
  {
    type: 'course',
    texts: () => [S.course],
    rest: () => `/api/v1/courses/${courseA.id}`,
    top: () => q(`query($id: ID!) { x: course(id: $id) { name } }`, { id: String(courseA.id) }),
    node: () => ({ type: 'Course', id: courseA.id }),
    nested: () => [
      q(`query($id: ID!) { x: legacyNode(type: Section, _id: $id) { ... on Section { course { name } } } }`, { id: String(ids.section) }),
      q(`query($id: ID!) { x: legacyNode(type: Enrollment, _id: $id) { ... on Enrollment { course { name } } } }`, { id: String(ids.enrollment) }),
    ],
    allowed: () => ({ api: teacher.api, probe: { rest: `/api/v1/courses/${courseA.id}` } }),
  },
  {
    type: 'section',
    texts: () => [S.section],
    rest: () => `/api/v1/courses/${courseA.id}/sections`,
    node: () => ({ type: 'Section', id: n('section') }),
    nested: () => [
      q(`query($id: ID!) { x: course(id: $id) { sectionsConnection { nodes { name } } } }`, { id: String(courseA.id) }),
      q(`query($id: ID!) { x: legacyNode(type: Enrollment, _id: $id) { ... on Enrollment { section { name } } } }`, { id: String(ids.enrollment) }),
    ],
    allowed: () => ({ api: teacher.api, probe: { rest: `/api/v1/courses/${courseA.id}/sections` } }),
  },
  {
    type: 'enrollment',
    insiders: ['courseObserver', 'sectionLimited'],
    listFor: ['sectionLimited'],
    texts: () => [S.victim],
    rest: () => `/api/v1/courses/${courseA.id}/enrollments`,
    node: () => ({ type: 'Enrollment', id: n('enrollment') }),
    nested: () => [
      q(`query($id: ID!) { x: course(id: $id) { enrollmentsConnection { nodes { user { name } } } } }`, { id: String(courseA.id) }),
      q(`query($id: ID!) { x: legacyNode(type: Enrollment, _id: $id) { ... on Enrollment { user { name } } } }`, { id: String(ids.enrollment) }),
      q(`query($id: ID!) { x: node(id: $id) { ... on Enrollment { user { name } } } }`, { id: gid('Enrollment', n('enrollment')) }),
    ],
    allowed: () => ({ api: teacher.api, probe: { rest: `/api/v1/courses/${courseA.id}/enrollments` } }),
  },
  {
    // An observer link to the victim, in the victim's section: who watches them is the victim's business.
    type: 'observer link',
    insiders: ['courseObserver', 'sectionLimited'],
    listFor: ['sectionLimited'],
    texts: () => [S.watcher, S.watchStart],
    rest: () => `/api/v1/courses/${courseA.id}/enrollments?type[]=ObserverEnrollment`,
    node: () => ({ type: 'Enrollment', id: n('watch') }),
    nested: () => [
      q(`query($id: ID!) { x: legacyNode(type: Enrollment, _id: $id) { ... on Enrollment { startAt user { name } associatedUser { name } } } }`, { id: String(ids.watch) }),
      q(`query($id: ID!) { x: course(id: $id) { enrollmentsConnection(types: ["ObserverEnrollment"]) { nodes { startAt user { name } } } } }`, { id: String(courseA.id) }),
      q(`query($id: ID!) { x: user(id: $id) { name enrollments { startAt } } }`, { id: String(ids.watcher) }),
    ],
    allowed: () => ({ api: teacher.api, probe: { rest: `/api/v1/courses/${courseA.id}/enrollments?type[]=ObserverEnrollment` } }),
  },
  {
    // A person the section-limited student does see (they share the default section), enrolled in the
    // victim's section as well: that other enrollment stays hidden, through the person too.
    type: 'enrollment of a visible person in another section',
    insiders: ['courseObserver', 'sectionLimited'],
    listFor: ['sectionLimited'],
    topIsParent: true,
    texts: () => [S.bridgeStart],
    rest: () => `/api/v1/courses/${courseA.id}/enrollments?user_id=${ids.bridge}`,
    top: () => q(`query($id: ID!) { x: user(id: $id) { name enrollments { startAt } } }`, { id: String(ids.bridge) }),
    node: () => ({ type: 'Enrollment', id: n('bridgeOther') }),
    nested: () => [
      q(`query($id: ID!, $c: ID!) { x: legacyNode(type: User, _id: $id) { ... on User { enrollments(courseId: $c) { startAt section { name } } } } }`, { id: String(ids.bridge), c: String(courseA.id) }),
      q(`query($id: ID!) { x: legacyNode(type: Enrollment, _id: $id) { ... on Enrollment { startAt } } }`, { id: String(ids.bridgeOther) }),
      q(`query($id: ID!) { x: course(id: $id) { enrollmentsConnection { nodes { startAt } } } }`, { id: String(courseA.id) }),
    ],
    allowed: () => ({ api: teacher.api, probe: q(`query($id: ID!) { x: user(id: $id) { enrollments { startAt } } }`, { id: String(ids.bridge) }) }),
  },
  {
    type: 'user',
    insiders: ['courseObserver', 'sectionLimited'],
    texts: () => [S.victim],
    rest: () => `/api/v1/users/${victim.id}`,
    top: () => q(`query($id: ID!) { x: user(id: $id) { name } }`, { id: String(victim.id) }),
    node: () => ({ type: 'User', id: victim.id }),
    nested: () => [
      q(`query($id: ID!) { x: legacyNode(type: Group, _id: $id) { ... on Group { users { name } leader { name } } } }`, { id: String(ids.group) }),
      q(`query($id: ID!) { x: legacyNode(type: Submission, _id: $id) { ... on Submission { user { name } } } }`, { id: String(ids.submission) }),
      // An observer link in the section-limited student's own section, to the victim in another.
      q(`query($id: ID!) { x: legacyNode(type: Enrollment, _id: $id) { ... on Enrollment { associatedUser { name } } } }`, { id: String(ids.crossLink) }),
      q(`query($id: ID!) { x: course(id: $id) { enrollmentsConnection { nodes { user { name } associatedUser { name } } } } }`, { id: String(courseA.id) }),
    ],
    allowed: () => ({ api: teacher.api, probe: { rest: `/api/v1/users/${victim.id}` } }),
  },
  {
    // The victim as a person of course A (courses/:id/users/:id), in a section the limited student does not see.
    type: 'person of a course',
    insiders: ['courseObserver', 'sectionLimited'],
    topIsParent: true,
    texts: () => [S.victim],
    rest: () => `/api/v1/courses/${courseA.id}/users/${victim.id}`,
    top: () => q(`query($id: ID!, $u: ID!) { x: course(id: $id) { user(id: $u) { name } } }`, { id: String(courseA.id), u: String(victim.id) }),
    nested: () => [
      q(`query($id: ID!) { x: course(id: $id) { usersConnection(first: 50) { nodes { name } } } }`, { id: String(courseA.id) }),
      q(`query($id: ID!, $u: ID!) { x: course(id: $id) { usersConnection(userIds: [$u]) { nodes { name enrollments { startAt } } } } }`, { id: String(courseA.id), u: String(victim.id) }),
    ],
    allowed: () => ({ api: teacher.api, probe: { rest: `/api/v1/courses/${courseA.id}/users/${victim.id}` } }),
  },
  {
    type: 'people of a course',
    insiders: ['courseObserver', 'sectionLimited'],
    listFor: ['sectionLimited'],
    texts: () => [S.victim],
    rest: () => `/api/v1/courses/${courseA.id}/users?per_page=100&include[]=enrollments`,
    nested: () => [q(`query($id: ID!) { x: course(id: $id) { usersConnection(first: 100, searchTerm: "${S.victim.slice(0, 12)}") { nodes { name } } } }`, { id: String(courseA.id) })],
    allowed: () => ({ api: teacher.api, probe: { rest: `/api/v1/courses/${courseA.id}/search_users?per_page=100` } }),
  },
  {
    // The victim's missing submissions: theirs and their linked observers' to read, nobody else's.
    type: 'missing submissions',
    insiders: ['classmate', 'courseObserver', 'sectionLimited'],
    texts: () => [S.overdue],
    rest: () => `/api/v1/users/${victim.id}/missing_submissions`,
    top: () => q(`query($u: ID!) { x: missingSubmissions(userId: $u) { nodes { assignment { name } } } }`, { u: String(victim.id) }),
    allowed: () => ({ api: victim.api, probe: { rest: '/api/v1/users/self/missing_submissions' } }),
  },
  {
    type: 'group category',
    insiders: ['courseObserver'],
    texts: () => [S.category],
    rest: () => `/api/v1/group_categories/${ids.category}`,
    top: () => q(`query($id: ID!) { x: groupSet(id: $id) { name } }`, { id: String(ids.category) }),
    node: () => ({ type: 'GroupSet', id: n('category') }),
    nested: () => [
      q(`query($id: ID!) { x: legacyNode(type: Group, _id: $id) { ... on Group { groupCategory { name } } } }`, { id: String(ids.group) }),
      q(`query($id: ID!) { x: groupSetsConnection(contextType: "Course", contextId: $id) { nodes { name } } }`, { id: String(courseA.id) }),
    ],
    allowed: () => ({ api: teacher.api, probe: { rest: `/api/v1/group_categories/${ids.category}` } }),
  },
  {
    type: 'group',
    insiders: ['courseObserver'],
    texts: () => [S.group, S.groupNote],
    rest: () => `/api/v1/groups/${ids.group}`,
    top: () => q(`query($id: ID!) { x: group(id: $id) { name description } }`, { id: String(ids.group) }),
    node: () => ({ type: 'Group', id: n('group') }),
    nested: () => [
      q(`query($id: ID!) { x: groupSet(id: $id) { groupsConnection { nodes { name description } } } }`, { id: String(ids.category) }),
      q(`query($id: ID!) { x: legacyNode(type: GroupMembership, _id: $id) { ... on GroupMembership { group { name description } } } }`, { id: String(ids.membership) }),
      q(`query($id: ID!) { x: contextGroupsConnection(contextType: "Course", contextId: $id) { nodes { name description } } }`, { id: String(courseA.id) }),
      q(`{ x: viewerGroupsConnection { nodes { name description } } }`),
    ],
    allowed: () => ({ api: teacher.api, probe: { rest: `/api/v1/groups/${ids.group}` } }),
  },
  {
    type: 'group membership',
    insiders: ['classmate', 'courseObserver'],
    texts: () => [S.group, S.victim],
    rest: () => `/api/v1/groups/${ids.group}/memberships/${ids.membership}`,
    top: () => q(`query($g: ID!, $m: ID!) { x: groupMembership(groupId: $g, membershipId: $m) { workflowState user { name } group { name } } }`, { g: String(ids.group), m: String(ids.membership) }),
    node: () => ({ type: 'GroupMembership', id: n('membership') }),
    nested: () => [
      q(`query($id: ID!) { x: groupMembershipsConnection(groupId: $id) { nodes { user { name } group { name } } } }`, { id: String(ids.group) }),
      q(`query($id: ID!) { x: legacyNode(type: Group, _id: $id) { ... on Group { membershipsConnection { nodes { user { name } } } } } }`, { id: String(ids.group) }),
    ],
    allowed: () => ({ api: teacher.api, probe: q(`query($g: ID!, $m: ID!) { x: groupMembership(groupId: $g, membershipId: $m) { user { name } group { name } } }`, { g: String(ids.group), m: String(ids.membership) }) }),
  },
  {
    type: 'module',
    texts: () => [S.module],
    rest: () => `/api/v1/courses/${courseA.id}/modules/${ids.module}`,
    top: () => q(`query($c: ID!, $id: ID!) { x: module(courseId: $c, id: $id) { name } }`, { c: String(courseA.id), id: String(ids.module) }),
    node: () => ({ type: 'Module', id: n('module') }),
    nested: () => [q(`query($c: ID!) { x: modulesConnection(courseId: $c) { nodes { name } } }`, { c: String(courseA.id) })],
    allowed: () => ({ api: teacher.api, probe: { rest: `/api/v1/courses/${courseA.id}/modules/${ids.module}` } }),
  },
  {
    type: 'module item',
    texts: () => [S.item],
    rest: () => `/api/v1/courses/${courseA.id}/modules/${ids.module}/items/${ids.item}`,
    top: () => q(`query($c: ID!, $m: ID!, $id: ID!) { x: moduleItem(courseId: $c, moduleId: $m, id: $id) { title } }`, { c: String(courseA.id), m: String(ids.module), id: String(ids.item) }),
    node: () => ({ type: 'ModuleItem', id: n('item') }),
    nested: () => [
      q(`query($id: ID!) { x: legacyNode(type: Module, _id: $id) { ... on Module { items { title } } } }`, { id: String(ids.module) }),
      q(`query($c: ID!, $m: ID!) { x: moduleItemsConnection(courseId: $c, moduleId: $m) { nodes { title } } }`, { c: String(courseA.id), m: String(ids.module) }),
    ],
    allowed: () => ({ api: teacher.api, probe: { rest: `/api/v1/courses/${courseA.id}/modules/${ids.module}/items/${ids.item}` } }),
  },
  {
    type: 'assignment',
    texts: () => [S.assignment],
    rest: () => `/api/v1/courses/${courseA.id}/assignments/${ids.assignment}`,
    top: () => q(`query($id: ID!) { x: assignment(id: $id) { name } }`, { id: String(ids.assignment) }),
    node: () => ({ type: 'Assignment', id: n('assignment') }),
    nested: () => [
      q(`query($id: ID!) { x: course(id: $id) { assignmentsConnection { nodes { name } } } }`, { id: String(courseA.id) }),
      q(`query($id: ID!) { x: legacyNode(type: Submission, _id: $id) { ... on Submission { assignment { name } } } }`, { id: String(ids.submission) }),
    ],
    allowed: () => ({ api: teacher.api, probe: { rest: `/api/v1/courses/${courseA.id}/assignments/${ids.assignment}` } }),
  },
  {
    type: 'submission',
    insiders: ['classmate', 'courseObserver'],
    texts: () => [S.essay],
    rest: () => `/api/v1/courses/${courseA.id}/assignments/${ids.assignment}/submissions/${victim.id}`,
    top: () => q(`query($a: ID!, $u: ID!) { x: submission(assignmentId: $a, userId: $u) { body } }`, { a: String(ids.assignment), u: String(victim.id) }),
    node: () => ({ type: 'Submission', id: n('submission') }),
    nested: () => [q(`query($id: ID!) { x: legacyNode(type: Assignment, _id: $id) { ... on Assignment { submissionsConnection { nodes { body } } } } }`, { id: String(ids.assignment) })],
    allowed: () => ({ api: teacher.api, probe: { rest: `/api/v1/courses/${courseA.id}/assignments/${ids.assignment}/submissions/${victim.id}` } }),
  },
  {
    type: 'quiz',
    texts: () => [S.quiz],
    rest: () => `/api/v1/courses/${courseA.id}/quizzes/${ids.quiz}`,
    top: () => q(`query($id: ID!) { x: quiz(id: $id) { title } }`, { id: String(ids.quiz) }),
    node: () => ({ type: 'Quiz', id: n('quiz') }),
    nested: () => [
      q(`query($id: ID!) { x: course(id: $id) { quizzesConnection { nodes { title } } } }`, { id: String(courseA.id) }),
      q(`query($id: ID!) { x: legacyNode(type: QuizSubmission, _id: $id) { ... on QuizSubmission { quiz { title } } } }`, { id: String(ids.quizSubmission) }),
    ],
    allowed: () => ({ api: teacher.api, probe: { rest: `/api/v1/courses/${courseA.id}/quizzes/${ids.quiz}` } }),
  },
  {
    type: 'quiz submission',
    insiders: ['classmate', 'courseObserver'],
    texts: () => [S.quiz, S.victim],
    rest: () => `/api/v1/courses/${courseA.id}/quizzes/${ids.quiz}/submissions/${ids.quizSubmission}`,
    top: () => q(`query($qz: ID!, $id: ID!) { x: quizSubmission(quizId: $qz, id: $id) { attempt quiz { title } user { name } } }`, { qz: String(ids.quiz), id: String(ids.quizSubmission) }),
    node: () => ({ type: 'QuizSubmission', id: n('quizSubmission') }),
    nested: () => [q(`query($id: ID!) { x: legacyNode(type: Quiz, _id: $id) { ... on Quiz { submissionsConnection { nodes { user { name } } } } } }`, { id: String(ids.quiz) })],
    allowed: () => ({ api: teacher.api, probe: q(`query($qz: ID!, $id: ID!) { x: quizSubmission(quizId: $qz, id: $id) { quiz { title } user { name } } }`, { qz: String(ids.quiz), id: String(ids.quizSubmission) }) }),
  },
  {
    type: 'quiz extension',
    insiders: ['classmate', 'courseObserver'],
    topIsParent: true,
    texts: () => [S.victim],
    top: () => q(`query($id: ID!) { x: quiz(id: $id) { extensions { extraAttempts user { name } } } }`, { id: String(ids.quiz) }),
    nested: () => [q(`query($id: ID!) { x: legacyNode(type: Quiz, _id: $id) { ... on Quiz { extensions { user { name } } } } }`, { id: String(ids.quiz) })],
    allowed: () => ({ api: teacher.api, probe: q(`query($id: ID!) { x: quiz(id: $id) { extensions { user { name } } } }`, { id: String(ids.quiz) }) }),
  },
  {
    type: 'page',
    texts: () => [S.page, S.pageBody],
    rest: () => `/api/v1/courses/${courseA.id}/pages/${ids.pageUrl}`,
    top: () => q(`query($c: ID!, $u: String!) { x: page(courseId: $c, urlOrId: $u) { title body } }`, { c: String(courseA.id), u: String(ids.pageUrl) }),
    node: () => ({ type: 'Page', id: n('page') }),
    nested: () => [
      q(`query($id: ID!) { x: course(id: $id) { pagesConnection { nodes { title body } } } }`, { id: String(courseA.id) }),
      q(`query($id: ID!) { x: legacyNode(type: ModuleItem, _id: $id) { ... on ModuleItem { content { ... on Page { title body } } } } }`, { id: String(ids.pageItem) }),
    ],
    allowed: () => ({ api: teacher.api, probe: { rest: `/api/v1/courses/${courseA.id}/pages/${ids.pageUrl}` } }),
  },
  {
    type: 'discussion topic',
    texts: () => [S.topic, S.topicBody],
    rest: () => `/api/v1/courses/${courseA.id}/discussion_topics/${ids.topic}`,
    top: () => q(`query($id: ID!) { x: discussionTopic(id: $id) { title message } }`, { id: String(ids.topic) }),
    node: () => ({ type: 'Discussion', id: n('topic') }),
    nested: () => [
      q(`query($c: ID!) { x: discussionTopics(contextType: "Course", contextId: $c) { nodes { title message } } }`, { c: String(courseA.id) }),
      q(`query($id: ID!) { x: course(id: $id) { discussionsConnection { nodes { title message } } } }`, { id: String(courseA.id) }),
    ],
    allowed: () => ({ api: teacher.api, probe: { rest: `/api/v1/courses/${courseA.id}/discussion_topics/${ids.topic}` } }),
  },
  {
    type: 'discussion entry',
    texts: () => [S.entry],
    rest: () => `/api/v1/courses/${courseA.id}/discussion_topics/${ids.topic}/entries`,
    node: () => ({ type: 'DiscussionEntry', id: n('entry') }),
    nested: () => [
      q(`query($id: ID!) { x: legacyNode(type: Discussion, _id: $id) { ... on Discussion { entriesConnection { nodes { message author { name } } } } } }`, { id: String(ids.topic) }),
      q(`query($id: ID!, $e: ID!) { x: discussionTopic(id: $id) { entry(id: $e) { message } } }`, { id: String(ids.topic), e: String(ids.entry) }),
    ],
    allowed: () => ({ api: teacher.api, probe: { rest: `/api/v1/courses/${courseA.id}/discussion_topics/${ids.topic}/entries` } }),
  },
  {
    type: 'file',
    texts: () => [S.file],
    rest: () => `/api/v1/files/${ids.file}`,
    top: () => q(`query($id: ID!) { x: file(id: $id) { displayName } }`, { id: String(ids.file) }),
    node: () => ({ type: 'File', id: n('file') }),
    nested: () => [q(`query($id: ID!) { x: legacyNode(type: Group, _id: $id) { ... on Group { filesConnection { nodes { displayName } } } } }`, { id: String(ids.group) })],
    allowed: () => ({ api: teacher.api, probe: { rest: `/api/v1/files/${ids.file}` } }),
  },
  {
    type: 'planner note',
    insiders: ['classmate', 'courseObserver'],
    texts: () => [S.note],
    rest: () => `/api/v1/planner_notes/${ids.note}`,
    top: () => q(`query($id: ID!) { x: plannerNote(id: $id) { title } }`, { id: String(ids.note) }),
    node: () => ({ type: 'PlannerNote', id: n('note') }),
    nested: () => [q(`query($u: ID!) { x: plannerItems(userId: $u, startDate: "2035-01-01", endDate: "2035-03-01") { nodes { plannable { title } } } }`, { u: String(victim.id) })],
    allowed: () => ({ api: victim.api, probe: { rest: `/api/v1/planner_notes/${ids.note}` } }),
  },
  {
    type: 'planner override',
    insiders: ['classmate', 'courseObserver'],
    texts: () => [`"id":${ids.override},`, `"_id":"${ids.override}"`],
    rest: () => `/api/v1/planner/overrides/${ids.override}`,
    top: () => q(`query($id: ID!) { x: plannerOverride(id: $id) { _id markedComplete } }`, { id: String(ids.override) }),
    node: () => ({ type: 'PlannerOverride', id: n('override') }),
    allowed: () => ({ api: victim.api, probe: q(`query($id: ID!) { x: plannerOverride(id: $id) { _id markedComplete } }`, { id: String(ids.override) }) }),
  },
  {
    type: 'assignment event',
    texts: () => [S.assignment],
    rest: () => `/api/v1/calendar_events/assignment_${ids.assignment}`,
    top: () => q(`query($id: ID!) { x: assignmentEvent(id: $id) { title } }`, { id: `assignment_${ids.assignment}` }),
    nested: () => [
      q(`query($c: [String!]) { x: assignmentEvents(contextCodes: $c, allEvents: true, first: 50) { nodes { title assignment { name } } } }`, { c: [`course_${courseA.id}`] }),
    ],
    allowed: () => ({ api: teacher.api, probe: { rest: `/api/v1/calendar_events/assignment_${ids.assignment}` } }),
  },
  {
    type: 'calendar event (course)',
    texts: () => [S.courseEvent],
    rest: () => `/api/v1/calendar_events/${ids.courseEvent}`,
    top: () => q(`query($id: ID!) { x: calendarEvent(id: $id) { title } }`, { id: String(ids.courseEvent) }),
    node: () => ({ type: 'CalendarEvent', id: n('courseEvent') }),
    nested: () => [q(`query($c: [String!]) { x: calendarEvents(contextCodes: $c, allEvents: true) { nodes { title } } }`, { c: [`course_${courseA.id}`] })],
    allowed: () => ({ api: victim.api, probe: { rest: `/api/v1/calendar_events/${ids.courseEvent}` } }),
  },
  {
    type: 'calendar event (user)',
    insiders: ['classmate', 'courseObserver'],
    texts: () => [S.userEvent],
    rest: () => `/api/v1/calendar_events/${ids.userEvent}`,
    top: () => q(`query($id: ID!) { x: calendarEvent(id: $id) { title } }`, { id: String(ids.userEvent) }),
    node: () => ({ type: 'CalendarEvent', id: n('userEvent') }),
    nested: () => [
      q(`query($c: [String!]) { x: calendarEvents(contextCodes: $c, allEvents: true) { nodes { title } } }`, { c: [`user_${victim.id}`] }),
      q(`query($u: ID!) { x: plannerItems(userId: $u, startDate: "2035-01-01", endDate: "2035-03-01") { nodes { plannable { title } } } }`, { u: String(victim.id) }),
    ],
    allowed: () => ({ api: victim.api, probe: { rest: `/api/v1/calendar_events/${ids.userEvent}` } }),
  },
  {
    type: 'blackout date',
    texts: () => [S.blackout],
    rest: () => `/api/v1/courses/${courseA.id}/blackout_dates/${ids.blackout}`,
    top: () => q(`query($id: ID!, $c: ID!) { x: blackoutDate(id: $id, contextType: "Course", contextId: $c) { eventTitle } }`, { id: String(ids.blackout), c: String(courseA.id) }),
    node: () => ({ type: 'BlackoutDate', id: n('blackout') }),
    nested: () => [
      q(`query($c: ID!) { x: blackoutDates(contextType: "Course", contextId: $c) { eventTitle } }`, { c: String(courseA.id) }),
      q(`query($id: ID!) { x: legacyNode(type: Course, _id: $id) { ... on Course { pacingBlackoutDates { eventTitle } } } }`, { id: String(courseA.id) }),
    ],
    allowed: () => ({ api: teacher.api, probe: { rest: `/api/v1/courses/${courseA.id}/blackout_dates/${ids.blackout}` } }),
  },
  {
    type: 'tool proxy',
    insiders: ['classmate', 'courseObserver'],
    texts: () => [S.tool],
    rest: () => `/api/v1/accounts/self/tool_proxies/${ids.tool}`,
    top: () => q(`query($id: ID!) { x: toolProxy(id: $id) { name } }`, { id: String(ids.tool) }),
    node: () => ({ type: 'ToolProxy', id: n('tool') }),
    nested: () => [q(`{ x: toolProxiesConnection(accountId: "1") { nodes { name } } }`)],
    allowed: () => ({ api: admin.api, probe: { rest: `/api/v1/accounts/self/tool_proxies/${ids.tool}` } }),
  },
  {
    type: 'webhook subscription',
    insiders: ['classmate', 'courseObserver'],
    texts: () => [S.hook],
    rest: () => `/api/lti/subscriptions/${ids.hook}`,
    top: () => q(`query($id: ID!) { x: webhookSubscription(id: $id) { id transportMetadata { url } } }`, { id: String(ids.hook) }),
    nested: () => [
      q(`query($id: ID!) { x: legacyNode(type: ToolProxy, _id: $id) { ... on ToolProxy { webhookSubscriptions { nodes { transportMetadata { url } } } } } }`, { id: String(ids.tool) }),
      q(`{ x: webhookSubscriptions { nodes { transportMetadata { url } } } }`),
    ],
    allowed: () => ({ api: admin.api, probe: q(`query($id: ID!) { x: toolProxy(id: $id) { webhookSubscriptions { nodes { transportMetadata { url } } } } }`, { id: String(ids.tool) }) }),
  },
  {
    type: 'error report',
    insiders: ['classmate', 'courseObserver'],
    texts: () => [S.report],
    top: () => q(`query($id: ID!) { x: errorReport(id: $id) { subject comments user { name } } }`, { id: String(ids.report) }),
    node: () => ({ type: 'ErrorReport', id: n('report') }),
    nested: () => [q(`{ x: errorReportsConnection { nodes { subject } } }`)],
    allowed: () => ({ api: admin.api, probe: q(`query($id: ID!) { x: errorReport(id: $id) { subject } }`, { id: String(ids.report) }) }),
  },
];

async function ok(res: Promise<{ status: number; text: string; body: any }>, what: string): Promise<any> {
  const r = await res;
  if (r.status >= 300) throw new Error(`${what} failed: ${r.status} ${r.text}`);
  return r.body;
}

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  [teacher, victim, admin] = await Promise.all([world.user('Tess Teacher'), world.user(S.victim), world.user('Abe Admin')]);
  await makeAccountAdmin(server, admin.id);
  courseA = await world.course({ name: S.course });
  ids.section = (await world.section(courseA.id, S.section)).id;
  await world.enroll(courseA.id, teacher.id, 'TeacherEnrollment');
  ids.enrollment = (await world.enroll(courseA.id, victim.id, 'StudentEnrollment', { sectionId: n('section') })).id;

  // The callers: nobody; a student, teacher and linked observer of course B.
  const courseB = await world.course({ name: 'Other Course' });
  const [outsider, otherStudent, otherTeacher, unlinkedObserver] = await Promise.all([
    world.user('Ozzie Outsider'),
    world.user('Bea Otherstudent'),
    world.user('Bo Otherteacher'),
    world.user('Obi Observer'),
  ]);
  await world.enroll(courseB.id, otherStudent.id, 'StudentEnrollment');
  await world.enroll(courseB.id, otherTeacher.id, 'TeacherEnrollment');
  await world.enroll(courseB.id, unlinkedObserver.id, 'ObserverEnrollment', { associatedUserId: otherStudent.id });
  const [classmate, courseObserver, observed] = await Promise.all([world.user('Cal Classmate'), world.user('Ora Observer'), world.user('Ned Observed')]);
  await world.enroll(courseA.id, classmate.id, 'StudentEnrollment');
  await world.enroll(courseA.id, observed.id, 'StudentEnrollment');
  await world.enroll(courseA.id, courseObserver.id, 'ObserverEnrollment', { associatedUserId: observed.id });
  // Section limits: a student limited to the default section; the victim's section holds an observer
  // link to the victim and a second enrollment of a default-section student; an observer in the
  // default section observes the victim.
  const [sectionLimited, watcher, bridge, crossObserver] = await Promise.all([world.user('Lim Sectioned'), world.user(S.watcher), world.user('Bri Bridge'), world.user('Cro Observer')]);
  await world.enroll(courseA.id, sectionLimited.id, 'StudentEnrollment', { limitToSection: true });
  ids.watcher = watcher.id;
  ids.bridge = bridge.id;
  ids.watch = (await ok(admin.api.post(`/api/v1/courses/${courseA.id}/enrollments`, { enrollment: { user_id: watcher.id, type: 'ObserverEnrollment', enrollment_state: 'active', course_section_id: ids.section, associated_user_id: victim.id, start_at: S.watchStart } }), 'watcher')).id;
  await world.enroll(courseA.id, bridge.id, 'StudentEnrollment');
  ids.bridgeOther = (await ok(admin.api.post(`/api/v1/courses/${courseA.id}/enrollments`, { enrollment: { user_id: bridge.id, type: 'StudentEnrollment', enrollment_state: 'active', course_section_id: ids.section, start_at: S.bridgeStart } }), 'bridge')).id;
  ids.crossLink = (await world.enroll(courseA.id, crossObserver.id, 'ObserverEnrollment', { associatedUserId: victim.id })).id;
  Object.assign(callers, { sectionLimited: sectionLimited.api, classmate: classmate.api, courseObserver: courseObserver.api, outsider: outsider.api, otherStudent: otherStudent.api, otherTeacher: otherTeacher.api, unlinkedObserver: unlinkedObserver.api, anonymous: server.as(null) });

  const base = `/api/v1/courses/${courseA.id}`;
  // Groups: a category and a group with the victim as member and leader.
  const cat = await createCategory(teacher.api, courseA.id, { name: S.category });
  ids.category = cat.id;
  const group = await createGroup(teacher.api, cat.id, { name: S.group, description: S.groupNote });
  ids.group = group.id;
  expectOk(await teacher.api.post(`/api/v1/groups/${group.id}/memberships`, { user_id: victim.id }), 'membership');
  ids.membership = expectOk(await victim.api.get(`/api/v1/groups/${group.id}/memberships/self`)).body.id;
  expectOk(await teacher.api.put(`/api/v1/groups/${group.id}`, { leader: { id: victim.id } }), 'leader');

  // Content.
  ids.assignment = (await ok(teacher.api.post(`${base}/assignments`, { assignment: { name: S.assignment, published: true, submission_types: ['online_text_entry'] } }), 'assignment')).id;
  await ok(teacher.api.post(`${base}/assignments`, { assignment: { name: S.overdue, due_at: '2024-01-01T00:00:00Z', published: true, submission_types: ['online_text_entry'] } }), 'overdue');
  ids.submission = (await ok(victim.api.post(`${base}/assignments/${ids.assignment}/submissions`, { submission: { submission_type: 'online_text_entry', body: S.essay } }), 'submission')).id;
  ids.quiz = (await ok(teacher.api.post(`${base}/quizzes`, { quiz: { title: S.quiz, published: true, points_possible: 10 } }), 'quiz')).id;
  const started = await ok(victim.api.post(`${base}/quizzes/${ids.quiz}/submissions`, {}), 'quiz submission');
  ids.quizSubmission = started.quiz_submissions[0].id;
  await ok(teacher.api.post(`${base}/quiz_extensions`, { quiz_extensions: [{ user_id: victim.id, extra_attempts: 2 }] }, { json: true }), 'quiz extension');
  const page = await ok(teacher.api.post(`${base}/pages`, { wiki_page: { title: S.page, body: `<p>${S.pageBody}</p>`, published: true } }), 'page');
  ids.page = page.page_id;
  ids.pageUrl = page.url;
  const topic = await ok(teacher.api.post(`${base}/discussion_topics`, { title: S.topic, message: `<p>${S.topicBody}</p>`, published: true }), 'topic');
  ids.topic = topic.id;
  ids.entry = (await ok(victim.api.post(`${base}/discussion_topics/${topic.id}/entries`, { message: S.entry }), 'entry')).id;
  ids.module = (await ok(teacher.api.post(`${base}/modules`, { module: { name: S.module, published: true } }), 'module')).id;
  ids.item = (await ok(teacher.api.post(`${base}/modules/${ids.module}/items`, { module_item: { type: 'SubHeader', title: S.item } }), 'item')).id;
  ids.pageItem = (await ok(teacher.api.post(`${base}/modules/${ids.module}/items`, { module_item: { type: 'Page', page_url: ids.pageUrl } }), 'page item')).id;
  ids.blackout = (await ok(teacher.api.post(`${base}/blackout_dates`, { blackout_date: { start_date: '2035-01-02', end_date: '2035-01-03', event_title: S.blackout } }), 'blackout')).blackout_date.id;

  // A file in the course (the three-step upload).
  const bytes = Buffer.from(`contents of ${S.file}`);
  const pre = await ok(teacher.api.post(`${base}/files`, { name: S.file, size: bytes.length, content_type: 'text/plain' }), 'preflight');
  const form = new FormData();
  for (const [k, v] of Object.entries(pre.upload_params as Record<string, string>)) form.append(k, v);
  form.append(pre.file_param, new Blob([bytes], { type: 'text/plain' }), S.file);
  const up = await fetch(pre.upload_url, { method: 'POST', body: form, redirect: 'manual' });
  if (up.status !== 201) throw new Error(`upload failed: ${up.status} ${await up.text()}`);
  ids.file = (await ok(teacher.api.request('GET', up.headers.get('location')!.replace(server.url, '')), 'confirm upload')).id;

  // The victim's personal planner objects.
  ids.note = (await ok(victim.api.post('/api/v1/planner_notes', { title: S.note, todo_date: '2035-02-01T12:00:00Z' }), 'note')).id;
  ids.courseEvent = (await ok(teacher.api.post('/api/v1/calendar_events', { calendar_event: { context_code: `course_${courseA.id}`, title: S.courseEvent, start_at: '2035-02-02T10:00:00Z' } }), 'course event')).id;
  ids.userEvent = (await ok(victim.api.post('/api/v1/calendar_events', { calendar_event: { context_code: `user_${victim.id}`, title: S.userEvent, start_at: '2035-02-03T10:00:00Z' } }), 'user event')).id;
  ids.override = (await ok(victim.api.post('/api/v1/planner/overrides', { plannable_type: 'assignment', plannable_id: ids.assignment, marked_complete: true }), 'override')).id;

  // LTI: a tool proxy with a subscription; an error report by the victim.
  const tool = await toolProxy(server, S.tool);
  ids.tool = tool.id;
  ids.hook = (await subscription(server, { tool, context: { type: 'course', id: courseA.id }, eventTypes: ['submission_created'], url: S.hook })).id;
  await ok(victim.api.post('/api/v1/error_reports', { error: { subject: S.report, comments: 'private details' } }), 'error report');
  const [row] = await server.app.ds.query('SELECT id FROM error_reports WHERE subject = ?', [S.report]);
  ids.report = Number(row.id);
});
afterAll(() => server.close());

/** The insiders a row refuses: a row that refuses a classmate refuses the section-limited student too. */
function insidersOf(row: Row): Insider[] {
  const listed = row.insiders ?? [];
  return listed.includes('classmate') && !listed.includes('sectionLimited') ? [...listed, 'sectionLimited'] : listed;
}

/** The response says nothing of the object: none of its texts appear. */
function expectNothingOf(row: Row, who: string, how: string, text: string) {
  for (const t of row.texts()) {
    if (text.includes(t)) throw new Error(`${row.type}: ${who} learned "${t}" through ${how}: ${text.slice(0, 400)}`);
  }
}

async function gql(api: Api, p: Probe) {
  const res = await api.request('POST', '/graphql', { query: p.query, variables: p.variables ?? {} }, { json: true });
  return res;
}

describe.each(ROWS.map((r) => [r.type, r] as const))('%s', (_type, row) => {
  it('is shown to someone allowed (the control that makes the refusals below meaningful)', async () => {
    const { api, probe } = row.allowed();
    const res = 'rest' in probe ? await api.get(probe.rest) : await gql(api, probe);
    expect({ status: res.status, text: res.status === 200 ? '' : res.text }).toEqual({ status: 200, text: '' });
    const found = row.texts().some((t) => res.text.includes(t));
    if (!found) throw new Error(`${row.type}: the allowed caller did not see it: ${res.text.slice(0, 400)}`);
  });

  if (row.rest) {
    it('REST GET refuses every outsider', async () => {
      for (const who of [...CALLERS, ...insidersOf(row)]) {
        const res = await callers[who].get(row.rest!());
        expect({ who, status: res.status, json: res.body !== undefined }).toEqual({ who, status: expect.any(Number), json: true });
        const listed = res.status === 200 && (row.listFor as Who[] | undefined)?.includes(who);
        if (![401, 403, 404].includes(res.status) && !listed) throw new Error(`${row.type}: ${who} got ${res.status} from GET ${row.rest!()}: ${res.text.slice(0, 300)}`);
        if (who === 'anonymous' && res.status === 403) throw new Error(`${row.type}: anonymous got 403 rather than 401/404`);
        expectNothingOf(row, who, `GET ${row.rest!()}`, res.text);
      }
    });
  }

  it('GraphQL (top-level, node, legacyNode, nested) gives outsiders nothing', async () => {
    const probes: { how: string; probe: Probe; mustBeNull?: boolean }[] = [];
    if (row.top) probes.push({ how: 'top-level query', probe: row.top() });
    if (row.node) {
      const { type, id } = row.node();
      probes.push({ how: 'node(id:)', probe: q(`query($id: ID!) { x: node(id: $id) { id } }`, { id: gid(type, id) }), mustBeNull: true });
      probes.push({ how: 'legacyNode', probe: q(`query($id: ID!) { x: legacyNode(type: ${type}, _id: $id) { id } }`, { id: String(id) }), mustBeNull: true });
      // Aliased lookups side by side with something the caller may see.
      probes.push({ how: 'aliased legacyNode', probe: q(`query($id: ID!) { me: viewer { _id } a: legacyNode(type: ${type}, _id: $id) { id } b: legacyNode(type: ${type}, _id: $id) { id } }`, { id: String(id) }) });
    }
    for (const p of row.nested?.() ?? []) probes.push({ how: 'nested field', probe: p });
    for (const who of [...CALLERS, ...insidersOf(row)]) {
      for (const { how, probe, mustBeNull } of probes) {
        const res = await gql(callers[who], probe);
        if (res.status >= 500) throw new Error(`${row.type}: ${who} got ${res.status} through ${how}`);
        expectNothingOf(row, who, how, res.text);
        // A probe the schema rejects would prove nothing: every probe must be a valid query.
        expect({ who, how, invalid: (res.body?.errors ?? []).some((e: any) => e.extensions?.code === 'GRAPHQL_VALIDATION_FAILED') }).toEqual({ who, how, invalid: false });
        const data = res.body?.data ?? null;
        // Either an error without data, or the object (and any alias of it) absent.
        if (mustBeNull || (how === 'top-level query' && !row.topIsParent)) expect({ who, how, x: data?.x ?? null }).toEqual({ who, how, x: null });
        if (how === 'aliased legacyNode' && data) expect({ who, a: data.a, b: data.b }).toEqual({ who, a: null, b: null });
      }
    }
  });
});
