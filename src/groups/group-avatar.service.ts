import type { RequestContext } from '../graphql/context';
import type { Group } from './group.entity';

/**
 * A group's avatar is an image file uploaded to the group. Files arrive with the group files
 * feature; until an attachment exists for the id, no avatar can be set and the URL is null.
 */
export class GroupAvatarService {
  constructor(private readonly ctx: RequestContext) {}

  /** The attachment id if it is an image file of this group; null otherwise. */
  async resolve(_group: Group, _avatarId: string): Promise<number | null> {
    void this.ctx;
    return null;
  }

  async url(group: Group): Promise<string | null> {
    return group.avatarAttachmentId == null ? null : null;
  }
}
