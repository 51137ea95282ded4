import { ArgsType, Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { Node } from '../api/graphql/node';
import { PayloadType } from '../api/graphql/payload';
import { Connection, ConnectionArgs } from '../common/relay';
import { DateTimeScalar } from '../api/graphql/scalars';

@ObjectType('Course', { implements: Node })
export class CourseType extends Node {
  @Field(() => ID)
  _id: string;

  @Field()
  name: string;

  @Field()
  courseCode: string;

  @Field({ description: 'unpublished, available, completed or deleted' })
  workflowState: string;

  @Field(() => ID)
  accountId: number;

  @Field(() => ID)
  rootAccountId: number;

  @Field()
  uuid: string;

  @Field(() => DateTimeScalar, { nullable: true })
  startAt: Date | null;

  @Field(() => DateTimeScalar, { nullable: true })
  endAt: Date | null;

  @Field(() => DateTimeScalar)
  createdAt: Date;

  @Field(() => String, { nullable: true, description: 'Only for callers who may read SIS data.' })
  sisCourseId: string | null;

  @Field(() => String, { nullable: true, description: 'Only for callers who may read SIS data.' })
  integrationId: string | null;

  @Field(() => Int, { nullable: true })
  storageQuotaMb: number | null;

  @Field(() => String, { nullable: true })
  timeZone: string | null;

  @Field()
  defaultView: string;

  @Field(() => String, { nullable: true })
  license: string | null;

  @Field()
  isPublic: boolean;

  @Field(() => String, { nullable: true })
  publicDescription: string | null;

  @Field()
  restrictEnrollmentsToCourseDates: boolean;

  @Field({ description: 'Mastery Paths (conditional release) is on.' })
  masteryPathsEnabled: boolean;

  @Field({ description: 'Concluded: completed or past its end date.' })
  concluded: boolean;
}

export const CourseConnection = Connection('Course', CourseType);

@ArgsType()
export class CoursesArgs extends ConnectionArgs {
  @Field(() => String, { nullable: true, description: 'active, invited_or_pending or completed' })
  enrollmentState?: string | null;

  @Field(() => String, { nullable: true, description: 'teacher, student, ta, observer or designer' })
  enrollmentType?: string | null;
}

@InputType()
class CourseFieldsInput {
  @Field(() => String, { nullable: true })
  name?: string | null;
  @Field(() => String, { nullable: true })
  courseCode?: string | null;
  @Field(() => DateTimeScalar, { nullable: true })
  startAt?: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  endAt?: Date | null;
  @Field(() => String, { nullable: true, description: 'Needs manage_sis; ignored otherwise.' })
  sisCourseId?: string | null;
  @Field(() => String, { nullable: true, description: 'Needs manage_sis; ignored otherwise.' })
  integrationId?: string | null;
  @Field(() => Int, { nullable: true, description: 'Needs manage_storage_quotas; ignored otherwise.' })
  storageQuotaMb?: number | null;
  @Field(() => String, { nullable: true })
  timeZone?: string | null;
  @Field(() => String, { nullable: true })
  license?: string | null;
  @Field(() => Boolean, { nullable: true })
  isPublic?: boolean | null;
  @Field(() => String, { nullable: true })
  publicDescription?: string | null;
  @Field(() => String, { nullable: true })
  defaultView?: string | null;
  @Field(() => Boolean, { nullable: true })
  restrictEnrollmentsToCourseDates?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'Mastery Paths (conditional release).' })
  masteryPathsEnabled?: boolean | null;
}

@InputType()
export class CreateCourseInput extends CourseFieldsInput {
  @Field(() => ID)
  accountId: string;
  @Field(() => Boolean, { nullable: true, description: 'Publish the course at once.' })
  offer?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'Enroll the caller as an active teacher.' })
  enrollMe?: boolean | null;
}

@InputType()
export class UpdateCourseInput extends CourseFieldsInput {
  @Field(() => ID)
  id: string;
  @Field(() => String, { nullable: true, description: 'offer, claim, conclude, delete or undelete' })
  event?: string | null;
}

export const CoursePayload = PayloadType('CoursePayload', { course: () => CourseType });
