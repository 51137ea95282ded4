import { ArgsType, Field, ID, InputType, ObjectType } from 'type-graphql';
import { PayloadType } from '../api/graphql/payload';
import { Connection, ConnectionArgs } from '../common/relay';
import { DateTimeScalar } from '../api/graphql/scalars';

@ObjectType('AccessToken')
export class AccessTokenType {
  @Field(() => ID)
  _id: string;

  @Field(() => ID)
  userId: number;

  @Field()
  purpose: string;

  @Field(() => DateTimeScalar, { nullable: true })
  expiresAt: Date | null;

  @Field(() => DateTimeScalar, { nullable: true })
  lastUsedAt: Date | null;

  @Field(() => DateTimeScalar)
  createdAt: Date;

  @Field(() => DateTimeScalar)
  updatedAt: Date;

  @Field()
  workflowState: string;

  @Field(() => ID, { nullable: true, description: 'The admin who created it for this user.' })
  realUserId: number | null;

  @Field({ description: 'First characters of the token.' })
  tokenHint: string;

  @Field({ description: 'The full token in the response that created or regenerated it; `<hint>...` afterwards.' })
  visibleToken: string;

  @Field({ description: 'The developer key\'s name; "No App" for manually generated tokens (all tokens here are).' })
  appName: string;

  @Field({ description: 'Whether the token may be regenerated: a manually generated token that has not expired.' })
  canManuallyRegenerate: boolean;
}

export const AccessTokenConnection = Connection('AccessToken', AccessTokenType);

@ArgsType()
export class AccessTokensArgs extends ConnectionArgs {
  @Field(() => ID, { description: 'User id, global id or `self`.' })
  userId: string;
}

@InputType()
export class CreateAccessTokenInput {
  @Field(() => ID, { description: 'User id, global id or `self`.' })
  userId: string;

  @Field(() => String, { nullable: true, description: 'Required: what the token is for.' })
  purpose?: string | null;

  @Field(() => DateTimeScalar, { nullable: true })
  expiresAt?: Date | null;
}

export const CreateAccessTokenPayload = PayloadType('CreateAccessTokenPayload', { accessToken: () => AccessTokenType });

@InputType()
export class UpdateAccessTokenInput {
  @Field(() => ID, { description: 'User id, global id or `self`.' })
  userId: string;

  @Field(() => ID, { description: "The token's id, or its 5-character hint." })
  id: string;

  @Field(() => String, { nullable: true })
  purpose?: string | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'A new expiry; null removes it. Required to regenerate an expired token.' })
  expiresAt?: Date | null;

  @Field(() => Boolean, { nullable: true, description: 'Replace the secret: the old token stops working and the new one is shown in this response only.' })
  regenerate?: boolean | null;
}

@InputType()
export class DeleteAccessTokenInput {
  @Field(() => ID, { description: 'User id, global id or `self`.' })
  userId: string;

  @Field(() => ID, { description: "The token's id, or its 5-character hint." })
  id: string;
}

export const UpdateAccessTokenPayload = PayloadType('UpdateAccessTokenPayload', { accessToken: () => AccessTokenType });
export const DeleteAccessTokenPayload = PayloadType('DeleteAccessTokenPayload', { accessToken: () => AccessTokenType });
