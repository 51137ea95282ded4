import { onDomainEvent } from '../../src/events/domain-events';
import { startTestServer, TestServer } from './server';
import { World, WorldUser } from './world';

/** Canvas's refusal bodies, as the content endpoints answer them. */
export const FORBIDDEN = { status: 'unauthorized', errors: [{ message: 'user not authorized to perform that action' }] };
export const NOT_FOUND = { errors: [{ message: 'The specified resource does not exist.' }] };
export const UNAUTHENTICATED = { status: 'unauthenticated', errors: [{ message: 'user authorization required' }] };
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

export interface ContentRoom {
  course: { id: number; name: string };
  teacher: WorldUser;
  ta: WorldUser;
  designer: WorldUser;
  student: WorldUser;
  student2: WorldUser;
  observer: WorldUser;
  outsider: WorldUser;
}

/** A published course with every role the content endpoints distinguish. */
export async function contentRoom(world: World): Promise<ContentRoom> {
  const room = await world.classroom();
  const [ta, designer] = await Promise.all([world.user('Terry TA'), world.user('Dana Designer')]);
  await world.enroll(room.course.id, ta.id, 'TaEnrollment');
  await world.enroll(room.course.id, designer.id, 'DesignerEnrollment');
  return { ...room, ta, designer };
}

/** Rows in a table (optionally filtered), to prove a refused or bad request stored nothing. */
export async function count(server: TestServer, table: string, where = '1=1', params: unknown[] = []): Promise<number> {
  const rows = await server.app.ds.query(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, params);
  return Number(rows[0].n);
}

/** Domain events raised while `fn` runs, captured through a handler registered for the test file. */
export async function captureEvents<T>(sink: { events: any[] }, fn: () => Promise<T>): Promise<{ result: T; events: any[] }> {
  const start = sink.events.length;
  const result = await fn();
  return { result, events: sink.events.slice(start) };
}

/**
 * One server and classroom for a test file, with every domain event the file causes captured in
 * `sink` (set up in beforeAll, closed in afterAll).
 */
export function useContentRoom(): { server: TestServer; world: World; room: ContentRoom; sink: { events: any[] } } {
  const env = { sink: { events: [] as any[] } } as { server: TestServer; world: World; room: ContentRoom; sink: { events: any[] } };
  onDomainEvent(async (_em, _ctx, e) => {
    env.sink.events.push(e);
  });
  beforeAll(async () => {
    env.server = await startTestServer();
    env.world = new World(env.server);
    env.room = await contentRoom(env.world);
  });
  afterAll(() => env.server.close());
  return env;
}
