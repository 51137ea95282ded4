import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { Node } from '../../api/graphql/node';
import { PayloadType } from '../../api/graphql/payload';
import { Connection } from '../../common/relay';
import { DateTimeScalar } from '../../api/graphql/scalars';

@ObjectType('ExternalToolCustomField')
export class CustomFieldType {
  @Field()
  name: string;
  @Field()
  value: string;
}

@InputType()
export class CustomFieldInput {
  @Field()
  name: string;
  @Field()
  value: string;
}

@ObjectType('ExternalTool', { implements: Node, description: 'A course external tool (LTI); its shared secret is never shown.' })
export class ExternalToolType extends Node {
  @Field(() => ID)
  _id: string;
  @Field(() => ID)
  courseId: number;
  @Field()
  name: string;
  @Field(() => String, { nullable: true })
  description: string | null;
  @Field(() => String, { nullable: true })
  url: string | null;
  @Field(() => String, { nullable: true })
  domain: string | null;
  @Field(() => String, { nullable: true })
  consumerKey: string | null;
  @Field({ description: 'anonymous, name_only, email_only or public' })
  privacyLevel: string;
  @Field({ description: 'active or deleted' })
  workflowState: string;
  @Field(() => DateTimeScalar)
  createdAt: Date;
  @Field(() => DateTimeScalar)
  updatedAt: Date;
}

export const ExternalToolConnection = Connection('ExternalTool', ExternalToolType);

@InputType()
export class ExternalToolFieldsInput {
  @Field(() => String, { nullable: true })
  name?: string | null;
  @Field(() => String, { nullable: true })
  description?: string | null;
  @Field(() => String, { nullable: true, description: 'Launch URL (http or https); this or domain is required.' })
  url?: string | null;
  @Field(() => String, { nullable: true })
  domain?: string | null;
  @Field(() => String, { nullable: true })
  consumerKey?: string | null;
  @Field(() => String, { nullable: true, description: 'Stored for signing launches; never returned.' })
  sharedSecret?: string | null;
  @Field(() => String, { nullable: true })
  privacyLevel?: string | null;
  @Field(() => [CustomFieldInput], { nullable: true })
  customFields?: CustomFieldInput[] | null;
}

@InputType()
export class CreateExternalToolInput extends ExternalToolFieldsInput {
  @Field(() => ID)
  courseId: string;
}

@InputType()
export class UpdateExternalToolInput extends ExternalToolFieldsInput {
  @Field(() => ID)
  id: string;
  @Field(() => ID, { nullable: true })
  courseId?: string | null;
}

export const ExternalToolPayload = PayloadType('ExternalToolPayload', { externalTool: () => ExternalToolType });
