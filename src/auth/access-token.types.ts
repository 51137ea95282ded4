import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { PayloadType } from '../graphql/payload';
import { DateTimeScalar } from '../graphql/scalars';

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

  @Field({ description: 'The full token in the response that created it; `<hint>...` afterwards.' })
  visibleToken: string;
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
