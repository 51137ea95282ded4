import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Api, ApiResponse } from './api';
import { contentRoom, ContentRoom } from './content';
import { startTestServer, TestServer } from './server';
import { World, WorldUser } from './world';

/** Shared helpers of the modules test files: Canvas bodies, a course with content, table snapshots. */

export { FORBIDDEN, NOT_FOUND, UNAUTHENTICATED, ISO } from './content';

/** A test server whose uploads go to a temporary FILES_DIR, removed again on close. */
export async function startModulesServer(env: Record<string, string> = {}): Promise<TestServer> {
  const filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lms-modules-files-'));
  const server = await startTestServer({ FILES_DIR: filesDir, ...env });
  const close = server.close.bind(server);
  server.close = async () => {
    await close();
    fs.rmSync(filesDir, { recursive: true, force: true });
  };
  return server;
}

/** The modules test files' start: a modules server, a World on it, and a course with content (ModulesKit). */
export async function startModulesWorld(env: Record<string, string> = {}): Promise<{ server: TestServer; world: World; kit: ModulesKit }> {
  const server = await startModulesServer(env);
  const world = new World(server);
  try {
    return { server, world, kit: await ModulesKit.create(world) };
  } catch (e) {
    // The caller never got the server to close.
    await server.close();
    throw e;
  }
}

export function ok<T = any>(res: ApiResponse<T>, what = 'request'): T {
  if (res.status !== 200 && res.status !== 201) throw new Error(`${what} failed: ${res.status} ${res.text}`);
  return res.body;
}

const MODULE_TABLES = ['context_modules', 'module_items', 'module_progressions', 'module_overrides', 'mastery_path_rules', 'mastery_path_selections'];

/**
 * Every row of the module tables (and their counts), to prove a refused or invalid write stored
 * nothing: compare the snapshot before and after.
 */
export async function moduleTables(server: TestServer, extra: string[] = []): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const t of [...MODULE_TABLES, ...extra]) {
    const rows: Record<string, unknown>[] = await server.app.ds.query(`SELECT * FROM ${t} ORDER BY id`);
    out[`${t}:count`] = rows.length;
    out[t] = rows.map((r) => JSON.stringify(r));
  }
  return out;
}

/** Canvas's module and module item key sets (as the spec's presence rules give them). */
export const MODULE_KEYS = [
  'id', 'workflow_state', 'position', 'name', 'unlock_at', 'require_sequential_progress', 'requirement_type',
  'prerequisite_module_ids', 'items_count', 'items_url', 'publish_final_grade',
];

/** A course with every role, and the calls the modules tests make over and over. */
export class ModulesKit {
  constructor(
    readonly server: TestServer,
    readonly room: ContentRoom,
  ) {}

  static async create(world: World): Promise<ModulesKit> {
    return new ModulesKit(world.server, await contentRoom(world));
  }

  /** Another course with the same people in the same roles (cheaper than a new room). */
  async sibling(world: World, name = 'Sibling'): Promise<ModulesKit> {
    const course = await world.course({ name });
    const r = this.room;
    await Promise.all([
      world.enroll(course.id, r.teacher.id, 'TeacherEnrollment'),
      world.enroll(course.id, r.ta.id, 'TaEnrollment'),
      world.enroll(course.id, r.designer.id, 'DesignerEnrollment'),
      world.enroll(course.id, r.student.id, 'StudentEnrollment'),
      world.enroll(course.id, r.student2.id, 'StudentEnrollment'),
    ]);
    await world.enroll(course.id, r.observer.id, 'ObserverEnrollment', { associatedUserId: r.student.id });
    return new ModulesKit(this.server, { ...r, course });
  }

  get cid(): number {
    return this.room.course.id;
  }

  get teacher(): Api {
    return this.room.teacher.api;
  }

  modules(suffix = ''): string {
    return `/api/v1/courses/${this.cid}/modules${suffix}`;
  }

  items(moduleId: number, suffix = ''): string {
    return `/api/v1/courses/${this.cid}/modules/${moduleId}/items${suffix}`;
  }

  item(moduleId: number, itemId: number, suffix = ''): string {
    return `/api/v1/courses/${this.cid}/modules/${moduleId}/items/${itemId}${suffix}`;
  }

  async module(fields: Record<string, unknown> = {}, opts: { publish?: boolean } = {}): Promise<any> {
    const m = ok(await this.teacher.post(this.modules(), { module: { name: `Module ${Math.random().toString(36).slice(2, 7)}`, ...fields } }), 'create module');
    if (opts.publish) return this.publish(m.id);
    return m;
  }

  async publish(moduleId: number, published = true): Promise<any> {
    return ok(await this.teacher.put(this.modules(`/${moduleId}`), { module: { published } }), 'publish module');
  }

  async addItem(moduleId: number, fields: Record<string, unknown>): Promise<any> {
    return ok(await this.teacher.post(this.items(moduleId), { module_item: fields }), 'create item');
  }

  /** One item of every type, in this order: the given content's six kinds, then an ExternalUrl and a SubHeader. */
  async addEveryKind(moduleId: number, c: { assignment: any; quiz: any; page: any; topic: any; file: any; tool: any }): Promise<any[]> {
    const items: any[] = [];
    for (const fields of [
      { type: 'Assignment', content_id: c.assignment.id },
      { type: 'Quiz', content_id: c.quiz.id },
      { type: 'Page', page_url: c.page.url },
      { type: 'Discussion', content_id: c.topic.id },
      { type: 'File', content_id: c.file.id },
      { type: 'ExternalTool', content_id: c.tool.id, external_url: 'https://lab.example.com/launch' },
      { type: 'ExternalUrl', external_url: 'https://example.com', title: 'Link' },
      { type: 'SubHeader', title: 'Header' },
    ]) items.push(await this.addItem(moduleId, fields));
    return items;
  }

  // ---- course content through its own endpoints ------------------------------------------------

  async assignment(fields: Record<string, unknown> = {}): Promise<any> {
    const res = await this.teacher.post(`/api/v1/courses/${this.cid}/assignments`, {
      assignment: { name: 'Essay', points_possible: 10, submission_types: ['online_text_entry'], published: true, ...fields },
    });
    return ok(res, 'create assignment');
  }

  async quiz(fields: Record<string, unknown> = {}): Promise<any> {
    return ok(await this.teacher.post(`/api/v1/courses/${this.cid}/quizzes`, { quiz: { title: 'Quiz', quiz_type: 'assignment', points_possible: 10, published: true, ...fields } }), 'create quiz');
  }

  async page(fields: Record<string, unknown> = {}): Promise<any> {
    return ok(await this.teacher.post(`/api/v1/courses/${this.cid}/pages`, { wiki_page: { title: `Page ${Math.random().toString(36).slice(2, 7)}`, body: '<p>Read me</p>', published: true, ...fields } }), 'create page');
  }

  async discussion(fields: Record<string, unknown> = {}): Promise<any> {
    return ok(await this.teacher.post(`/api/v1/courses/${this.cid}/discussion_topics`, { title: 'Discuss', message: '<p>Talk</p>', published: true, ...fields }), 'create topic');
  }

  async tool(fields: Record<string, unknown> = {}): Promise<any> {
    return ok(await this.teacher.post(`/api/v1/courses/${this.cid}/external_tools`, { name: 'Lab Sim', url: 'https://lab.example.com/launch', consumer_key: 'k', shared_secret: 's', privacy_level: 'public', ...fields }), 'create tool');
  }

  /** A course file through the three-step upload (preflight, bytes, confirm). */
  async file(name = 'notes.txt', bytes = Buffer.from('hello modules')): Promise<any> {
    const pre = ok(await this.teacher.post(`/api/v1/courses/${this.cid}/files`, { name, size: bytes.length }), 'preflight');
    const form = new FormData();
    for (const [k, v] of Object.entries(pre.upload_params as Record<string, string>)) form.append(k, v);
    form.append(pre.file_param, new Blob([bytes], { type: 'text/plain' }), name);
    const up = await fetch(pre.upload_url, { method: 'POST', body: form, redirect: 'manual' });
    await up.text();
    if (up.status !== 201) throw new Error(`upload failed: ${up.status}`);
    const location = up.headers.get('location')!;
    return ok(await this.teacher.request('GET', location.replace(this.server.url, '')), 'confirm upload');
  }

  // ---- what students do -------------------------------------------------------------------------

  async submit(student: WorldUser, assignmentId: number): Promise<any> {
    const res = await student.api.post(`/api/v1/courses/${this.cid}/assignments/${assignmentId}/submissions`, { submission: { submission_type: 'online_text_entry', body: 'My answer' } });
    return ok(res, 'submit');
  }

  async grade(assignmentId: number, userId: number, grade: string | number): Promise<any> {
    return ok(await this.teacher.put(`/api/v1/courses/${this.cid}/assignments/${assignmentId}/submissions/${userId}`, { submission: { posted_grade: String(grade) } }), 'grade');
  }

  async takeQuiz(student: WorldUser, quizId: number): Promise<any> {
    const base = `/api/v1/courses/${this.cid}/quizzes/${quizId}/submissions`;
    const started = ok(await student.api.post(base, {}), 'start quiz').quiz_submissions[0];
    return ok(await student.api.post(`${base}/${started.id}/complete`, { attempt: started.attempt, validation_token: started.validation_token }), 'complete quiz').quiz_submissions[0];
  }

  async scoreQuiz(quizId: number, qsId: number, fudge: number): Promise<any> {
    const res = await this.teacher.put(`/api/v1/courses/${this.cid}/quizzes/${quizId}/submissions/${qsId}`, { quiz_submissions: [{ attempt: 1, fudge_points: fudge }] }, { json: true });
    return ok(res, 'score quiz');
  }

  async post(student: WorldUser, topicId: number, message = 'My thoughts'): Promise<any> {
    return ok(await student.api.post(`/api/v1/courses/${this.cid}/discussion_topics/${topicId}/entries`, { message }), 'post entry');
  }

  /** The module list as a student (or any caller) sees it, by id. */
  async standing(api: Api, query = ''): Promise<Map<number, any>> {
    const list = ok(await api.get(`${this.modules()}?per_page=100${query}`), 'list modules') as any[];
    return new Map(list.map((m) => [m.id, m]));
  }

  async stateOf(api: Api, moduleId: number, query = ''): Promise<string | undefined> {
    return (await this.standing(api, query)).get(moduleId)?.state;
  }

  /** completion_requirement.completed of an item, as the student sees it. */
  async completed(api: Api, moduleId: number, itemId: number): Promise<boolean | undefined> {
    const item = ok(await api.get(this.item(moduleId, itemId)), 'show item');
    return item.completion_requirement?.completed;
  }
}

export const uniq = () => Math.random().toString(36).slice(2, 8);
