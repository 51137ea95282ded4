import { ClassType, createUnionType } from 'type-graphql';
import { Assignment } from '../content/assignments/assignment.entity';
import { AssignmentType } from '../content/assignments/assignment.types';
import { ExternalTool } from '../content/external-tools/external-tool.entity';
import { ExternalToolType } from '../content/external-tools/external-tool.types';
import { WikiPage } from '../content/pages/page.entity';
import { PageType } from '../content/pages/page.types';
import { Quiz } from '../content/quizzes/quiz.entity';
import { QuizType } from '../content/quizzes/quiz.types';
import { DiscussionTopic } from '../discussions/discussion-topic.entity';
import { DiscussionType } from '../discussions/discussion.types';
import { Attachment } from '../files/attachment.entity';
import { FileType } from '../files/file.types';
import type { RequestContext } from '../request/context';
import { visibleNode } from '../api/graphql/node';
import type { ItemType } from './module-item.entity';
import type { ModuleItemView } from './module-views';

/** Item type → the entity its content is and the GraphQL type that shows it. */
const KINDS: Partial<Record<ItemType, { entity: ClassType<{ id: number }>; typeName: string }>> = {
  Assignment: { entity: Assignment, typeName: 'Assignment' },
  Quiz: { entity: Quiz, typeName: 'Quiz' },
  Page: { entity: WikiPage, typeName: 'Page' },
  Discussion: { entity: DiscussionTopic, typeName: 'Discussion' },
  File: { entity: Attachment, typeName: 'File' },
  ExternalTool: { entity: ExternalTool, typeName: 'ExternalTool' },
};
const typeOfEntity = new Map<unknown, string>(Object.values(KINDS).map((k) => [k!.entity, k!.typeName]));

/** What a module item links, as the content type itself (SubHeader and ExternalUrl items link nothing). */
export const ModuleItemContent = createUnionType({
  name: 'ModuleItemContent',
  description: 'The object a module item links: an assignment, quiz, page, discussion, file or external tool.',
  types: () => [AssignmentType, QuizType, PageType, DiscussionType, FileType, ExternalToolType] as const,
  resolveType: (value: object) => typeOfEntity.get(value.constructor),
});

/**
 * The linked object of an item the viewer sees, through its type's own checked lookup (so an item
 * never shows content its top-level query would hide, e.g. an unpublished assignment to a student);
 * null for items without content or content the viewer may not see. Lookups batch per kind.
 */
export async function itemContent(ctx: RequestContext, v: ModuleItemView): Promise<object | null> {
  const kind = KINDS[v.item.contentType];
  if (!kind || v.content == null || v.item.contentId == null) return null;
  return visibleNode(ctx, kind.typeName, v.item.contentId);
}

/** Content objects of one kind by id, in the order asked (missing ones left out). */
export async function contentObjects(ctx: RequestContext, kind: ItemType, ids: number[]): Promise<object[]> {
  const k = KINDS[kind];
  if (!k || !ids.length) return [];
  const rows = await ctx.loaders.byId(k.entity).loadMany(ids);
  return rows.filter((r): r is { id: number } => r != null && !(r instanceof Error));
}
