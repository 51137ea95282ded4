import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { Node } from '../api/graphql/node';
import { PayloadType } from '../api/graphql/payload';
import { Connection } from '../common/relay';
import { DateTimeScalar } from '../api/graphql/scalars';

@ObjectType('Section', { implements: Node })
export class SectionType extends Node {
  @Field(() => ID)
  _id: string;
  @Field()
  name: string;
  @Field(() => ID)
  courseId: number;
  @Field(() => String, { nullable: true })
  sisSectionId: string | null;
  @Field(() => String, { nullable: true })
  integrationId: string | null;
  @Field(() => DateTimeScalar, { nullable: true })
  startAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  endAt: Date | null;
  @Field()
  restrictEnrollmentsToSectionDates: boolean;
  @Field()
  defaultSection: boolean;
  @Field(() => DateTimeScalar)
  createdAt: Date;
}

export const SectionConnection = Connection('Section', SectionType);

@InputType()
export class CreateSectionInput {
  @Field(() => ID)
  courseId: string;
  @Field(() => String, { nullable: true })
  name?: string | null;
  @Field(() => String, { nullable: true, description: 'Needs manage_sis; ignored otherwise.' })
  sisSectionId?: string | null;
  @Field(() => String, { nullable: true })
  integrationId?: string | null;
  @Field(() => DateTimeScalar, { nullable: true })
  startAt?: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  endAt?: Date | null;
  @Field(() => Boolean, { nullable: true })
  restrictEnrollmentsToSectionDates?: boolean | null;
}

export const SectionPayload = PayloadType('SectionPayload', { section: () => SectionType });
