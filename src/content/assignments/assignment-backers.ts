import type { EntityManager } from 'typeorm';
import type { RequestContext } from '../../request/context';
import type { Assignment } from './assignment.entity';

/**
 * What an assignment does when the content it scores (a graded quiz, a graded discussion topic) must
 * follow a change made to the assignment itself through the assignments API. The areas that own such
 * content are built on assignments, so they provide backers and the composition root registers them
 * (src/app/plugins.ts): assignments never import the areas above them.
 */
export interface AssignmentBacking {
  /** Why the assignment may not go back to draft because of this object (a message), or null when it may. */
  unpublishRefusal?(): Promise<string | null>;
  /** Carries an edit of the assignment, saved in `em` already, over to this object. */
  followEdit(em: EntityManager, assignment: Assignment): Promise<void>;
  /** Deleting the assignment deletes this object, as in Canvas. */
  followDelete(em: EntityManager): Promise<void>;
}

/** One kind of content an assignment may score. */
export interface AssignmentBacker {
  name: string;
  /** The live object of this kind the assignment scores, if any. */
  backing(ctx: RequestContext, assignmentId: number): Promise<AssignmentBacking | null>;
}

const backers: AssignmentBacker[] = [];

/** Registering a backer again (by name) replaces it, so installing twice changes nothing. */
export function registerAssignmentBacker(backer: AssignmentBacker): void {
  const i = backers.findIndex((b) => b.name === backer.name);
  if (i >= 0) backers[i] = backer;
  else backers.push(backer);
}

/** The live objects the assignment scores, in registration order (which is the order they follow in). */
export async function backingsOf(ctx: RequestContext, assignmentId: number): Promise<AssignmentBacking[]> {
  const found = await Promise.all(backers.map((b) => b.backing(ctx, assignmentId)));
  return found.filter((b): b is AssignmentBacking => b != null);
}
