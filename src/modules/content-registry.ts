import DataLoader from 'dataloader';
import type { EntityManager } from 'typeorm';
import type { RequestContext } from '../request/context';
import type { ItemType } from './module-item.entity';

/** What modules need to know about the object an item links to. */
export interface ContentInfo {
  id: number;
  courseId: number;
  title: string;
  published: boolean;
  /** The assignment that scores it (an assignment itself, a graded quiz or discussion), if any. */
  assignmentId: number | null;
  /** For quizzes: the quiz id, whose (kept) quiz-submission score counts. */
  quizId?: number | null;
  pointsPossible: number | null;
  dueAt: Date | null;
  unlockAt: Date | null;
  lockAt: Date | null;
  /** Page slug. */
  pageUrl?: string;
  /** External tool launch URL. */
  url?: string | null;
  /** The content cannot be unpublished (e.g. an assignment with submissions). */
  unpublishable?: boolean;
}

/** One course, or several (a GraphQL list of courses loads the content of all of them at once). */
export type CourseIds = number | readonly number[];

/** The courses of a CourseIds, as a list. */
export const courseIdList = (courseIds: CourseIds): number[] => (typeof courseIds === 'number' ? [courseIds] : [...courseIds]);

/** How modules reach one kind of content; the content areas register theirs. */
export interface ContentAdapter {
  kind: ItemType;
  /**
   * Live (non-deleted) objects of the course(s) by id, batched; each ContentInfo carries its own
   * courseId, so a caller asking for several courses matches (courseId, id) pairs.
   */
  load(ctx: RequestContext, courseIds: CourseIds, ids: number[]): Promise<Map<number, ContentInfo>>;
  /** Pages are addressed by slug. */
  findBySlug?(ctx: RequestContext, courseId: number, slug: string): Promise<ContentInfo | null>;
  /** Publishing a module publishes its items' content (and unpublishing unpublishes what can be). */
  setPublished?(em: EntityManager, courseId: number, ids: number[], published: boolean): Promise<void>;
  /** Renaming an item renames assignments, quizzes, pages and discussions. */
  rename?(em: EntityManager, courseId: number, id: number, title: string): Promise<void>;
  /** API URL of the object. */
  apiUrl(baseUrl: string, courseId: number, info: ContentInfo): string;
  /** The rules of load() and ContentInfo as SQL, so item lists filter and page in the database. */
  sql: ContentSql;
}

/**
 * A kind's content rules as SQL conditions over its table aliased `mc`, for an item of the course
 * `course` (an SQL expression: the course id, or a column; `mc.id = <item>.content_id` is added by
 * the caller): what load() finds (live, of the item's course),
 * what counts as published, and the assignment that scores it (ContentInfo.assignmentId), if any.
 * They must say exactly what load() says: listings filter by them and then check the page's rows
 * against the loaded ContentInfo too.
 */
export interface ContentSql {
  table: string;
  live: (course: string) => string;
  published: string;
  assignment?: (course: string) => string;
}

const adapters = new Map<ItemType, ContentAdapter>();

export function registerContentAdapter(adapter: ContentAdapter): void {
  adapters.set(adapter.kind, adapter);
}

export function contentAdapter(kind: ItemType): ContentAdapter | undefined {
  return adapters.get(kind);
}

/**
 * The content an item of `courseId` links, through a per-request loader per kind shared by every
 * course of the request: a list of courses, each with modules of items, costs one adapter load per
 * kind, not one per course. Content of another course with the same id is never matched.
 */
export function loadContent(ctx: RequestContext, kind: ItemType, courseId: number, contentId: number): Promise<ContentInfo | null> {
  const adapter = adapters.get(kind);
  if (!adapter || CONTENTLESS.has(kind)) return Promise.resolve(null);
  return ctx.loaders
    .get(`modules:content:${kind}`, () =>
      new DataLoader<string, ContentInfo | null>(async (keys) => {
        const pairs = keys.map((k) => k.split(':').map(Number) as [number, number]);
        const found = await adapter.load(ctx, [...new Set(pairs.map(([c]) => c))], [...new Set(pairs.map(([, id]) => id))]);
        return pairs.map(([c, id]) => {
          const info = found.get(id);
          return info && info.courseId === c ? info : null;
        });
      }),
    )
    .load(`${courseId}:${contentId}`);
}

/** Item types that link no object. */
export const CONTENTLESS: ReadonlySet<ItemType> = new Set(['SubHeader', 'ExternalUrl']);

/** Requirement applicability per the spec: inapplicable requirements are dropped silently. */
export function requirementApplies(type: string, itemType: ItemType, scoreable: boolean): boolean {
  switch (type) {
    case 'must_view':
      return itemType !== 'SubHeader';
    case 'must_contribute':
      return ['Assignment', 'Discussion', 'Page'].includes(itemType);
    case 'must_submit':
    case 'min_score':
    case 'min_percentage':
      return itemType === 'Assignment' || itemType === 'Quiz' || (scoreable && (itemType === 'Discussion' || itemType === 'Page'));
    case 'must_mark_done':
      return itemType === 'Assignment' || itemType === 'Page';
    default:
      return false;
  }
}

/** A student's work on scored content, keyed by assignment id and by quiz id. */
export interface StudentFacts {
  byAssignment: Map<number, import('./progression-evaluator').ItemFacts>;
  byQuiz: Map<number, import('./progression-evaluator').ItemFacts>;
}

/** `em`, when given, is the transaction evaluating progress: work written earlier in it counts. */
export type FactsProvider = (ctx: RequestContext, courseId: number, userIds: number[], em?: EntityManager) => Promise<Map<number, StudentFacts>>;

let factsProvider: FactsProvider = async (_ctx, _courseId, userIds) =>
  new Map(userIds.map((id) => [id, { byAssignment: new Map(), byQuiz: new Map() }]));

/** The content area tells modules how to read submissions and quiz scores. */
export function registerFactsProvider(provider: FactsProvider): void {
  factsProvider = provider;
}

export function loadStudentFacts(ctx: RequestContext, courseId: number, userIds: number[], em?: EntityManager): Promise<Map<number, StudentFacts>> {
  return factsProvider(ctx, courseId, userIds, em);
}
