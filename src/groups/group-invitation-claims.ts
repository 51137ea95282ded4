import type { EntityManager } from 'typeorm';
import type { DomainEventHandler } from '../events/domain-events';
import { GroupInvitation } from './group-invitation.entity';
import { GroupMembership } from './group-membership.entity';
import { memberSortName } from './member-sort-name';

/** Turns pending e-mail invitations into invited memberships when a user with that login appears. */
export async function claimInvitations(em: EntityManager, userId: number, login: string): Promise<void> {
  const pending = await em.getRepository(GroupInvitation).findBy({ email: login.trim().toLowerCase(), workflowState: 'pending' });
  for (const inv of pending) {
    const repo = em.getRepository(GroupMembership);
    const existing = await repo.findOneBy({ groupId: inv.groupId, userId });
    if (!existing?.isLive) {
      const row = existing ?? repo.create({ groupId: inv.groupId, userId, moderator: false, sisImportId: null, sortableName: await memberSortName(em, userId) });
      row.workflowState = 'invited';
      await repo.save(row);
    }
    inv.workflowState = 'accepted';
    await em.getRepository(GroupInvitation).save(inv);
  }
}

/** A new user's login claims the group invitations sent to that address before the user existed. */
export const groupInvitationClaimHandler: DomainEventHandler = async (em, _ctx, event) => {
  if (event.type === 'user.created') await claimInvitations(em, event.userId, event.login);
};
