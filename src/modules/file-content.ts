import { In } from 'typeorm';
import { Attachment } from '../files/attachment.entity';
import { ContentInfo, courseIdList, type ContentAdapter } from './content-registry';

/**
 * How modules reach course files (mirrors src/modules/course-content.ts): available files of the
 * course. Files carry no published state of their own here, so a File item follows its item's state.
 */
export const fileContent: ContentAdapter = {
  kind: 'File',
  async load(ctx, courseIds, ids) {
    const rows = ids.length ? await ctx.ds.getRepository(Attachment).findBy({ id: In(ids), contextType: 'Course', contextId: In(courseIdList(courseIds)), workflowState: 'available' }) : [];
    return new Map(
      rows.map((f): [number, ContentInfo] => [
        f.id,
        { id: f.id, courseId: f.contextId, title: f.displayName, published: true, assignmentId: null, pointsPossible: null, dueAt: null, unlockAt: null, lockAt: null },
      ]),
    );
  },
  apiUrl: (baseUrl, courseId, info) => `${baseUrl}/api/v1/courses/${courseId}/files/${info.id}`,
  sql: { table: 'attachments', live: (course) => `mc.context_type = 'Course' AND mc.context_id = ${course} AND mc.workflow_state = 'available'`, published: '1 = 1' },
};
