import { Field, ID, ObjectType } from 'type-graphql';
import { Node } from '../api/graphql/node';

@ObjectType('Account', { implements: Node })
export class AccountType extends Node {
  @Field(() => ID)
  _id: string;

  @Field()
  name: string;

  @Field(() => ID, { nullable: true })
  parentAccountId: number | null;

  @Field(() => ID, { nullable: true, description: 'Null for a root account.' })
  rootAccountId: number | null;

  @Field()
  workflowState: string;

  @Field()
  uuid: string;

  @Field(() => String, { nullable: true })
  defaultTimeZone: string | null;

  @Field(() => String, { nullable: true })
  sisAccountId: string | null;
}
