import type { Course } from '../courses/course.entity';
import type { ContentInfo } from './content-registry';
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
  ) {}

  /** With modules' search_term and include[]=items: only items whose titles match, unless the module's name does. */
  itemSearch?: string;

  get id(): number {
    return this.module.id;
  }
}

export class ModuleItemView {
  constructor(
    readonly item: ModuleItem,
    readonly module: ModuleView,
    readonly content: ContentInfo | null,
  ) {}

  get id(): number {
    return this.item.id;
  }
}
