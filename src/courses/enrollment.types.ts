import { ArgsType, Field, ID, InputType, ObjectType } from 'type-graphql';
import { Node } from '../api/graphql/node';
import { PayloadType } from '../api/graphql/payload';
import { Connection, ConnectionArgs } from '../common/relay';
import { DateTimeScalar } from '../api/graphql/scalars';

@ObjectType('Enrollment', { implements: Node })
export class EnrollmentType extends Node {
  @Field(() => ID)
  _id: string;
  @Field(() => ID)
  userId: number;
  @Field(() => ID)
  courseId: number;
  @Field(() => ID)
  courseSectionId: number;
  @Field(() => ID)
  rootAccountId: number;
  @Field({ description: 'StudentEnrollment, TeacherEnrollment, TaEnrollment, DesignerEnrollment or ObserverEnrollment' })
  type: string;
  @Field({ description: 'Role name; equal to the type for the base roles.' })
  role: string;
  @Field({ description: 'active, invited, creation_pending, inactive, completed, rejected or deleted' })
  state: string;
  @Field(() => ID, { nullable: true, description: 'For observers: the observed student.' })
  associatedUserId: number | null;
  @Field()
  limitPrivilegesToCourseSection: boolean;
  @Field(() => DateTimeScalar, { nullable: true })
  startAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  endAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  lastActivityAt: Date | null;
  @Field(() => DateTimeScalar)
  createdAt: Date;
  @Field(() => DateTimeScalar)
  updatedAt: Date;
}

export const EnrollmentConnection = Connection('Enrollment', EnrollmentType);

@ArgsType()
export class EnrollmentsArgs extends ConnectionArgs {
  @Field(() => [String], { nullable: true, description: 'Enrollment types to include.' })
  types?: string[] | null;
  @Field(() => [String], { nullable: true, description: 'States (or current_and_invited, current_and_future, current_and_concluded); default active and invited.' })
  states?: string[] | null;
  @Field(() => ID, { nullable: true })
  userId?: string | null;
  @Field(() => ID, { nullable: true })
  sectionId?: string | null;
}

@InputType()
export class CreateEnrollmentInput {
  @Field(() => ID)
  courseId: string;
  @Field(() => ID, { nullable: true, description: 'Required: user id, `self` or sis_user_id:…' })
  userId?: string | null;
  @Field(() => String, { nullable: true, description: 'Default StudentEnrollment.' })
  type?: string | null;
  @Field(() => String, { nullable: true, description: 'active, invited (default) or inactive' })
  enrollmentState?: string | null;
  @Field(() => ID, { nullable: true })
  courseSectionId?: string | null;
  @Field(() => ID, { nullable: true, description: 'For observers: the student observed.' })
  associatedUserId?: string | null;
  @Field(() => Boolean, { nullable: true })
  limitPrivilegesToCourseSection?: boolean | null;
  @Field(() => DateTimeScalar, { nullable: true })
  startAt?: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  endAt?: Date | null;
}

export const EnrollmentPayload = PayloadType('EnrollmentPayload', { enrollment: () => EnrollmentType });
