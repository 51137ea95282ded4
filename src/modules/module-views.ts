import type { Course } from '../courses/course.entity';
import { contentAdapter, ContentInfo } from './content-registry';
import type { ModuleItem } from './module-item.entity';
import type { ContextModule } from './module.entity';
import type { ModuleProgression } from './progression.entity';

/**
 * A module as one caller sees it: whose progress applies (the student caller, or student_id), whether
 * unpublished state is shown, and the stored progression. GraphQL fields resolve from this.
 */
export class ModuleView {
  constructor(
    readonly module: ContextModule,
    readonly course: Course,
    /** The student whose progress is shown, or null (no state/completed_at). */
    readonly student: number | null,
    /** The caller may see unpublished content (and so `published`). */
    readonly showPublished: boolean,
    readonly progression: ModuleProgression | null,
    /** The origin of the request's absolute URLs (items' html_url and url). */
    readonly baseUrl: string,
  ) {}

  /** With modules' search_term and include[]=items: only items whose titles match, unless the module's name does. */
  itemSearch?: string;

  get id(): number {
    return this.module.id;
  }

  // The GraphQL fields that are plain reads of the view are getters, resolved by GraphQL's default
  // property read: no resolver call per field and row, which read-path profiles showed on module pages.
  get workflowState(): string {
    return this.module.workflowState === 'deleted' ? 'deleted' : 'active';
  }
  get position(): number {
    return this.module.position;
  }
  get name(): string {
    return this.module.name;
  }
  get unlockAt(): Date | null {
    return this.module.unlockAt;
  }
  get requireSequentialProgress(): boolean {
    return this.module.requireSequentialProgress;
  }
  get requirementType(): string {
    return this.module.requirementType;
  }
  get prerequisiteModuleIds(): number[] {
    return this.module.prerequisiteIds;
  }
  get publishFinalGrade(): boolean {
    return this.module.publishFinalGrade;
  }
  get state(): string | null {
    return this.student == null ? null : (this.progression?.state ?? 'locked');
  }
  get completedAt(): Date | null {
    return this.student == null ? null : (this.progression?.completedAt ?? null);
  }
  get published(): boolean | null {
    return this.showPublished ? this.module.published : null;
  }

  private metByItem?: Map<number, Set<string>>;
  /** Whether the shown student met the requirement `type` of item `id` (the stored JSON parsed once per view, not per item). */
  met(id: number, type: string): boolean {
    if (!this.metByItem) {
      // Keyed by item id, then type: no key string built per item of a 1,000-item page.
      this.metByItem = new Map();
      for (const m of this.progression?.met ?? []) {
        let types = this.metByItem.get(m.id);
        if (!types) this.metByItem.set(m.id, (types = new Set()));
        types.add(m.type);
      }
    }
    return this.metByItem.get(id)?.has(type) ?? false;
  }
}

/** Item types whose content_id Canvas shows. */
const CONTENT_ID_TYPES = new Set(['File', 'Discussion', 'Assignment', 'Quiz', 'ExternalTool']);

export class ModuleItemView {
  constructor(
    readonly item: ModuleItem,
    readonly module: ModuleView,
    readonly content: ContentInfo | null,
  ) {}

  get id(): number {
    return this.item.id;
  }

  // Plain reads of the view, resolved by GraphQL's default property read (see ModuleView).
  get moduleId(): number {
    return this.item.moduleId;
  }
  get position(): number {
    return this.item.position;
  }
  get title(): string {
    return this.item.title;
  }
  get indent(): number {
    return this.item.indent;
  }
  get type(): string {
    return this.item.contentType;
  }
  get contentId(): number | null {
    return CONTENT_ID_TYPES.has(this.item.contentType) ? this.item.contentId : null;
  }
  get pageUrl(): string | null {
    return this.item.contentType === 'Page' ? (this.content?.pageUrl ?? null) : null;
  }
  get externalUrl(): string | null {
    return this.item.contentType === 'ExternalUrl' || this.item.contentType === 'ExternalTool' ? this.item.url : null;
  }
  get newTab(): boolean | null {
    return this.item.contentType === 'ExternalTool' ? this.item.newTab : null;
  }
  get published(): boolean | null {
    return this.module.showPublished ? this.item.published : null;
  }
  // html_url and url are read for every item of every page: getters, not per-row resolver calls.
  get htmlUrl(): string | null {
    const { courseId, id, contentType } = this.item;
    if (contentType === 'SubHeader') return null;
    if (contentType === 'ExternalUrl') return `${this.module.baseUrl}/api/v1/courses/${courseId}/module_item_redirect/${id}`;
    return `${this.module.baseUrl}/courses/${courseId}/modules/items/${id}`;
  }
  get url(): string | null {
    if (!this.content) return null;
    return contentAdapter(this.item.contentType)?.apiUrl(this.module.baseUrl, this.item.courseId, this.content) ?? null;
  }
  get completionRequirement(): { type: string; minScore: number | null; minPercentage: number | null; completed: boolean | null } | null {
    const { item } = this;
    if (!item.requirementType) return null;
    return {
      type: item.requirementType,
      minScore: item.requirementMinScore,
      minPercentage: item.requirementMinPercentage,
      completed: this.module.student == null ? null : this.module.met(item.id, item.requirementType),
    };
  }
}
