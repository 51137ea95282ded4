import { Attachment } from '../files/attachment.entity';
import type { RequestContext } from '../request/context';
import type { Group } from './group.entity';
import { FileService } from '../files/file.service';

/** A group's avatar is an available image file uploaded to the group. */
export class GroupAvatarService {
  constructor(private readonly ctx: RequestContext) {}

  /** The attachment id if it is an available image file of this group; null otherwise. */
  async resolve(group: Group, avatarId: string): Promise<number | null> {
    const file = await this.ctx.use(FileService).imageOf('Group', group.id, avatarId);
    return file?.id ?? null;
  }

  /**
   * The avatar's thumbnail URL; null without an avatar or once its file is gone or replaced. A group
   * without one answers at once, not through a promise (most of a page of groups, so most of the awaits).
   */
  url(group: Group): Promise<string | null> | null {
    return group.avatarAttachmentId == null ? null : this.fileUrl(group, group.avatarAttachmentId);
  }

  private async fileUrl(group: Group, attachmentId: number): Promise<string | null> {
    const file = await this.ctx.loaders.byId(Attachment).load(attachmentId);
    if (!file || file.contextType !== 'Group' || file.contextId !== group.id || file.workflowState !== 'available' || !file.isImage) return null;
    return this.ctx.use(FileService).thumbnailUrl(file);
  }
}
