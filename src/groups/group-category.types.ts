import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { Node } from '../api/graphql/node';
import { PayloadType } from '../api/graphql/payload';
import { Connection } from '../common/relay';
import { DateTimeScalar } from '../api/graphql/scalars';

@ObjectType('GroupSet', { implements: Node, description: "A group category (Canvas's GraphQL calls it a group set)." })
export class GroupCategoryType extends Node {
  @Field(() => ID)
  _id: string;
  @Field()
  name: string;
  @Field(() => String, { nullable: true })
  role: string | null;
  @Field(() => String, { nullable: true, description: 'enabled, restricted or null' })
  selfSignup: string | null;
  @Field(() => Int, { nullable: true })
  groupLimit: number | null;
  @Field(() => String, { nullable: true })
  autoLeader: string | null;
  @Field()
  contextType: string;
  @Field(() => ID)
  contextId: number;
  @Field()
  nonCollaborative: boolean;
  @Field({ description: 'Built-in categories cannot be renamed or deleted.' })
  protected: boolean;
  @Field()
  allowsMultipleMemberships: boolean;
  @Field(() => String, { nullable: true })
  sisGroupCategoryId: string | null;
  @Field(() => Int, { nullable: true })
  sisImportId: number | null;
  @Field(() => DateTimeScalar)
  createdAt: Date;
}

export const GroupCategoryConnection = Connection('GroupSet', GroupCategoryType);

@InputType()
export class GroupCategoryFieldsInput {
  @Field(() => String, { nullable: true })
  name?: string | null;
  @Field(() => String, { nullable: true, description: 'enabled, restricted, or empty to turn off' })
  selfSignup?: string | null;
  @Field(() => Int, { nullable: true })
  groupLimit?: number | null;
  @Field(() => String, { nullable: true })
  autoLeader?: string | null;
  @Field(() => String, { nullable: true })
  sisGroupCategoryId?: string | null;
}

@InputType()
export class CreateGroupCategoryInput extends GroupCategoryFieldsInput {
  @Field({ description: 'Course or Account' })
  contextType: string;
  @Field(() => ID)
  contextId: string;
  @Field(() => Boolean, { nullable: true, description: 'Differentiation tags (needs manage_tags).' })
  nonCollaborative?: boolean | null;
  @Field(() => Int, { nullable: true, description: 'Create this many empty groups in it.' })
  createGroupCount?: number | null;
}

@InputType()
export class UpdateGroupCategoryInput extends GroupCategoryFieldsInput {
  @Field(() => ID)
  id: string;
  @Field(() => Boolean, { nullable: true })
  nonCollaborative?: boolean | null;
}

export const GroupCategoryPayload = PayloadType('GroupCategoryPayload', { groupCategory: () => GroupCategoryType });
