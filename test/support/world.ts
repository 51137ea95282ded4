import { randomBytes } from 'node:crypto';
import { Api } from './api';
import { startTestServer, TestServer } from './server';

export interface WorldUser {
  id: number;
  name: string;
  login: string;
  token: string;
  api: Api;
}

/** A test server (startTestServer's `env`) and a World on it: most REST test files start so. */
export async function startWorld(env: Record<string, string> = {}): Promise<{ server: TestServer; world: World }> {
  const server = await startTestServer(env);
  return { server, world: new World(server) };
}

export type EnrollmentKind = 'StudentEnrollment' | 'TeacherEnrollment' | 'TaEnrollment' | 'DesignerEnrollment' | 'ObserverEnrollment';

function expectOk(res: { status: number; text: string }, what: string): void {
  if (res.status >= 300) throw new Error(`${what} failed: ${res.status} ${res.text}`);
}

/** Builds test worlds through the public REST API, as a Canvas integration would. */
export class World {
  constructor(readonly server: TestServer) {}

  get admin(): Api {
    return this.server.admin;
  }

  async user(name = 'Test User'): Promise<WorldUser> {
    const login = `${name.toLowerCase().replace(/\W+/g, '.')}.${randomBytes(3).toString('hex')}@example.com`;
    const created = await this.admin.post('/api/v1/accounts/self/users', { user: { name }, pseudonym: { unique_id: login } });
    expectOk(created, 'create user');
    const token = await this.admin.post(`/api/v1/users/${created.body.id}/tokens`, { token: { purpose: 'tests' } });
    expectOk(token, 'create token');
    return { id: created.body.id, name, login, token: token.body.visible_token, api: this.server.as(token.body.visible_token) };
  }

  async course(opts: { name?: string; published?: boolean } = {}): Promise<{ id: number; name: string }> {
    const res = await this.admin.post('/api/v1/accounts/self/courses', {
      course: { name: opts.name ?? 'Course' },
      offer: opts.published === false ? 'false' : 'true',
    });
    expectOk(res, 'create course');
    return res.body;
  }

  async section(courseId: number, name: string): Promise<{ id: number }> {
    const res = await this.admin.post(`/api/v1/courses/${courseId}/sections`, { course_section: { name } });
    expectOk(res, 'create section');
    return res.body;
  }

  async enroll(
    courseId: number,
    userId: number,
    type: EnrollmentKind,
    opts: { state?: string; sectionId?: number; associatedUserId?: number; limitToSection?: boolean } = {},
  ): Promise<{ id: number }> {
    const res = await this.admin.post(`/api/v1/courses/${courseId}/enrollments`, {
      enrollment: {
        user_id: userId,
        type,
        enrollment_state: opts.state ?? 'active',
        course_section_id: opts.sectionId,
        associated_user_id: opts.associatedUserId,
        limit_privileges_to_course_section: opts.limitToSection,
      },
    });
    expectOk(res, 'enroll');
    return res.body;
  }

  /** A published course with a teacher, two students and an observer of the first student. */
  async classroom() {
    const course = await this.course({ name: 'Biology 101' });
    const [teacher, student, student2, observer, outsider] = await Promise.all([
      this.user('Tina Teacher'),
      this.user('Sam Student'),
      this.user('Sally Student'),
      this.user('Olly Observer'),
      this.user('Oscar Outsider'),
    ]);
    await this.enroll(course.id, teacher.id, 'TeacherEnrollment');
    await this.enroll(course.id, student.id, 'StudentEnrollment');
    await this.enroll(course.id, student2.id, 'StudentEnrollment');
    await this.enroll(course.id, observer.id, 'ObserverEnrollment', { associatedUserId: student.id });
    return { course, teacher, student, student2, observer, outsider };
  }
}
