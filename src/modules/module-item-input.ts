import type { Course } from '../courses/course.entity';
import { RequestError, Validator } from '../common/errors';
import type { RequestContext } from '../request/context';
import { ContentInfo, contentAdapter, requirementApplies } from './content-registry';
import { ITEM_TYPES, ItemType } from './module-item.entity';
import { REQUIREMENT_TYPES, RequirementType } from './progression-evaluator';

/** What module item writes accept, and the rules of their fields (ModuleItemService applies them). */

export interface RequirementInput {
  type?: string | null;
  minScore?: number | null;
  minPercentage?: number | null;
}

export interface ItemInput {
  title?: string | null;
  type?: string | null;
  contentId?: string | null;
  position?: number | null;
  indent?: number | null;
  pageUrl?: string | null;
  externalUrl?: string | null;
  newTab?: boolean | null;
  completionRequirement?: RequirementInput | null;
  /** Remove the requirement (the form sends an empty completion_requirement). */
  clearRequirement?: boolean | null;
  iframeWidth?: number | null;
  iframeHeight?: number | null;
  published?: boolean | null;
  moduleId?: string | null;
}

/** Incoming type names: API names case-insensitively, plus Canvas's snake_case aliases. */
const TYPE_ALIASES: Record<string, ItemType> = {
  file: 'File',
  attachment: 'File',
  page: 'Page',
  wiki_page: 'Page',
  wikipage: 'Page',
  discussion: 'Discussion',
  discussion_topic: 'Discussion',
  discussiontopic: 'Discussion',
  assignment: 'Assignment',
  quiz: 'Quiz',
  subheader: 'SubHeader',
  sub_header: 'SubHeader',
  context_module_sub_header: 'SubHeader',
  externalurl: 'ExternalUrl',
  external_url: 'ExternalUrl',
  externaltool: 'ExternalTool',
  external_tool: 'ExternalTool',
  context_external_tool: 'ExternalTool',
};

export function parseItemType(raw: string | null | undefined): ItemType | null {
  if (!raw) return null;
  return TYPE_ALIASES[raw.trim().toLowerCase()] ?? (ITEM_TYPES as readonly string[]).find((t) => t.toLowerCase() === raw.trim().toLowerCase()) as ItemType ?? null;
}

const URL_RE = /^https?:\/\/[^\s]+$/i;

/** The content an item links (Page by slug, the others by id), or a 400 naming what is missing. */
export async function resolveContent(ctx: RequestContext, course: Course, type: ItemType, input: ItemInput): Promise<{ contentId: number | null; info: ContentInfo | null }> {
  if (type === 'SubHeader' || type === 'ExternalUrl') return { contentId: null, info: null };
  const adapter = contentAdapter(type);
  if (type === 'Page') {
    if (!input.pageUrl) throw new RequestError('missing page_url parameter', 400, { message: 'missing page_url parameter' });
    const page = adapter?.findBySlug ? await adapter.findBySlug(ctx, course.id, input.pageUrl) : null;
    if (!page) throw new RequestError('invalid page_url parameter', 400, { message: 'invalid page_url parameter' });
    return { contentId: page.id, info: page };
  }
  const raw = input.contentId;
  if (raw == null || raw === '') throw new RequestError('missing content_id parameter', 400, { message: 'missing content_id parameter' });
  if (!/^\d+$/.test(String(raw))) throw new RequestError('Could not find content', 400, { message: 'Could not find content' });
  const info = adapter ? (await adapter.load(ctx, course.id, [Number(raw)])).get(Number(raw)) ?? null : null;
  if (!info) throw new RequestError('Could not find content', 400, { message: 'Could not find content' });
  return { contentId: info.id, info };
}

/** The requirement to store: known type, a number where one is needed, applicable to the item (else dropped). */
export function requirementOf(input: RequirementInput | null | undefined, type: ItemType, info: ContentInfo | null): { type: RequirementType | null; minScore: number | null; minPercentage: number | null } | undefined {
  if (input == null || input.type == null || input.type === '') return undefined;
  if (!(REQUIREMENT_TYPES as string[]).includes(input.type)) {
    new Validator().add('completion_requirement', 'invalid', 'Invalid completion requirement type').throwIfInvalid();
  }
  const req = input.type as RequirementType;
  const v = new Validator();
  if (req === 'min_score') v.check(input.minScore != null && Number.isFinite(input.minScore), 'completion_requirement', 'invalid', 'min_score requires a number');
  if (req === 'min_percentage') {
    v.check(input.minPercentage != null && Number.isFinite(input.minPercentage) && input.minPercentage >= 0 && input.minPercentage <= 100, 'completion_requirement', 'invalid', 'min_percentage requires a number from 0 to 100');
  }
  v.throwIfInvalid();
  if (!requirementApplies(req, type, info?.assignmentId != null)) return { type: null, minScore: null, minPercentage: null };
  return { type: req, minScore: req === 'min_score' ? input.minScore! : null, minPercentage: req === 'min_percentage' ? input.minPercentage! : null };
}

/** The shape rules of an item's fields (the service checks what needs the database). */
export function validateItemInput(input: ItemInput, type: ItemType): void {
  const v = new Validator();
  if (input.title != null) v.check(input.title.length <= 255, 'title', 'too_long', 'is too long (maximum is 255 characters)');
  if (input.indent != null) v.check(Number.isInteger(input.indent) && input.indent >= 0 && input.indent <= 20, 'indent', 'invalid', 'indent must be 0 or more');
  if (input.position != null) v.check(Number.isInteger(input.position) && input.position >= 1, 'position', 'invalid', 'Invalid position');
  if (input.externalUrl != null && (type === 'ExternalUrl' || type === 'ExternalTool')) v.check(URL_RE.test(input.externalUrl) && input.externalUrl.length <= 2048, 'external_url', 'invalid', 'must be an http(s) URL');
  if (input.iframeWidth != null) v.check(input.iframeWidth > 0, 'iframe', 'invalid', 'iframe width must be positive');
  if (input.iframeHeight != null) v.check(input.iframeHeight > 0, 'iframe', 'invalid', 'iframe height must be positive');
  v.throwIfInvalid();
}
