import { ArgsType, Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { Node } from '../api/graphql/node';
import { PayloadType } from '../api/graphql/payload';
import { Connection, ConnectionArgs } from '../common/relay';
import { DateTimeScalar } from '../api/graphql/scalars';

@ObjectType('GroupPermission', { description: 'One permission of the viewer on a group.' })
export class GroupPermissionType {
  @Field()
  name: string;
  @Field()
  granted: boolean;
}

@ObjectType('Group', { implements: Node })
export class GroupType extends Node {
  @Field(() => ID)
  _id: string;
  @Field()
  name: string;
  @Field(() => String, { nullable: true })
  description: string | null;
  @Field()
  isPublic: boolean;
  @Field({ description: 'Whether the viewer follows the group (no follow feature here: always false).' })
  followedByUser: boolean;
  @Field({ description: 'parent_context_auto_join, parent_context_request or invitation_only' })
  joinLevel: string;
  @Field(() => Int, { description: 'Accepted members.' })
  membersCount: number;
  @Field(() => String, { nullable: true })
  avatarUrl: string | null;
  @Field({ description: 'Course or Account' })
  contextType: string;
  @Field(() => ID)
  contextId: number;
  @Field(() => String, { nullable: true })
  contextName: string | null;
  @Field(() => String, { nullable: true, description: 'communities, student_organized, imported or null' })
  role: string | null;
  @Field(() => ID)
  groupCategoryId: number;
  @Field(() => String, { nullable: true, description: 'Only for callers who may read SIS data.' })
  sisGroupId: string | null;
  @Field(() => Int, { nullable: true, description: 'Only for callers who may manage SIS data.' })
  sisImportId: number | null;
  @Field(() => Int)
  storageQuotaMb: number;
  @Field(() => Boolean)
  nonCollaborative: boolean;
  @Field(() => Int, { nullable: true })
  maxMembership: number | null;
  @Field(() => DateTimeScalar)
  createdAt: Date;
  @Field({ description: 'The course has concluded or was deleted.' })
  concluded: boolean;
}

export const GroupConnection = Connection('Group', GroupType);

@ArgsType()
export class ViewerGroupsArgs extends ConnectionArgs {
  @Field(() => String, { nullable: true, description: 'Course or Account' })
  contextType?: string | null;
}

@ArgsType()
export class ContextGroupsArgs extends ConnectionArgs {
  @Field(() => Boolean, { nullable: true, description: 'Only groups the viewer belongs to.' })
  onlyOwnGroups?: boolean | null;
  @Field(() => String, { nullable: true, description: 'collaborative (default), non_collaborative or all' })
  collaborationState?: string | null;
}

@ArgsType()
export class GroupUsersArgs extends ConnectionArgs {
  @Field(() => String, { nullable: true, description: 'Partial name or full id; at least 3 characters.' })
  searchTerm?: string | null;
  @Field(() => Boolean, { nullable: true })
  excludeInactive?: boolean | null;
}

@InputType()
export class GroupFieldsInput {
  @Field(() => String, { nullable: true })
  name?: string | null;
  @Field(() => String, { nullable: true })
  description?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Community groups only; cannot go back to false.' })
  isPublic?: boolean | null;
  @Field(() => String, { nullable: true })
  joinLevel?: string | null;
  @Field(() => Int, { nullable: true, description: 'Ignored without manage_storage_quotas.' })
  storageQuotaMb?: number | null;
  @Field(() => String, { nullable: true, description: 'Needs manage_sis.' })
  sisGroupId?: string | null;
  @Field(() => Int, { nullable: true })
  maxMembership?: number | null;
}

@InputType()
export class CreateGroupInput extends GroupFieldsInput {
  @Field(() => ID, { nullable: true, description: 'Category to create the group in; a community group when absent.' })
  groupCategoryId?: string | null;
}

@InputType()
export class UpdateGroupInput extends GroupFieldsInput {
  @Field(() => ID)
  id: string;
  @Field(() => ID, { nullable: true, description: 'An image file uploaded to the group.' })
  avatarId?: string | null;
  @Field(() => [ID], { nullable: true, description: 'The full member list: others are invited, absent members removed.' })
  members?: string[] | null;
  @Field(() => Boolean, { nullable: true, description: 'Default true; false leaves SIS-sticky fields unchanged.' })
  overrideSisStickiness?: boolean | null;
  @Field(() => ID, { nullable: true, description: 'A member to lead the group; empty clears it.' })
  leaderId?: string | null;
}

export const GroupPayload = PayloadType('GroupPayload', { group: () => GroupType });
