import { Field, ObjectType } from 'type-graphql';
import { DateTimeScalar } from '../api/graphql/scalars';

/** Why an object is locked for the viewer (Canvas's lock_info). */
@ObjectType('ContentLockInfo', { description: 'Why an assignment or quiz is locked for the viewer (Canvas lock_info).' })
export class LockInfoType {
  @Field({ description: 'e.g. assignment_12, quizzes:quiz_4' })
  assetString: string;
  @Field(() => DateTimeScalar, { nullable: true })
  unlockAt?: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  lockAt?: Date | null;
  @Field({ description: 'The object can still be viewed (it is past its lock date).' })
  canView: boolean;
}

/** Canvas's lock explanation for an object that is locked by its dates. */
export function lockExplanation(noun: string, lock: { locked: boolean; unlockAt?: Date; lockAt?: Date }): string | null {
  if (!lock.locked) return null;
  if (lock.unlockAt) return `This ${noun} is locked until ${lock.unlockAt.toISOString().replace(/\.\d{3}Z$/, 'Z')}.`;
  return `This ${noun} was locked ${lock.lockAt!.toISOString().replace(/\.\d{3}Z$/, 'Z')}.`;
}

export function lockInfo(lock: { locked: boolean; assetString: string; unlockAt?: Date; lockAt?: Date }): LockInfoType | null {
  if (!lock.locked) return null;
  return { assetString: lock.assetString, unlockAt: lock.unlockAt ?? null, lockAt: lock.lockAt ?? null, canView: Boolean(lock.lockAt) };
}
