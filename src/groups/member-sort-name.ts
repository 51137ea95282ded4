import type { EntityManager } from 'typeorm';
import { User } from '../users/user.entity';

/**
 * The sortable name a new membership row carries, so a group's users page from the memberships
 * index by name (users' names do not change after creation).
 */
export async function memberSortName(em: EntityManager, userId: number): Promise<string> {
  const u = await em.getRepository(User).findOne({ select: { id: true, sortableName: true }, where: { id: userId } });
  return u?.sortableName ?? '';
}
