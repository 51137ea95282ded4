import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Items go with their content from now on (src/modules/content-removal.ts); this deletes the live items
 * of content already deleted (or, for files, no longer available), so a content manager's item lists,
 * which now trust an item's own state, keep hiding them. Each kind's test is its adapter's "live" rule.
 * Not reversible: the items were already invisible, and nothing tells them apart afterwards.
 */
const LIVE: Record<string, { table: string; live: string }> = {
  Assignment: { table: 'assignments', live: "mc.course_id = module_items.course_id AND mc.workflow_state <> 'deleted'" },
  Quiz: { table: 'quizzes', live: "mc.course_id = module_items.course_id AND mc.workflow_state <> 'deleted'" },
  Page: { table: 'wiki_pages', live: "mc.course_id = module_items.course_id AND mc.workflow_state <> 'deleted'" },
  ExternalTool: { table: 'context_external_tools', live: "mc.course_id = module_items.course_id AND mc.workflow_state <> 'deleted'" },
  Discussion: {
    table: 'discussion_topics',
    live: "mc.context_type = 'Course' AND mc.context_id = module_items.course_id AND mc.is_announcement = 0 AND mc.workflow_state <> 'deleted'",
  },
  File: { table: 'attachments', live: "mc.context_type = 'Course' AND mc.context_id = module_items.course_id AND mc.workflow_state = 'available'" },
};

export class ItemsOfDeletedContent1732000016600 implements MigrationInterface {
  name = 'ItemsOfDeletedContent1732000016600';

  async up(q: QueryRunner): Promise<void> {
    for (const [kind, { table, live }] of Object.entries(LIVE)) {
      await q.query(
        `UPDATE module_items SET workflow_state = 'deleted' WHERE content_type = ? AND workflow_state IN ('active', 'unpublished')` +
          ` AND NOT EXISTS (SELECT 1 FROM ${table} mc WHERE mc.id = module_items.content_id AND ${live})`,
        [kind],
      );
    }
  }

  async down(): Promise<void> {
    // Nothing to undo: see above.
  }
}
