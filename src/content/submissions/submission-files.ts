import { In } from 'typeorm';
import type { RequestContext } from '../../request/context';
import { Attachment } from '../../files/attachment.entity';

/**
 * The one place submissions learn about files: which of the given ids are files the student may
 * submit (their own, live user files, as Canvas's `@submission_user.attachments.active`). Until the
 * files area registers its entity and migration, the lookup reads the `attachments` table directly
 * and finds nothing when it does not exist yet.
 */
export async function submittableFileIds(ctx: RequestContext, userId: number, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  let rows: { id: number; context_type?: string; context_id?: number; user_id?: number | null; workflow_state?: string }[];
  if (ctx.ds.hasMetadata(Attachment)) {
    const found = await ctx.ds.getRepository(Attachment).findBy({ id: In(ids) });
    rows = found.map((a) => ({ id: a.id, context_type: a.contextType, context_id: a.contextId, user_id: a.userId, workflow_state: a.workflowState }));
  } else {
    try {
      rows = await ctx.ds.query(`SELECT id, context_type, context_id, user_id, workflow_state FROM attachments WHERE id IN (${ids.map(() => '?').join(',')})`, ids);
    } catch {
      return [];
    }
  }
  const ok = new Set(
    rows
      .filter((r) => r.workflow_state === 'available' || r.workflow_state === 'uploaded')
      .filter((r) => (r.context_type === 'User' && Number(r.context_id) === userId) || Number(r.user_id) === userId)
      .map((r) => Number(r.id)),
  );
  return ids.filter((id) => ok.has(id));
}
