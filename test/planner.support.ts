import type { Api } from './support/api';
import { parseLinks } from './support/api';

/** An instant `days` from now at `hour`:00 UTC, as Canvas's ISO form. */
export function at(days: number, hour = 12, minute = 0): string {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + days);
  d.setUTCHours(hour, minute, 0, 0);
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `YYYY-MM-DD` of the day `days` from today (UTC). */
export function day(days: number): string {
  return at(days).slice(0, 10);
}

function ok<T extends { status: number; text: string }>(res: T, what: string): T {
  if (res.status >= 300) throw new Error(`${what} failed: ${res.status} ${res.text}`);
  return res;
}

/** Content created through the public REST API by a teacher. */
export class Content {
  constructor(
    readonly teacher: Api,
    readonly courseId: number,
  ) {}

  async assignment(name: string, dueAt: string | null, opts: { published?: boolean; points?: number; types?: string[] } = {}): Promise<{ id: number }> {
    const res = await this.teacher.post(`/api/v1/courses/${this.courseId}/assignments`, {
      assignment: {
        name,
        due_at: dueAt ?? undefined,
        published: opts.published ?? true,
        points_possible: opts.points ?? 10,
        submission_types: opts.types ?? ['online_text_entry'],
      },
    });
    return ok(res, 'create assignment').body;
  }

  async quiz(title: string, dueAt: string | null, opts: { published?: boolean; quizType?: string } = {}): Promise<{ id: number; assignment_id: number | null }> {
    const res = await this.teacher.post(`/api/v1/courses/${this.courseId}/quizzes`, {
      quiz: { title, due_at: dueAt ?? undefined, published: opts.published ?? true, quiz_type: opts.quizType ?? 'assignment', points_possible: 5 },
    });
    return ok(res, 'create quiz').body;
  }

  async page(title: string, todoAt: string | null, opts: { published?: boolean } = {}): Promise<{ page_id: number; url: string }> {
    const res = await this.teacher.post(`/api/v1/courses/${this.courseId}/pages`, {
      wiki_page: { title, body: 'x', published: opts.published ?? true, student_todo_at: todoAt ?? undefined },
    });
    return ok(res, 'create page').body;
  }

  async topic(title: string, todoDate: string | null, opts: { published?: boolean; announcement?: boolean; delayedPostAt?: string; contextPath?: string } = {}): Promise<{ id: number }> {
    const res = await this.teacher.post(`${opts.contextPath ?? `/api/v1/courses/${this.courseId}`}/discussion_topics`, {
      title,
      message: 'hello',
      todo_date: todoDate ?? undefined,
      published: opts.published ?? true,
      is_announcement: opts.announcement ? true : undefined,
      delayed_post_at: opts.delayedPostAt,
    });
    return ok(res, 'create topic').body;
  }
}

/** Follows a bookmark-paged list to its end, returning every element and each page's Link header. */
export async function allPages(api: Api, firstPath: string): Promise<{ items: any[]; links: Record<string, string>[] }> {
  const items: any[] = [];
  const links: Record<string, string>[] = [];
  let path: string | null = firstPath;
  for (let i = 0; path && i < 50; i++) {
    const res = await api.get(path);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text}`);
    items.push(...res.body);
    const l = parseLinks(res.headers.get('link'));
    links.push(l);
    path = l.next ? l.next.replace(/^https?:\/\/[^/]+/, '') : null;
  }
  return { items, links };
}

export const keyOf = (item: { plannable_type: string; plannable_id: string | number }) => `${item.plannable_type}:${item.plannable_id}`;
