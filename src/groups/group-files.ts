import { fileContextOf, FileContextProvider } from '../files/file-context';
import { GroupAccess } from './group-access';
import { GroupPolicy } from './group-policy';
import { Group } from './group.entity';

/** Files of a group: its readers see them; its members and the admins over it manage them. */
export const groupFiles: FileContextProvider<Group> = {
  contextType: 'Group',
  lookup: (ctx, raw) => ctx.use(GroupAccess).lookup(raw),
  async load(ctx, id) {
    const g = await ctx.loaders.byId(Group).load(id);
    return g && g.workflowState !== 'deleted' ? g : null;
  },
  // A group carries its own quota (with its default) in storage_quota_mb.
  describe: (group) => fileContextOf('Group', group, { id: group.id, rootAccountId: group.rootAccountId, quotaMb: group.quotaMb }),
  canRead: async (ctx, group) => (await ctx.use(GroupPolicy).rights(group)).read,
  canManage: async (ctx, group) => (await ctx.use(GroupPolicy).rights(group)).manageFiles,
};
