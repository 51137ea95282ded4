import { EntityManager, Not } from 'typeorm';
import { AccessTokenService } from '../auth/access-token.service';
import { ADMIN_LOGIN } from '../auth/installation';
import { Course, CourseState } from '../courses/course.entity';
import { Enrollment } from '../courses/enrollment.entity';
import { CourseSection } from '../courses/section.entity';
import { transaction } from '../db/transaction';
import { User } from '../users/user.entity';
import { UserService } from '../users/user.service';
import { CliError, CliOutput, CliSession, describeDatabase, formatTable, println, serverBaseUrl, showGeneratedAdminToken } from './common';
import { progress } from './progress';
import { findLogin } from './users';
import { fileStoreFor } from '../storage';
import { DEMO_TOKEN_PURPOSE, DEMO_WORLD, type DemoContext, type DemoExtension, type DemoWorldDefinition, type SeededDemoWorld } from '../courses/demo-world';

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
        sortableName: user.sortableName,
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
export async function seedDemo(session: CliSession, out: CliOutput, def: DemoWorldDefinition, extensions: DemoExtension[]): Promise<DemoResult> {
  const rootAccountId = session.installation.rootAccountId;
  const { tokenKey } = session.app;
  const result = await transaction(session.app.ds, async (em): Promise<DemoResult & { course: Course; notes: string[] }> => {
    let course = await findDemoCourse(em, rootAccountId, def);
    const alreadySeeded = course != null;
    const users = new Map<string, User | null>();
    const notes: string[] = [];
    const ctx: DemoContext = { rootAccountId, files: fileStoreFor(session.config), tokenKey };
    // Steps: the course with its people, then each extension (groups, modules, planner, ...).
    const bar = progress(out, 'Seeding the demo:');
    const steps = extensions.length + 1;
    if (course) {
      for (const p of def.people) users.set(p.key, await findDemoUser(em, rootAccountId, p.login));
      for (const [i, ext] of extensions.entries()) {
        bar.update(i + 1, steps, ext.name);
        if (ext.reseed) notes.push(...((await ext.reseed(em, ctx)) ?? []));
      }
    } else {
      bar.update(0, steps, 'course and people');
      const world = await seedDemoWorld(em, rootAccountId, def);
      for (const [i, ext] of extensions.entries()) {
        bar.update(i + 1, steps, ext.name);
        notes.push(...((await ext.seed(em, world, ctx)) ?? []));
      }
      course = world.course;
      for (const [key, user] of world.users) users.set(key, user);
    }
    bar.end();
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
