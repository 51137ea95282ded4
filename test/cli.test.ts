import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { In } from 'typeorm';
import { AccountUser } from '../src/accounts/account-user.entity';
import { AccessToken } from '../src/auth/access-token.entity';
import { authenticate } from '../src/auth/authenticate';
import { CliError, CliSession, closeSession, createUser, demo, DEMO_WORLD, issueToken, openSession, runCli } from '../src/app/cli';
import { migrations } from '../migrations';
import { Config, loadConfig } from '../src/config';
import { Course } from '../src/courses/course.entity';
import { Enrollment } from '../src/courses/enrollment.entity';
import { CourseSection } from '../src/courses/section.entity';
import { buildServer } from '../src/app/server';
import { Pseudonym } from '../src/users/pseudonym.entity';
import { GroupCategory } from '../src/groups/group-category.entity';
import { GroupMembership } from '../src/groups/group-membership.entity';
import { Group } from '../src/groups/group.entity';
import { Attachment } from '../src/files/attachment.entity';
import { decryptSecret } from '../src/lti/lti-keys';
import { ToolProxy } from '../src/lti/tool-proxy.entity';
import { WebhookSubscription } from '../src/webhooks/webhook-subscription.entity';
import { Api } from './support/api';
import { testDatabase, TestDatabase } from './support/db';

/** Collects what a command prints. */
class Sink {
  text = '';
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

const logins = DEMO_WORLD.people.map((p) => p.login);

/** login → token from the table the demo prints (the token is the last column). */
function printedTokens(output: string): Map<string, string> {
  const tokens = new Map<string, string>();
  for (const line of output.split('\n')) {
    const cells = line.trim().split(/\s+/);
    const login = cells.find((c) => logins.includes(c));
    if (login) tokens.set(login, cells[cells.length - 1]);
  }
  return tokens;
}

async function demoCounts(session: CliSession) {
  const ds = session.app.ds;
  const courses = await ds.getRepository(Course).findBy({ courseCode: 'BIO101' });
  const courseIds = courses.map((c) => c.id);
  return {
    courses: courses.length,
    sections: await ds.getRepository(CourseSection).countBy({ courseId: In(courseIds) }),
    enrollments: await ds.getRepository(Enrollment).countBy({ courseId: In(courseIds) }),
    logins: await ds.getRepository(Pseudonym).countBy({ uniqueIdNormalized: In(logins) }),
    toolProxies: await ds.getRepository(ToolProxy).countBy({ name: 'Demo Plagiarism Tool' }),
    subscriptions: await ds.getRepository(WebhookSubscription).count(),
  };
}

describe('CLI commands in-process', () => {
  let db: TestDatabase;
  let config: Config;
  let session: CliSession;
  let firstRun: Sink;
  let filesDir: string;

  beforeAll(async () => {
    db = testDatabase();
    await db.ready?.();
    filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lms-demo-files-'));
    config = loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', FILES_DIR: filesDir });
    session = await openSession(config);
    firstRun = new Sink();
    await demo(session, firstRun);
  });
  afterAll(async () => {
    await closeSession(session);
    await db.drop();
    fs.rmSync(filesDir, { recursive: true, force: true });
  });

  const userIdOf = async (login: string) => (await session.app.ds.getRepository(Pseudonym).findOneByOrFail({ uniqueIdNormalized: login })).userId;

  describe('demo', () => {
    it('seeds one published course with a default section and two more', async () => {
      const courses = await session.app.ds.getRepository(Course).findBy({ courseCode: 'BIO101' });
      expect(courses).toHaveLength(1);
      const [course] = courses;
      expect(course).toMatchObject({
        name: 'Demo Biology 101',
        workflowState: 'available',
        accountId: session.installation.rootAccountId,
        rootAccountId: session.installation.rootAccountId,
      });
      expect(course.uuid).toMatch(/^[0-9a-f]{32}$/);
      const sections = await session.app.ds.getRepository(CourseSection).find({ where: { courseId: course.id }, order: { id: 'ASC' } });
      expect(sections.map((s) => [s.name, s.defaultSection, s.workflowState, s.rootAccountId])).toEqual([
        ['Demo Biology 101', true, 'active', course.rootAccountId],
        ['Section A', false, 'active', course.rootAccountId],
        ['Section B', false, 'active', course.rootAccountId],
      ]);
    });

    it('enrolls a teacher, three students over the sections and an observer of the first student, all active', async () => {
      const course = await session.app.ds.getRepository(Course).findOneByOrFail({ courseCode: 'BIO101' });
      const sectionIds = (await session.app.ds.getRepository(CourseSection).findBy({ courseId: course.id })).map((s) => s.id);
      const enrollments = await session.app.ds.getRepository(Enrollment).find({ where: { courseId: course.id }, order: { id: 'ASC' } });
      expect(enrollments).toHaveLength(5);
      expect(enrollments.map((e) => e.type).sort()).toEqual([
        'ObserverEnrollment',
        'StudentEnrollment',
        'StudentEnrollment',
        'StudentEnrollment',
        'TeacherEnrollment',
      ]);
      for (const e of enrollments) {
        expect(e.workflowState).toBe('active');
        expect(e.rootAccountId).toBe(course.rootAccountId);
        expect(sectionIds).toContain(e.courseSectionId);
      }
      const students = enrollments.filter((e) => e.type === 'StudentEnrollment');
      expect(new Set(students.map((e) => e.courseSectionId)).size).toBeGreaterThan(1);

      const student1 = await userIdOf('demo.student1@example.com');
      const observer = enrollments.find((e) => e.type === 'ObserverEnrollment')!;
      expect(observer.userId).toBe(await userIdOf('demo.observer@example.com'));
      expect(observer.associatedUserId).toBe(student1);
      expect(enrollments.filter((e) => e.associatedUserId != null)).toHaveLength(1);
    });

    it('prints a token per demo user that authenticates as that user', async () => {
      const tokens = printedTokens(firstRun.text);
      expect([...tokens.keys()].sort()).toEqual([...logins].sort());
      for (const [login, token] of tokens) {
        const auth = await authenticate(session.app.ds, session.app.tokenKey, token);
        expect(auth.kind).toBe('ok');
        if (auth.kind === 'ok') expect(auth.user.id).toBe(await userIdOf(login));
      }
    });

    it('prints tokens the REST API accepts', async () => {
      const server = await buildServer(session.app);
      try {
        await server.fastify.listen({ port: 0, host: '127.0.0.1' });
        const url = `http://127.0.0.1:${(server.fastify.server.address() as AddressInfo).port}`;
        const tokens = printedTokens(firstRun.text);
        const teacher = new Api(url, tokens.get('demo.teacher@example.com')!);
        const course = (await teacher.get('/api/v1/courses')).body.find((c: { course_code: string }) => c.course_code === 'BIO101');
        expect(course).toMatchObject({ name: 'Demo Biology 101', workflow_state: 'available' });
        const roster = await teacher.get(`/api/v1/courses/${course.id}/enrollments`);
        expect(roster.status).toBe(200);
        expect(roster.body).toHaveLength(5);
        const observer = new Api(url, tokens.get('demo.observer@example.com')!);
        const self = await observer.get('/api/v1/users/self');
        expect(self.body).toMatchObject({ name: 'Olly Observer' });
      } finally {
        await server.close();
      }
    });

    it('seeds a "Lab Teams" category whose two groups split the students, and a community group', async () => {
      const ds = session.app.ds;
      const course = await ds.getRepository(Course).findOneByOrFail({ courseCode: 'BIO101' });
      const lab = await ds.getRepository(GroupCategory).findOneByOrFail({ contextType: 'Course', contextId: course.id, name: 'Lab Teams' });
      const teams = await ds.getRepository(Group).find({ where: { groupCategoryId: lab.id }, order: { name: 'ASC' } });
      expect(teams.map((g) => [g.name, g.joinLevel, g.contextType, g.contextId])).toEqual([
        ['Lab Team 1', 'invitation_only', 'Course', course.id],
        ['Lab Team 2', 'invitation_only', 'Course', course.id],
      ]);
      const members = async (groupId: number) =>
        (await ds.getRepository(GroupMembership).find({ where: { groupId, workflowState: 'accepted' }, order: { userId: 'ASC' } })).map((m) => m.userId);
      const [s1, s2, s3] = [await userIdOf('demo.student1@example.com'), await userIdOf('demo.student2@example.com'), await userIdOf('demo.student3@example.com')];
      expect(await members(teams[0].id)).toEqual([s1, s2]);
      expect(await members(teams[1].id)).toEqual([s3]);
      const circle = await ds.getRepository(Group).findOneByOrFail({ name: 'Biology Study Circle' });
      expect(circle).toMatchObject({ contextType: 'Account', contextId: session.installation.rootAccountId, joinLevel: 'parent_context_auto_join' });
      expect((await ds.getRepository(GroupCategory).findOneByOrFail({ id: circle.groupCategoryId })).role).toBe('communities');
      expect(await members(circle.id)).toEqual([s1, s3]);
      expect((await ds.getRepository(GroupMembership).findOneByOrFail({ groupId: circle.id, userId: s1 })).moderator).toBe(true);
      // The API sees them: the first student's groups.
      const server = await buildServer(session.app);
      try {
        await server.fastify.listen({ port: 0, host: '127.0.0.1' });
        const url = `http://127.0.0.1:${(server.fastify.server.address() as AddressInfo).port}`;
        const student = new Api(url, printedTokens(firstRun.text).get('demo.student1@example.com')!);
        const mine = await student.get('/api/v1/users/self/groups');
        expect(mine.body.map((g: { name: string }) => g.name)).toEqual(['Biology Study Circle', 'Lab Team 1']);
      } finally {
        await server.close();
      }
    });

    it('seeds modules with items of every type, requirements, a prerequisite and the first student’s progress', async () => {
      const server = await buildServer(session.app);
      try {
        await server.fastify.listen({ port: 0, host: '127.0.0.1' });
        const url = `http://127.0.0.1:${(server.fastify.server.address() as AddressInfo).port}`;
        const tokens = printedTokens(firstRun.text);
        const teacher = new Api(url, tokens.get('demo.teacher@example.com')!);
        const student = new Api(url, tokens.get('demo.student1@example.com')!);
        const course = await session.app.ds.getRepository(Course).findOneByOrFail({ courseCode: 'BIO101' });
        const all = (await teacher.get(`/api/v1/courses/${course.id}/modules?include[]=items`)).body as any[];
        expect(all.map((m) => [m.name, m.published])).toEqual([
          ['Week 1: Getting Started', true],
          ['Week 2: Cells', true],
          ['Week 3: Genetics', false],
        ]);
        expect(all[1].prerequisite_module_ids).toEqual([all[0].id]);
        const types = new Set(all.flatMap((m) => m.items.map((i: { type: string }) => i.type)));
        expect([...types].sort()).toEqual(['Assignment', 'Discussion', 'ExternalTool', 'ExternalUrl', 'File', 'Page', 'Quiz', 'SubHeader']);
        expect(all[1].items.find((i: any) => i.type === 'Quiz').completion_requirement).toEqual({ type: 'min_score', min_score: 3 });
        // Week 2's graded discussion: a Discussion item scored through its assignment.
        const debateItem = all[1].items.find((i: any) => i.type === 'Discussion');
        expect(debateItem.completion_requirement).toEqual({ type: 'must_submit' });
        const debate = (await teacher.get(`/api/v1/courses/${course.id}/discussion_topics/${debateItem.content_id}`)).body;
        expect(debate.assignment).toMatchObject({ id: debate.assignment_id, name: debate.title, points_possible: 5, submission_types: ['discussion_topic'], published: true });
        // The first student viewed the welcome page and submitted the worksheet: Week 1 is started, Week 2 locked.
        const mine = (await student.get(`/api/v1/courses/${course.id}/modules?include[]=items`)).body as any[];
        expect(mine.map((m) => [m.name, m.state])).toEqual([
          ['Week 1: Getting Started', 'started'],
          ['Week 2: Cells', 'locked'],
        ]);
        const done = mine[0].items.filter((i: any) => i.completion_requirement?.completed).map((i: any) => i.type);
        expect(done).toEqual(['Page', 'Assignment']);
        const other = (await new Api(url, tokens.get('demo.student2@example.com')!).get(`/api/v1/courses/${course.id}/modules`)).body as any[];
        expect(other.map((m) => m.state)).toEqual(['unlocked', 'locked']);
        // The seeded file is available, its bytes under FILES_DIR.
        const file = all[0].items.find((i: any) => i.type === 'File');
        expect((await student.get(`/api/v1/files/${file.content_id}`)).body).toMatchObject({ display_name: 'lab-safety.txt', upload_status: 'success' });
        const stored = await session.app.ds.getRepository(Attachment).findOneByOrFail({ id: file.content_id });
        expect(fs.readFileSync(path.join(filesDir, stored.storageKey!), 'utf8')).toContain('Lab safety');
      } finally {
        await server.close();
      }
    });

    it('seeds dated content, notes and an override the first student sees on the planner', async () => {
      const server = await buildServer(session.app);
      try {
        await server.fastify.listen({ port: 0, host: '127.0.0.1' });
        const url = `http://127.0.0.1:${(server.fastify.server.address() as AddressInfo).port}`;
        const student = new Api(url, printedTokens(firstRun.text).get('demo.student1@example.com')!);
        const items = (await student.get('/api/v1/planner/items')).body as { plannable_type: string; plannable: { title: string }; planner_override: { marked_complete: boolean } | null }[];
        const titles = items.map((i) => `${i.plannable_type}:${i.plannable.title}`);
        expect(titles).toEqual(
          expect.arrayContaining([
            'assignment:Lab report: enzymes',
            'quiz:Practice quiz: cell parts',
            'wiki_page:Reading: membranes',
            'discussion_topic:Lab safety questions',
            'planner_note:Buy lab goggles',
            'planner_note:Draft the lab report intro',
          ]),
        );
        expect(items.find((i) => i.plannable_type === 'wiki_page')?.planner_override).toMatchObject({ marked_complete: true });
        const notes = (await student.get('/api/v1/planner_notes')).body as { title: string; linked_object_type?: string }[];
        expect(notes.map((n) => n.title)).toContain('Buy lab goggles');
        expect(notes.some((n) => n.linked_object_type === 'assignment')).toBe(true);
      } finally {
        await server.close();
      }
    });

    it('gives the third student a course quiz extension on every quiz of the course', async () => {
      const server = await buildServer(session.app);
      try {
        await server.fastify.listen({ port: 0, host: '127.0.0.1' });
        const url = `http://127.0.0.1:${(server.fastify.server.address() as AddressInfo).port}`;
        const teacher = new Api(url, printedTokens(firstRun.text).get('demo.teacher@example.com')!);
        const course = await session.app.ds.getRepository(Course).findOneByOrFail({ courseCode: 'BIO101' });
        const student3 = await userIdOf('demo.student3@example.com');
        const quizzes = (await teacher.get(`/api/v1/courses/${course.id}/quizzes`)).body as { id: number; title: string }[];
        expect(quizzes.length).toBeGreaterThanOrEqual(2);
        for (const quiz of quizzes) {
          const res = await teacher.graphql(`query($id: ID!) { quiz(id: $id) { extensions { userId extraAttempts extraTime manuallyUnlocked } } }`, { id: String(quiz.id) });
          expect([quiz.title, res.data.quiz.extensions]).toEqual([quiz.title, [{ userId: String(student3), extraAttempts: 1, extraTime: 15, manuallyUnlocked: false }]]);
        }
      } finally {
        await server.close();
      }
    });

    it('registers a plagiarism tool with a root-account subscription to every event at the demo receiver, printing its secret', async () => {
      const ds = session.app.ds;
      const [proxy] = await ds.getRepository(ToolProxy).find();
      expect(proxy).toMatchObject({ name: 'Demo Plagiarism Tool', contextType: 'Account', contextId: session.installation.rootAccountId, workflowState: 'active' });
      expect(proxy.capabilityList).toEqual(['vnd.instructure.webhooks.root_account.all']);
      const subs = await ds.getRepository(WebhookSubscription).find();
      expect(subs).toHaveLength(1);
      expect(subs[0]).toMatchObject({ toolProxyId: proxy.id, contextType: 'root_account', matchType: 'Account', matchId: session.installation.rootAccountId, format: 'live-event', transportType: 'https', transportUrl: 'https://127.0.0.1:4443/webhooks', state: 'Active' });
      expect(subs[0].eventTypeList.sort()).toEqual(['attachment_created', 'calendar_event_created', 'calendar_event_updated', 'grade_change', 'plagiarism_resubmit', 'quiz_submitted', 'submission_created', 'submission_updated']);
      // The guid and the (working) shared secret are printed, so a developer can try the JWT flow.
      expect(firstRun.text).toContain(`tool guid:     ${proxy.guid}`);
      expect(/shared secret: ([0-9a-f]{128})/.exec(firstRun.text)?.[1]).toBe(decryptSecret(session.app.tokenKey, proxy.sharedSecretEncrypted));
    });

    it('shows the admin token this run generated, since npm start will not', () => {
      expect(session.installation.generatedAdminToken).toBeTruthy();
      expect(firstRun.text).toContain(session.installation.generatedAdminToken!);
    });

    it('does not duplicate anything when run again, and issues fresh working tokens', async () => {
      const before = await demoCounts(session);
      expect(before).toEqual({ courses: 1, sections: 3, enrollments: 5, logins: 5, toolProxies: 1, subscriptions: 1 });
      const again = new Sink();
      const result = await demo(session, again);
      expect(result.alreadySeeded).toBe(true);
      expect(again.text).toContain('already seeded');
      expect(again.text).toContain('tool guid:');
      expect(again.text).not.toContain('shared secret:');
      expect(await demoCounts(session)).toEqual(before);
      const first = printedTokens(firstRun.text);
      const fresh = printedTokens(again.text);
      expect(fresh.size).toBe(5);
      for (const [login, token] of fresh) {
        expect(token).not.toBe(first.get(login));
        const auth = await authenticate(session.app.ds, session.app.tokenKey, token);
        expect(auth.kind === 'ok' && auth.user.id).toBe(await userIdOf(login));
      }
      expect(await session.app.ds.getRepository(AccessToken).countBy({ purpose: 'demo' })).toBe(10);
      // The admin token generated on installation is printed only once.
      expect(again.text).not.toContain(session.installation.generatedAdminToken!);
    });

    it('gives a demo seeded without the webhook tool one on the next run', async () => {
      // As a database seeded before the tool existed (or whose tool was deleted since).
      await session.app.ds.getRepository(ToolProxy).update({ name: 'Demo Plagiarism Tool' }, { workflowState: 'deleted' });
      await session.app.ds.getRepository(WebhookSubscription).update({ state: 'Active' }, { state: 'Deleted' });
      const again = new Sink();
      await demo(session, again);
      expect(again.text).toMatch(/shared secret: [0-9a-f]{128}/);
      expect(await session.app.ds.getRepository(ToolProxy).countBy({ workflowState: 'active' })).toBe(1);
      expect(await session.app.ds.getRepository(WebhookSubscription).countBy({ state: 'Active' })).toBe(1);
    });
  });

  describe('create-user', () => {
    it('creates a user with a login in the root account and prints its id as JSON', async () => {
      const out = new Sink();
      const created = await createUser(session, { name: 'Jane Doe', login: 'jane@example.com' }, out);
      expect(JSON.parse(out.text)).toMatchObject({ id: created.id });
      const login = await session.app.ds.getRepository(Pseudonym).findOneByOrFail({ userId: created.id });
      expect(login).toMatchObject({ accountId: session.installation.rootAccountId, uniqueId: 'jane@example.com', workflowState: 'active' });
      expect(await session.app.ds.getRepository(AccountUser).countBy({ userId: created.id })).toBe(0);
    });

    it('makes an admin of the root account with --admin', async () => {
      const created = await createUser(session, { name: 'Ada Admin', login: 'ada@example.com', admin: true }, new Sink());
      const admin = await session.app.ds.getRepository(AccountUser).findOneByOrFail({ userId: created.id });
      expect(admin).toMatchObject({ accountId: session.installation.rootAccountId, role: 'AccountAdmin', workflowState: 'active' });
    });

    it('refuses a duplicate login (case-insensitively) and creates nothing', async () => {
      const before = await session.app.ds.getRepository(Pseudonym).count();
      const out = new Sink();
      const attempt = createUser(session, { name: 'Other Jane', login: 'JANE@example.com' }, out);
      await expect(attempt).rejects.toBeInstanceOf(CliError);
      await expect(attempt).rejects.toThrow(/already exists/);
      expect(out.text).toBe('');
      expect(await session.app.ds.getRepository(Pseudonym).count()).toBe(before);
    });
  });

  describe('issue-token', () => {
    it('issues a token by login or id that authenticates, with purpose and expiry', async () => {
      const userId = await userIdOf('jane@example.com');
      const expires = new Date(Date.now() + 86_400_000);
      expires.setMilliseconds(0);
      const out = new Sink();
      const issued = await issueToken(session, { user: 'Jane@Example.com', purpose: 'scripts', expiresAt: expires.toISOString() }, out);
      expect(out.text.trim()).toBe(issued.plaintext);
      const auth = await authenticate(session.app.ds, session.app.tokenKey, issued.plaintext);
      expect(auth.kind).toBe('ok');
      if (auth.kind === 'ok') {
        expect(auth.user.id).toBe(userId);
        expect(auth.token.purpose).toBe('scripts');
        expect(auth.token.expiresAt?.getTime()).toBe(expires.getTime());
      }
      const byId = await issueToken(session, { user: String(userId) }, new Sink());
      expect(byId.userId).toBe(userId);
      expect((await authenticate(session.app.ds, session.app.tokenKey, byId.plaintext)).kind).toBe('ok');
    });

    it('refuses unknown users and bad expiry dates', async () => {
      await expect(issueToken(session, { user: 'nobody@example.com' }, new Sink())).rejects.toThrow(/No user with login/);
      await expect(issueToken(session, { user: '987654' }, new Sink())).rejects.toThrow(/No user with id/);
      await expect(issueToken(session, { user: 'jane@example.com', expiresAt: 'tomorrow' }, new Sink())).rejects.toThrow(/ISO 8601/);
      await expect(issueToken(session, { user: 'jane@example.com', expiresAt: '2001-01-01T00:00:00Z' }, new Sink())).rejects.toThrow(/in the past/);
    });
  });
});

/**
 * runCli opens and closes the database for every command, so it needs a database that outlives a
 * connection: a file for SQLite (the in-memory one would vanish), the per-file database for MySQL.
 */
function persistentDatabase(): TestDatabase {
  const db = testDatabase();
  if (db.kind === 'mysql') return db;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lms-cli-test-'));
  return { url: `sqlite:${path.join(dir, 'lms.sqlite')}`, kind: 'sqlite', drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

describe('runCli', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  const adminToken = `cli-admin-${randomBytes(12).toString('hex')}`;

  beforeAll(() => {
    db = persistentDatabase();
    env = { DATABASE_URL: db.url, LOG_LEVEL: 'silent', LMS_ADMIN_TOKEN: adminToken };
  });
  afterAll(() => db.drop());

  const run = async (...argv: string[]) => {
    const out = new Sink();
    const err = new Sink();
    const code = await runCli(argv, { out, err, env });
    return { code, out: out.text, err: err.text };
  };

  it('prints usage for help and for no arguments', async () => {
    for (const argv of [[], ['help'], ['--help']]) {
      const r = await run(...argv);
      expect(r.code).toBe(0);
      expect(r.out).toContain('Usage: npm run cli -- <command>');
    }
  });

  it('refuses unknown commands and options with exit code 1', async () => {
    expect(await run('frobnicate')).toMatchObject({ code: 1, err: expect.stringContaining('Unknown command "frobnicate"') });
    expect(await run('demo', '--frob')).toMatchObject({ code: 1, err: expect.stringContaining("Unknown option '--frob'") });
    expect(await run('create-user', '--name', 'No Login')).toMatchObject({ code: 1, err: expect.stringContaining('--login is required') });
  });

  it('prints configuration errors and exits 1', async () => {
    const err = new Sink();
    const code = await runCli(['migrate'], { out: new Sink(), err, env: { DATABASE_URL: 'postgres://nope/db' } });
    expect(code).toBe(1);
    expect(err.text).toContain('Invalid configuration');
    expect(err.text).toContain('DATABASE_URL');
  });

  it('migrates, then finds nothing pending', async () => {
    const first = await run('migrate');
    expect(first.code).toBe(0);
    expect(first.out).toContain(`Ran ${migrations.length} migration(s)`);
    expect(first.out).toContain('Foundation1732000000000');
    const second = await run('migrate');
    expect(second).toMatchObject({ code: 0, out: expect.stringContaining('No pending migrations') });
  });

  it('creates a user, refuses the same login again with exit code 1, and issues a token', async () => {
    const created = await run('create-user', '--name', 'Jane Doe', '--login', 'jane@example.com', '--admin');
    expect(created.code).toBe(0);
    const { id } = JSON.parse(created.out);
    expect(typeof id).toBe('number');
    const dup = await run('create-user', '--name', 'Jane Again', '--login', 'jane@example.com');
    expect(dup.code).toBe(1);
    expect(dup.err).toContain('already exists');
    expect(dup.out).toBe('');
    const token = await run('issue-token', '--user', String(id), '--purpose', 'ci');
    expect(token.code).toBe(0);
    expect(token.out.trim()).toMatch(/^[A-Za-z0-9]{64}$/);
  });

  it('mints a new site admin token with `issue-token --user admin` (README: a lost admin token)', async () => {
    const r = await run('issue-token', '--user', 'admin', '--purpose', 'replaces a lost admin token');
    expect(r.code).toBe(0);
    const token = r.out.trim();
    expect(token).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(token).not.toBe(adminToken);
    const session = await openSession(loadConfig(env));
    try {
      const auth = await authenticate(session.app.ds, session.app.tokenKey, token);
      expect(auth.kind).toBe('ok');
      if (auth.kind !== 'ok') return;
      expect(auth.token.purpose).toBe('replaces a lost admin token');
      const admin = await session.app.ds.getRepository(AccountUser).findOneByOrFail({ userId: auth.user.id, accountId: session.installation.rootAccountId });
      expect(admin).toMatchObject({ role: 'AccountAdmin', workflowState: 'active' });
      // The LMS_ADMIN_TOKEN one still works: minting another does not revoke it.
      expect((await authenticate(session.app.ds, session.app.tokenKey, adminToken)).kind).toBe('ok');
    } finally {
      await closeSession(session);
    }
  });

  it('seeds the demo once and re-prints its logins with fresh tokens on a second run', async () => {
    const first = await run('demo');
    expect(first.code).toBe(0);
    expect(first.out).toContain('Seeded the demo');
    expect(first.out).toContain('the admin token is the value of LMS_ADMIN_TOKEN');
    expect(first.out).not.toContain(adminToken);
    expect(first.out).toContain('shared secret:');
    const second = await run('demo');
    expect(second.code).toBe(0);
    expect(second.out).toContain('already seeded');
    expect(second.out).not.toContain('shared secret:');
    const a = printedTokens(first.out);
    const b = printedTokens(second.out);
    expect(a.size).toBe(5);
    expect(b.size).toBe(5);
    for (const login of logins) expect(b.get(login)).not.toBe(a.get(login));
  });
});
