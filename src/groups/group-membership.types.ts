import { ArgsType, Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { Node } from '../api/graphql/node';
import { PayloadType } from '../api/graphql/payload';
import { Connection, ConnectionArgs } from '../common/relay';
import { DateTimeScalar } from '../api/graphql/scalars';

@ObjectType('GroupMembership', { implements: Node })
export class GroupMembershipType extends Node {
  @Field(() => ID)
  _id: string;
  @Field(() => ID)
  groupId: number;
  @Field(() => ID)
  userId: number;
  @Field({ description: 'accepted, invited or requested' })
  workflowState: string;
  @Field()
  moderator: boolean;
  @Field(() => DateTimeScalar)
  createdAt: Date;
  @Field(() => Int, { nullable: true, description: 'Only for callers who may manage SIS data.' })
  sisImportId: number | null;
  @Field(() => Boolean, { nullable: true, description: 'On a join: whether the membership was created by this call.' })
  justCreated: boolean | null;
}

export const GroupMembershipConnection = Connection('GroupMembership', GroupMembershipType);

@ArgsType()
export class MembershipsArgs extends ConnectionArgs {
  @Field(() => [String], { nullable: true, description: 'accepted, invited, requested (default all)' })
  filterStates?: string[] | null;
}

@InputType()
export class JoinGroupInput {
  @Field(() => ID)
  groupId: string;
  @Field(() => ID, { nullable: true, description: 'User to add; the viewer (`self`) by default.' })
  userId?: string | null;
  @Field(() => [ID], { nullable: true, description: 'Differentiation tags: students to add.' })
  members?: string[] | null;
  @Field(() => Boolean, { nullable: true, description: 'Differentiation tags: add every current student of the course.' })
  allInGroupCourse?: boolean | null;
  @Field(() => [ID], { nullable: true, description: 'With allInGroupCourse: students to leave out.' })
  excludeUserIds?: string[] | null;
}

@InputType()
export class MembershipRefInput {
  @Field(() => ID)
  groupId: string;
  @Field(() => ID, { nullable: true, description: 'Membership id or `self`.' })
  membershipId?: string | null;
  @Field(() => ID, { nullable: true, description: 'User id or `self` (instead of membershipId).' })
  userId?: string | null;
}

@InputType()
export class UpdateMembershipInput extends MembershipRefInput {
  @Field(() => String, { nullable: true, description: 'Only `accepted` is allowed; any other value is refused (workflow_state).' })
  workflowState?: string | null;
  @Field(() => Boolean, { nullable: true })
  moderator?: boolean | null;
}

@InputType()
export class InviteToGroupInput {
  @Field(() => ID)
  groupId: string;
  @Field(() => [String], { description: 'E-mail addresses.' })
  invitees: string[];
}

export const MembershipPayload = PayloadType('MembershipPayload', {
  membership: () => GroupMembershipType,
  added: { type: () => [GroupMembershipType], description: 'Bulk (tag) additions.', maxItems: 1000 },
  invalidUserIds: { type: () => [String], description: 'Bulk (tag) ids that were not current students.', maxItems: 1000 },
});

export const InvitePayload = PayloadType('InvitePayload', {
  memberships: { type: () => [GroupMembershipType], maxItems: 1000 },
  pendingEmails: { type: () => [String], description: 'Addresses with no user yet, kept as pending invitations.', maxItems: 1000 },
});
