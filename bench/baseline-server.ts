/**
 * The hand-written baseline of `npm run bench` (issue 11): a minimal node:http server on the same
 * driver as the service (better-sqlite3, or mysql2 for a mysql:// DATABASE_URL) and the same rows,
 * doing the same SQL work per request — the token with its user, the caller's enrollment, the page
 * of rows, the total for the Link header — and answering Canvas JSON for the benchmarked paths only.
 * No framework, no ORM, no GraphQL: what a careful hand-written handler costs is the yardstick the
 * service's REST and GraphQL doors are measured against. Runs as a child process (children.ts).
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type Row = Record<string, any>;
interface Db {
  all(sql: string, params: unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

/* eslint-disable @typescript-eslint/no-require-imports */
function sqlite(file: string): Db {
  const Database = require('better-sqlite3');
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  // Statements are prepared once per SQL text, as a hand-written handler would keep them.
  const cache = new Map<string, any>();
  return {
    async all(sql, params) {
      let st = cache.get(sql);
      if (!st) cache.set(sql, (st = db.prepare(sql)));
      return st.all(...params);
    },
    async close() {
      db.close();
    },
  };
}

function mysql(url: string): Db {
  const pool = require('mysql2/promise').createPool({ uri: url, connectionLimit: 10, timezone: 'Z', dateStrings: true, supportBigNumbers: true });
  return {
    async all(sql, params) {
      const [rows] = await pool.execute(sql, params);
      return rows as Row[];
    },
    close: () => pool.end(),
  };
}

/** A stored datetime ('YYYY-MM-DD HH:MM:SS[.mmm]' on both engines here) as Canvas's ISO 8601 form. */
const iso = (v: unknown): string | null => (v == null ? null : `${String(v).slice(0, 19).replace(' ', 'T')}Z`);
const sqlDate = (d: Date) => d.toISOString().replace('T', ' ').replace('Z', '');
const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');
const GRADERS = new Set(['TeacherEnrollment', 'TaEnrollment', 'DesignerEnrollment']);

class HttpError {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

function page(url: URL, dflt = 10): { perPage: number; page: number; offset: number } {
  const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page')) || dflt));
  const p = Math.max(1, Number(url.searchParams.get('page')) || 1);
  return { perPage, page: p, offset: (p - 1) * perPage };
}

function link(base: string, url: URL, p: { perPage: number; page: number }, total: number): string {
  const at = (n: number) => {
    const q = new URLSearchParams(url.searchParams);
    q.set('page', String(n));
    q.set('per_page', String(p.perPage));
    return `<${base}${url.pathname}?${q}>`;
  };
  const last = Math.max(1, Math.ceil(total / p.perPage));
  const out = [`${at(p.page)}; rel="current"`];
  if (p.page < last) out.push(`${at(p.page + 1)}; rel="next"`);
  if (p.page > 1) out.push(`${at(p.page - 1)}; rel="prev"`);
  out.push(`${at(1)}; rel="first"`, `${at(last)}; rel="last"`);
  return out.join(',');
}

export function baseline(db: Db, tokenKey: string) {
  async function viewer(req: http.IncomingMessage): Promise<Row> {
    const h = req.headers.authorization ?? '';
    const token = h.startsWith('Bearer ') ? h.slice(7).trim() : '';
    if (!token) throw new HttpError(401, { status: 'unauthenticated', errors: [{ message: 'user authorization required' }] });
    const [row] = await db.all(
      `SELECT t.id AS token_id, t.workflow_state AS token_state, t.expires_at, u.id, u.name, u.short_name, u.sortable_name, u.workflow_state,
              u.uuid, u.time_zone, u.locale, u.avatar_image_url, u.created_at
       FROM access_tokens t INNER JOIN users u ON u.id = t.user_id WHERE t.crypted_token = ?`,
      [createHmac('sha256', tokenKey).update(token).digest('hex')],
    );
    if (!row || row.token_state !== 'active' || row.workflow_state === 'deleted' || (row.expires_at && iso(row.expires_at)! < new Date().toISOString())) {
      throw new HttpError(401, { status: 'unauthenticated', errors: [{ message: 'Invalid access token.' }] });
    }
    return row;
  }

  /** The course and the caller's active enrollment types in it (404 when the caller has none). */
  async function enrollment(courseId: number, userId: number): Promise<Set<string>> {
    const rows = await db.all(
      `SELECT e.type FROM enrollments e INNER JOIN courses c ON c.id = e.course_id
       WHERE e.course_id = ? AND e.user_id = ? AND e.workflow_state = 'active' AND c.workflow_state <> 'deleted'`,
      [courseId, userId],
    );
    if (!rows.length) throw new HttpError(404, { errors: [{ message: 'The specified resource does not exist.' }] });
    return new Set(rows.map((r) => r.type as string));
  }

  const ITEM_COLS = 'id, module_id, position, title, indent, content_type, content_id, url, new_tab, requirement_type, requirement_min_score, requirement_min_percentage, workflow_state';

  function item(base: string, courseId: number, i: Row, showPublished: boolean, met: Set<number> | null): Row {
    const out: Row = { id: i.id, module_id: i.module_id, position: i.position, title: i.title, indent: i.indent, type: i.content_type };
    if (i.content_id != null) out.content_id = i.content_id;
    out.html_url = `${base}/courses/${courseId}/modules/items/${i.id}`;
    if (i.content_type === 'ExternalUrl') out.external_url = i.url;
    if (i.content_type === 'ExternalTool') out.new_tab = Boolean(i.new_tab);
    if (showPublished) out.published = i.workflow_state === 'active';
    if (i.requirement_type) {
      const r: Row = { type: i.requirement_type };
      if (i.requirement_type === 'min_score') r.min_score = i.requirement_min_score;
      if (i.requirement_type === 'min_percentage') r.min_percentage = i.requirement_min_percentage;
      if (met) r.completed = met.has(i.id);
      out.completion_requirement = r;
    }
    return out;
  }

  async function moduleItems(req: http.IncomingMessage, url: URL, base: string, courseId: number, moduleId: number) {
    const user = await viewer(req);
    const roles = await enrollment(courseId, user.id);
    const manage = [...roles].some((r) => GRADERS.has(r));
    const states = manage ? ['active', 'unpublished'] : ['active'];
    const [module] = await db.all(`SELECT id FROM context_modules WHERE id = ? AND course_id = ? AND workflow_state IN (${marks(states.length)})`, [moduleId, courseId, ...states]);
    if (!module) throw new HttpError(404, { errors: [{ message: 'The specified resource does not exist.' }] });
    const p = page(url);
    const rows = await db.all(
      `SELECT ${ITEM_COLS} FROM module_items WHERE module_id = ? AND workflow_state IN (${marks(states.length)}) ORDER BY position, id LIMIT ${p.perPage} OFFSET ${p.offset}`,
      [moduleId, ...states],
    );
    const [{ n }] = await db.all(`SELECT COUNT(*) AS n FROM module_items WHERE module_id = ? AND workflow_state IN (${marks(states.length)})`, [moduleId, ...states]);
    return { body: rows.map((i) => item(base, courseId, i, manage, null)), link: link(base, url, p, Number(n)) };
  }

  async function modules(req: http.IncomingMessage, url: URL, base: string, courseId: number) {
    const user = await viewer(req);
    const roles = await enrollment(courseId, user.id);
    const manage = [...roles].some((r) => GRADERS.has(r));
    const student = roles.has('StudentEnrollment') && !manage;
    const withItems = url.searchParams.getAll('include[]').includes('items');
    const states = manage ? ['active', 'unpublished'] : ['active'];
    const p = page(url);
    const mods = await db.all(
      `SELECT id, position, name, unlock_at, require_sequential_progress, requirement_count, publish_final_grade, prerequisites, workflow_state
       FROM context_modules WHERE course_id = ? AND workflow_state IN (${marks(states.length)}) ORDER BY position, id LIMIT ${p.perPage} OFFSET ${p.offset}`,
      [courseId, ...states],
    );
    const [{ n }] = await db.all(`SELECT COUNT(*) AS n FROM context_modules WHERE course_id = ? AND workflow_state IN (${marks(states.length)})`, [courseId, ...states]);
    const ids = mods.map((m) => m.id);
    const items = new Map<number, Row[]>(ids.map((id) => [id, []]));
    const progress = new Map<number, Row>();
    if (ids.length) {
      for (const i of await db.all(`SELECT ${ITEM_COLS} FROM module_items WHERE module_id IN (${marks(ids.length)}) AND workflow_state IN (${marks(states.length)}) ORDER BY position, id`, [...ids, ...states])) {
        items.get(i.module_id)!.push(i);
      }
      if (student) {
        for (const r of await db.all(`SELECT module_id, state, requirements_met, completed_at FROM module_progressions WHERE user_id = ? AND module_id IN (${marks(ids.length)})`, [user.id, ...ids])) {
          progress.set(r.module_id, r);
        }
      }
    }
    const body = mods.map((m) => {
      const pr = student ? progress.get(m.id) : undefined;
      const met = student ? new Set<number>(pr?.requirements_met ? JSON.parse(pr.requirements_met).map((x: Row) => x.id) : []) : null;
      const list = items.get(m.id)!;
      const out: Row = {
        id: m.id,
        workflow_state: 'active',
        position: m.position,
        name: m.name,
        unlock_at: iso(m.unlock_at),
        require_sequential_progress: Boolean(m.require_sequential_progress),
        requirement_type: m.requirement_count === 1 ? 'one' : 'all',
        prerequisite_module_ids: m.prerequisites ? JSON.parse(m.prerequisites) : [],
        items_count: list.length,
        items_url: `${base}/api/v1/courses/${courseId}/modules/${m.id}/items`,
      };
      if (student) {
        out.state = pr?.state ?? 'locked';
        out.completed_at = iso(pr?.completed_at);
      }
      out.publish_final_grade = Boolean(m.publish_final_grade);
      if (manage) out.published = m.workflow_state === 'active';
      if (withItems) out.items = list.map((i) => item(base, courseId, i, manage, met));
      return out;
    });
    return { body, link: link(base, url, p, Number(n)) };
  }

  async function groups(req: http.IncomingMessage, url: URL, base: string, courseId: number) {
    const user = await viewer(req);
    const roles = await enrollment(courseId, user.id);
    if (![...roles].some((r) => GRADERS.has(r))) throw new HttpError(401, { status: 'unauthorized', errors: [{ message: 'user not authorized to perform that action' }] });
    const p = page(url);
    const where = `g.context_type = 'Course' AND g.context_id = ? AND g.workflow_state <> 'deleted'`;
    const rows = await db.all(
      `SELECT g.id, g.name, g.description, g.is_public, g.join_level, g.group_category_id, g.sis_group_id, g.sis_import_id, g.storage_quota_mb,
              g.non_collaborative, g.max_membership, g.created_at, g.leader_id, g.workflow_state, c.name AS course_name, gc.role
       FROM \`groups\` g INNER JOIN courses c ON c.id = g.context_id INNER JOIN group_categories gc ON gc.id = g.group_category_id
       WHERE ${where} ORDER BY g.group_category_id, g.name, g.id LIMIT ${p.perPage} OFFSET ${p.offset}`,
      [courseId],
    );
    const [{ n }] = await db.all(`SELECT COUNT(*) AS n FROM \`groups\` g WHERE ${where}`, [courseId]);
    const counts = new Map<number, number>();
    if (rows.length) {
      const ids = rows.map((g) => g.id);
      for (const r of await db.all(`SELECT group_id, COUNT(*) AS n FROM group_memberships WHERE group_id IN (${marks(ids.length)}) AND workflow_state = 'accepted' GROUP BY group_id`, ids)) {
        counts.set(r.group_id, Number(r.n));
      }
    }
    const body = rows.map((g) => ({
      id: g.id,
      name: g.name,
      description: g.description,
      is_public: Boolean(g.is_public),
      followed_by_user: false,
      join_level: g.join_level,
      members_count: counts.get(g.id) ?? 0,
      avatar_url: null,
      context_type: 'Course',
      course_id: courseId,
      context_name: g.course_name,
      role: g.role,
      group_category_id: g.group_category_id,
      sis_group_id: g.sis_group_id,
      sis_import_id: g.sis_import_id,
      storage_quota_mb: g.storage_quota_mb ?? 50,
      non_collaborative: Boolean(g.non_collaborative),
      max_membership: g.max_membership,
      created_at: iso(g.created_at),
      concluded: false,
      leader: null,
    }));
    return { body, link: link(base, url, p, Number(n)) };
  }

  async function planner(req: http.IncomingMessage, url: URL, base: string) {
    const user = await viewer(req);
    const courses = new Map<number, string>();
    for (const c of await db.all(
      `SELECT c.id, c.name FROM enrollments e INNER JOIN courses c ON c.id = e.course_id WHERE e.user_id = ? AND e.workflow_state = 'active' AND c.workflow_state = 'available'`,
      [user.id],
    )) {
      courses.set(c.id, c.name);
    }
    // Canvas's default window: two weeks either side of today.
    const day = 86_400_000;
    const today = Date.now() - (Date.now() % day);
    const start = sqlDate(new Date(today - 14 * day));
    const end = sqlDate(new Date(today + 14 * day));
    const cids = [...courses.keys()];
    const perPage = page(url, 50).perPage;
    const branches = [`SELECT 2 AS k, n.id AS id, n.todo_date AS d FROM planner_notes n WHERE n.user_id = ? AND n.workflow_state = 'active' AND n.todo_date >= ? AND n.todo_date <= ?`];
    const params: unknown[] = [user.id, start, end];
    if (cids.length) {
      branches.unshift(`SELECT 0 AS k, a.id AS id, a.due_at AS d FROM assignments a WHERE a.course_id IN (${marks(cids.length)}) AND a.workflow_state = 'published' AND a.due_at >= ? AND a.due_at <= ?`);
      params.unshift(...cids, start, end);
    }
    const keys = await db.all(`SELECT u.k, u.id, u.d FROM (${branches.join(' UNION ALL ')}) u ORDER BY u.d, u.id, u.k LIMIT ${perPage + 1}`, params);
    const shown = keys.slice(0, perPage).map((r) => ({ k: Number(r.k), id: Number(r.id) }));
    const aIds = shown.filter((r) => r.k === 0).map((r) => r.id);
    const nIds = shown.filter((r) => r.k === 2).map((r) => r.id);
    const byId = <T extends Row>(rows: T[], key = 'id') => new Map(rows.map((r) => [r[key] as number, r]));
    const assignments = aIds.length ? byId(await db.all(`SELECT id, course_id, name, points_possible, due_at, created_at, updated_at FROM assignments WHERE id IN (${marks(aIds.length)})`, aIds)) : new Map();
    const subs = aIds.length
      ? byId(await db.all(`SELECT assignment_id, workflow_state, submitted_at, score, excused, graded_at FROM submissions WHERE user_id = ? AND assignment_id IN (${marks(aIds.length)})`, [user.id, ...aIds]), 'assignment_id')
      : new Map();
    const notes = nIds.length ? byId(await db.all(`SELECT id, course_id, title, details, todo_date, workflow_state, created_at, updated_at FROM planner_notes WHERE id IN (${marks(nIds.length)})`, nIds)) : new Map();
    const overrides = byId(await db.all(`SELECT id, plannable_type, plannable_id, marked_complete, dismissed, workflow_state, created_at, updated_at, deleted_at FROM planner_overrides WHERE user_id = ? AND workflow_state <> 'deleted'`, [user.id]), 'plannable_id');
    const body = shown.map(({ k, id }) => {
      if (k === 0) {
        const a = assignments.get(id)!;
        const s = subs.get(id);
        return {
          context_type: 'Course',
          course_id: a.course_id,
          context_name: courses.get(a.course_id),
          plannable_id: String(id),
          plannable_type: 'assignment',
          plannable_date: iso(a.due_at),
          planner_override: overrides.get(id)?.plannable_type === 'assignment' ? overrides.get(id) : null,
          new_activity: false,
          submissions: { submitted: Boolean(s?.submitted_at), excused: Boolean(s?.excused), graded: s?.graded_at != null, posted_at: null, late: false, missing: false, needs_grading: false, has_feedback: false, with_feedback: false, redo_request: false },
          plannable: { id, title: a.name, course_id: a.course_id, assignment_id: id, points_possible: a.points_possible, due_at: iso(a.due_at), created_at: iso(a.created_at), updated_at: iso(a.updated_at) },
          html_url: `${base}/courses/${a.course_id}/assignments/${id}`,
        };
      }
      const n = notes.get(id)!;
      return {
        ...(n.course_id != null ? { context_type: 'Course', course_id: n.course_id, context_name: courses.get(n.course_id) } : {}),
        plannable_id: String(id),
        plannable_type: 'planner_note',
        plannable_date: iso(n.todo_date),
        planner_override: overrides.get(id)?.plannable_type === 'planner_note' ? overrides.get(id) : null,
        new_activity: false,
        submissions: false,
        plannable: { id, todo_date: iso(n.todo_date), title: n.title, details: n.details, user_id: user.id, course_id: n.course_id, workflow_state: n.workflow_state, created_at: iso(n.created_at), updated_at: iso(n.updated_at) },
        html_url: `${base}/api/v1/planner_notes/${id}`,
      };
    });
    return { body, link: `<${base}${url.pathname}?per_page=${perPage}>; rel="current"` };
  }

  async function self(req: http.IncomingMessage) {
    const u = await viewer(req);
    const [login] = await db.all(`SELECT unique_id FROM pseudonyms WHERE user_id = ? AND workflow_state = 'active' ORDER BY id LIMIT 1`, [u.id]);
    const [last, first] = String(u.sortable_name).split(', ');
    return {
      body: {
        id: u.id,
        name: u.name,
        created_at: iso(u.created_at),
        sortable_name: u.sortable_name,
        short_name: u.short_name,
        first_name: first ?? '',
        last_name: last ?? '',
        ...(login ? { login_id: login.unique_id } : {}),
        avatar_url: u.avatar_image_url,
        locale: u.locale,
        time_zone: u.time_zone,
        uuid: u.uuid,
      },
    };
  }

  return async function route(req: http.IncomingMessage, base: string): Promise<{ body: unknown; link?: string }> {
    const url = new URL(req.url ?? '/', base);
    const p = url.pathname;
    let m: RegExpExecArray | null;
    if ((m = /^\/api\/v1\/courses\/(\d+)\/modules\/(\d+)\/items$/.exec(p))) return moduleItems(req, url, base, Number(m[1]), Number(m[2]));
    if ((m = /^\/api\/v1\/courses\/(\d+)\/modules$/.exec(p))) return modules(req, url, base, Number(m[1]));
    if ((m = /^\/api\/v1\/courses\/(\d+)\/groups$/.exec(p))) return groups(req, url, base, Number(m[1]));
    if (p === '/api/v1/planner/items') return planner(req, url, base);
    if (p === '/api/v1/users/self') return self(req);
    if (p === '/health/live') return { body: { status: 'ok' } };
    throw new HttpError(404, { errors: [{ message: 'The specified resource does not exist.' }] });
  };
}

if (require.main === module && process.send) {
  let server: http.Server | undefined;
  let db: Db | undefined;
  process.on('message', async (msg: { id: number; type: string; dbUrl?: string; tokenKey?: string }) => {
    try {
      if (msg.type === 'start') {
        db = msg.dbUrl!.startsWith('mysql://') ? mysql(msg.dbUrl!) : sqlite(msg.dbUrl!.slice('sqlite:'.length));
        const route = baseline(db, msg.tokenKey!);
        server = http.createServer((req, res) => {
          const base = `http://${req.headers.host}`;
          route(req, base).then(
            ({ body, link: l }) => {
              const json = JSON.stringify(body);
              const headers: http.OutgoingHttpHeaders = { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json) };
              if (l) headers.Link = l;
              res.writeHead(200, headers).end(json);
            },
            (e) => {
              const status = e instanceof HttpError ? e.status : 500;
              const json = JSON.stringify(e instanceof HttpError ? e.body : { errors: [{ message: 'An error occurred.' }] });
              if (!(e instanceof HttpError)) console.error(`baseline: ${(e as Error).message}`);
              res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' }).end(json);
            },
          );
        });
        server.keepAliveTimeout = 60_000;
        await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
        process.send!({ id: msg.id, ok: true, port: (server.address() as AddressInfo).port });
      } else if (msg.type === 'memory') {
        (globalThis as { gc?: () => void }).gc?.();
        const mem = process.memoryUsage();
        process.send!({ id: msg.id, ok: true, rss: mem.rss, heapUsed: mem.heapUsed });
      } else if (msg.type === 'cpu') {
        process.send!({ id: msg.id, ok: true, ...process.cpuUsage() });
      } else if (msg.type === 'close') {
        server?.closeAllConnections();
        await new Promise((r) => (server ? server.close(r) : r(undefined)));
        await db?.close();
        process.send!({ id: msg.id, ok: true });
      }
    } catch (e) {
      process.send!({ id: msg.id, ok: false, error: (e as Error).message });
    }
  });
  process.on('disconnect', () => process.exit(0));
}
