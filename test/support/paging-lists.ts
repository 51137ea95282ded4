import type { PagingWorld } from './paging';
import type { TestServer } from './server';
import { World } from './world';

/** The rows the course, entry and activity stream lists page through, for the paging world's teacher. */
export interface CourseListsWorld {
  /** A topic of the paging world's course with several top-level entries. */
  topic: { id: number };
  /** A top-level entry of that topic with several replies. */
  thread: { id: number };
}

/**
 * Three more courses of the teacher (their courses list has pages), topics in the paging world's
 * course (its activity stream has pages), and a topic with entries and an entry with replies.
 */
export async function courseListsWorld(server: TestServer, w: PagingWorld, n = 5): Promise<CourseListsWorld> {
  const world = new World(server);
  for (let i = 0; i < 3; i++) await world.enroll((await world.course({ name: `More ${i}` })).id, w.teacher.id, 'TeacherEnrollment');
  const base = `/api/v1/courses/${w.course.id}`;
  const post = async (path: string, body: Record<string, unknown>) => {
    const res = await w.teacher.api.post(`${base}${path}`, body);
    if (res.status !== 200 && res.status !== 201) throw new Error(`post ${path} failed: ${res.status} ${res.text}`);
    return res.body as { id: number };
  };
  let topic = { id: 0 };
  for (let i = 0; i < n; i++) topic = await post('/discussion_topics', { title: `Topic ${i}`, message: 'Hello', published: true });
  for (let i = 0; i < n; i++) await post(`/discussion_topics/${topic.id}/entries`, { message: `Entry ${i}` });
  const thread = await post(`/discussion_topics/${topic.id}/entries`, { message: 'Thread' });
  for (let i = 0; i < n; i++) await post(`/discussion_topics/${topic.id}/entries/${thread.id}/replies`, { message: `Reply ${i}` });
  return { topic, thread };
}
