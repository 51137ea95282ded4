import { ArgsType, Field, ID, InputType, ObjectType } from 'type-graphql';
import { Node } from '../api/graphql/node';
import { Connection, ConnectionArgs } from '../common/relay';
import { PayloadType } from '../api/graphql/payload';
import { DateTimeScalar } from '../api/graphql/scalars';

@ObjectType('User', { implements: Node })
export class UserType extends Node {
  @Field(() => ID)
  _id: string;

  @Field()
  name: string;

  @Field()
  shortName: string;

  @Field()
  sortableName: string;

  @Field(() => String, { nullable: true })
  firstName: string | null;

  @Field(() => String, { nullable: true })
  lastName: string | null;

  @Field(() => DateTimeScalar)
  createdAt: Date;

  @Field()
  uuid: string;

  @Field(() => String, { nullable: true })
  locale: string | null;

  @Field(() => String, { nullable: true })
  timeZone: string | null;

  @Field(() => String, { nullable: true })
  avatarUrl: string | null;

  @Field(() => String, { description: 'registered, pre_registered or deleted' })
  workflowState: string;

  @Field(() => String, { nullable: true, description: 'Login id; only for the user and their admins.' })
  loginId: string | null;

  @Field(() => String, { nullable: true, description: 'Only for admins of the user.' })
  sisUserId: string | null;

  @Field(() => String, { nullable: true, description: 'Only for admins of the user.' })
  integrationId: string | null;

  @Field(() => String, { nullable: true, description: 'Only for the user and their admins.' })
  email: string | null;
}

export const UserConnection = Connection('User', UserType);

@InputType()
export class CreateUserInput {
  @Field(() => ID, { description: 'Account id, `self` or sis_account_id:…' })
  accountId: string;

  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true })
  shortName?: string | null;

  @Field(() => String, { nullable: true })
  sortableName?: string | null;

  @Field(() => String, { nullable: true })
  timeZone?: string | null;

  @Field(() => String, { nullable: true })
  locale?: string | null;

  @Field(() => String, { nullable: true, description: 'Login (usually an e-mail); required.' })
  uniqueId?: string | null;

  @Field(() => String, { nullable: true })
  sisUserId?: string | null;

  @Field(() => String, { nullable: true })
  integrationId?: string | null;

  @Field(() => Boolean, { nullable: true })
  skipRegistration?: boolean | null;
}

export const CreateUserPayload = PayloadType('CreateUserPayload', { user: () => UserType });

@ArgsType()
export class AccountUsersArgs extends ConnectionArgs {
  @Field(() => String, { nullable: true, description: 'Partial name, login or SIS id (2 characters or more).' })
  searchTerm?: string | null;
  @Field(() => String, { nullable: true, description: 'username (by sortable name, the default) or id.' })
  sort?: string | null;
  @Field(() => String, { nullable: true, description: 'asc (the default) or desc.' })
  order?: string | null;
}
