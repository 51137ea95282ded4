import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Items follow their content from now on (src/modules/content-links.ts); this brings the items of
 * content changed before into line, so a content manager's item lists, which now trust an item's own
 * state, keep hiding what they hid. First, the live items of a course file that was overwritten (deleted
 * while a file of the same name in its folder, created no later, became available in its place) link the
 * file that replaced it, as Canvas repoints them; then the live items of content still deleted (or, for
 * files, not available) are deleted. Each kind's test is its adapter's "live" rule. Not reversible: the
 * items were invisible, and nothing tells them apart afterwards.
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
    const replacement =
      `SELECT MAX(y.id) FROM attachments x JOIN attachments y ON y.folder_id = x.folder_id AND y.display_name = x.display_name` +
      ` AND y.id <> x.id AND y.workflow_state = 'available' AND y.created_at <= x.deleted_at` +
      ` WHERE x.id = module_items.content_id AND x.context_type = 'Course' AND x.context_id = module_items.course_id AND x.workflow_state = 'deleted'`;
    await q.query(
      `UPDATE module_items SET content_id = (${replacement}) WHERE content_type = 'File' AND workflow_state IN ('active', 'unpublished')` +
        ` AND (${replacement}) IS NOT NULL`,
    );
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
