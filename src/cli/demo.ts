import { EntityManager, Not } from 'typeorm';
import { AccessTokenService } from '../auth/access-token.service';
import { ADMIN_LOGIN } from '../app/bootstrap';
import { Course, CourseState } from '../courses/course.entity';
import { Enrollment, EnrollmentType } from '../courses/enrollment.entity';
import { CourseSection } from '../courses/section.entity';
import { transaction } from '../db/transaction';
import { User } from '../users/user.entity';
import { UserService } from '../users/user.service';
import { CliError, CliOutput, CliSession, describeDatabase, formatTable, println, serverBaseUrl, showGeneratedAdminToken } from './common';
import { findLogin } from './users';
import { blackoutDatesDemo } from '../blackout-dates/blackout-date.demo';
import { errorReportsDemo } from '../error-reports/error-report.demo';
import { groupsDemo } from '../groups/group.demo';
import { plannerDemo } from '../planner/planner.demo';
import { modulesDemo } from '../modules/module.demo';
import { quizExtensionsDemo } from '../quiz-extensions/quiz-extension.demo';
import { webhooksDemo } from '../webhooks/webhook.demo';
import { FileStore, fileStoreFor } from '../storage';

/**
 * The demo world: what `npm run demo` seeds so a newcomer can try the API at once. It is data, so a
 * later feature area extends it by adding to the definition below or by appending a DemoExtension.
 */
export interface DemoPerson {
  /** Stable key other entries (and extensions) refer to. */
  key: string;
  /** Label printed in the table. */
  role: string;
  enrollmentType: EnrollmentType;
  name: string;
  login: string;
  /** Name of one of `sections`, or null for the course's default section. */
  section: string | null;
  /** For observers: the key of the observed student. */
  observes?: string;
}

export interface DemoWorldDefinition {
  course: { name: string; courseCode: string };
  /** Sections besides the default one every course has. */
  sections: string[];
  /** In creation order; an observer must come after the student it observes. */
  people: DemoPerson[];
}

export const DEMO_TOKEN_PURPOSE = 'demo';

export const DEMO_WORLD: DemoWorldDefinition = {
  course: { name: 'Demo Biology 101', courseCode: 'BIO101' },
  sections: ['Section A', 'Section B'],
  people: [
    { key: 'teacher', role: 'teacher', enrollmentType: 'TeacherEnrollment', name: 'Tina Teacher', login: 'demo.teacher@example.com', section: null },
    { key: 'student1', role: 'student', enrollmentType: 'StudentEnrollment', name: 'Sam Student', login: 'demo.student1@example.com', section: 'Section A' },
    { key: 'student2', role: 'student', enrollmentType: 'StudentEnrollment', name: 'Sally Student', login: 'demo.student2@example.com', section: 'Section A' },
    { key: 'student3', role: 'student', enrollmentType: 'StudentEnrollment', name: 'Stan Student', login: 'demo.student3@example.com', section: 'Section B' },
    {
      key: 'observer',
      role: 'observer',
      enrollmentType: 'ObserverEnrollment',
      name: 'Olly Observer',
      login: 'demo.observer@example.com',
      // Observers sit in the section of the student they observe, as Canvas places them.
      section: 'Section A',
      observes: 'student1',
    },
  ],
};

/** What has been created, handed to extensions so they can hang their own rows off it. */
export interface SeededDemoWorld {
  course: Course;
  defaultSection: CourseSection;
  /** Extra sections by name. */
  sections: Map<string, CourseSection>;
  /** Users by DemoPerson key. */
  users: Map<string, User>;
  enrollments: Map<string, Enrollment>;
}

/** What an extension gets besides the world. */
export interface DemoContext {
  rootAccountId: number;
  /** The configured file store (FILES_DIR or the S3 bucket), for extensions that seed files with their bytes. */
  files?: FileStore;
  /** The server secret (app.tokenKey), for extensions that store secrets encrypted under it. */
  tokenKey: string;
}

/**
 * A later feature area (assignments, discussions…) seeds its demo rows here, inside the same
 * transaction. Lines an extension returns are printed after the logins table.
 */
export interface DemoExtension {
  name: string;
  seed(em: EntityManager, world: SeededDemoWorld, ctx: DemoContext): Promise<void | string[]>;
  /**
   * Optional: also run when the demo course exists already (a later `npm run demo`), so a database
   * seeded before the extension existed gains its rows. Must be idempotent.
   */
  reseed?(em: EntityManager, ctx: DemoContext): Promise<void | string[]>;
}

// Quiz extensions come after the demos that seed quizzes; webhooks last, so seeding raises no deliveries.
export const DEMO_EXTENSIONS: DemoExtension[] = [blackoutDatesDemo, errorReportsDemo, groupsDemo, plannerDemo, modulesDemo, quizExtensionsDemo, webhooksDemo];

export interface DemoRow {
  role: string;
  name: string;
  login: string;
  userId: number | null;
  /** Null when the user no longer exists (a re-run after someone deleted it). */
  token: string | null;
}

export interface DemoResult {
  alreadySeeded: boolean;
  courseId: number;
  rows: DemoRow[];
}

/** The live demo course: a course with the demo course code in the root account that is not deleted. */
function findDemoCourse(em: EntityManager, rootAccountId: number, def: DemoWorldDefinition): Promise<Course | null> {
  return em.getRepository(Course).findOne({
    where: { rootAccountId, courseCode: def.course.courseCode, workflowState: Not('deleted' as CourseState) },
    order: { id: 'ASC' },
  });
}

/** The user behind a demo login in the root account, if it exists and is not deleted. */
async function findDemoUser(em: EntityManager, rootAccountId: number, login: string): Promise<User | null> {
  const pseudonym = await findLogin(em, rootAccountId, login);
  if (!pseudonym) return null;
  const user = await em.getRepository(User).findOneBy({ id: pseudonym.userId });
  return user && user.workflowState !== 'deleted' ? user : null;
}

/** Creates the course, sections, users and enrollments as the REST services create them. */
export async function seedDemoWorld(em: EntityManager, rootAccountId: number, def: DemoWorldDefinition = DEMO_WORLD): Promise<SeededDemoWorld> {
  // As CourseService.create with offer=true, by an admin of the root account.
  const course = await em.getRepository(Course).save(
    Course.draft({ accountId: rootAccountId, rootAccountId, name: def.course.name, courseCode: def.course.courseCode, workflowState: 'available' }),
  );
  const sectionRepo = em.getRepository(CourseSection);
  const newSection = (name: string, isDefault: boolean) => sectionRepo.save(CourseSection.draft(course, name, isDefault));
  const defaultSection = await newSection(course.name, true);
  const sections = new Map<string, CourseSection>();
  for (const name of def.sections) sections.set(name, await newSection(name, false));

  const users = new Map<string, User>();
  const enrollments = new Map<string, Enrollment>();
  const enrollmentRepo = em.getRepository(Enrollment);
  for (const person of def.people) {
    // A demo login left over from an earlier seed (its course deleted since) is reused, not duplicated.
    let user = await findDemoUser(em, rootAccountId, person.login);
    if (!user) {
      if (await findLogin(em, rootAccountId, person.login)) {
        throw new CliError(`The demo login "${person.login}" belongs to a deleted user; remove that login or change the demo world.`);
      }
      user = (await UserService.insert(em, { accountId: rootAccountId, name: person.name, uniqueId: person.login })).user;
    }
    users.set(person.key, user);

    let section = defaultSection;
    if (person.section != null) {
      const found = sections.get(person.section);
      if (!found) throw new Error(`demo world: ${person.key} is in unknown section "${person.section}"`);
      section = found;
    }
    let associatedUserId: number | null = null;
    if (person.observes) {
      const observee = users.get(person.observes);
      if (!observee) throw new Error(`demo world: ${person.key} observes "${person.observes}", who must be listed before it`);
      associatedUserId = observee.id;
    }
    // As EnrollmentService.create with enrollment_state=active.
    const enrollment = await enrollmentRepo.save(
      enrollmentRepo.create({
        courseId: course.id,
        userId: user.id,
        type: person.enrollmentType,
        courseSectionId: section.id,
        rootAccountId: course.rootAccountId,
        associatedUserId,
        workflowState: 'active',
        limitPrivilegesToCourseSection: false,
        startAt: null,
        endAt: null,
      }),
    );
    enrollments.set(person.key, enrollment);
  }
  return { course, defaultSection, sections, users, enrollments };
}

/**
 * Seeds the demo world into the session's database, or finds it already there, then issues a fresh
 * token (purpose "demo") for each demo user and prints logins and tokens.
 */
export async function demo(session: CliSession, out: CliOutput, def: DemoWorldDefinition = DEMO_WORLD, extensions: DemoExtension[] = DEMO_EXTENSIONS): Promise<DemoResult> {
  const rootAccountId = session.installation.rootAccountId;
  const { tokenKey } = session.app;
  const result = await transaction(session.app.ds, async (em): Promise<DemoResult & { course: Course; notes: string[] }> => {
    let course = await findDemoCourse(em, rootAccountId, def);
    const alreadySeeded = course != null;
    const users = new Map<string, User | null>();
    const notes: string[] = [];
    const ctx: DemoContext = { rootAccountId, files: fileStoreFor(session.config), tokenKey };
    if (course) {
      for (const p of def.people) users.set(p.key, await findDemoUser(em, rootAccountId, p.login));
      for (const ext of extensions) if (ext.reseed) notes.push(...((await ext.reseed(em, ctx)) ?? []));
    } else {
      const world = await seedDemoWorld(em, rootAccountId, def);
      for (const ext of extensions) notes.push(...((await ext.seed(em, world, ctx)) ?? []));
      course = world.course;
      for (const [key, user] of world.users) users.set(key, user);
    }
    const rows: DemoRow[] = [];
    for (const p of def.people) {
      const user = users.get(p.key) ?? null;
      const token = user ? (await AccessTokenService.issue(em, tokenKey, user.id, DEMO_TOKEN_PURPOSE)).plaintext : null;
      rows.push({ role: p.role, name: user?.name ?? p.name, login: p.login, userId: user?.id ?? null, token });
    }
    return { alreadySeeded, courseId: course.id, course, rows, notes };
  });

  const { course } = result;
  showGeneratedAdminToken(session, out);
  if (result.alreadySeeded) {
    println(out, `The demo is already seeded: course "${course.name}" (${course.courseCode}), id ${course.id}, in ${describeDatabase(session.config.DATABASE_URL)}.`);
    println(out, `Its logins are below, with fresh tokens (purpose "${DEMO_TOKEN_PURPOSE}").`);
  } else {
    println(out, `Seeded the demo into ${describeDatabase(session.config.DATABASE_URL)}:`);
    println(out, `  course "${course.name}" (${course.courseCode}), id ${course.id}, published`);
    println(out, `  sections: "${course.name}" (default), ${def.sections.map((s) => `"${s}"`).join(', ')}`);
    println(out, `  ${def.people.length} users, all enrollments active`);
  }
  println(out);
  println(
    out,
    formatTable(
      ['ROLE', 'NAME', 'LOGIN', 'USER ID', 'TOKEN'],
      result.rows.map((r) => [r.role, r.name, r.login, r.userId == null ? '-' : String(r.userId), r.token ?? '(user missing)']),
    ),
  );
  println(out);
  println(out, 'Tokens are shown only now (run the demo again for fresh ones). Try:');
  println(out, `  npm start   # in another terminal, then:`);
  println(out, `  curl -H "Authorization: Bearer <token>" ${serverBaseUrl(session.config)}/api/v1/courses/${course.id}/enrollments`);
  println(out);
  if (session.config.LMS_ADMIN_TOKEN) println(out, `Site admin (login "${ADMIN_LOGIN}"): the admin token is the value of LMS_ADMIN_TOKEN.`);
  else if (session.installation.generatedAdminToken) println(out, `Site admin (login "${ADMIN_LOGIN}"): the admin token is the one printed above on this run.`);
  else println(out, `Site admin (login "${ADMIN_LOGIN}"): the admin token was printed on the first \`npm start\` (or by the CLI command that first set up this database).`);
  if (result.notes.length) {
    println(out);
    for (const line of result.notes) println(out, line);
  }
  return { alreadySeeded: result.alreadySeeded, courseId: result.courseId, rows: result.rows };
}
