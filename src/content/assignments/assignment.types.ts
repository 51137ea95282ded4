import { ArgsType, Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import { Node } from '../../api/graphql/node';
import { PayloadType } from '../../api/graphql/payload';
import { Connection, ConnectionArgs } from '../../common/relay';
import { DateTimeScalar } from '../../api/graphql/scalars';

@ObjectType('Assignment', { implements: Node })
export class AssignmentType extends Node {
  @Field(() => ID)
  _id: string;
  @Field()
  name: string;
  @Field(() => String, { nullable: true, description: 'Sanitised HTML.' })
  description: string | null;
  @Field(() => ID)
  courseId: number;
  @Field(() => DateTimeScalar)
  createdAt: Date;
  @Field(() => DateTimeScalar)
  updatedAt: Date;
  @Field(() => DateTimeScalar, { nullable: true })
  dueAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  unlockAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  lockAt: Date | null;
  @Field(() => Float, { nullable: true })
  pointsPossible: number | null;
  @Field({ description: 'pass_fail, percent, letter_grade, gpa_scale, points or not_graded' })
  gradingType: string;
  @Field(() => [String])
  submissionTypes: string[];
  @Field()
  published: boolean;
  @Field({ description: 'published, unpublished or deleted' })
  workflowState: string;
  @Field(() => Int)
  position: number;
}

export const AssignmentConnection = Connection('Assignment', AssignmentType);

@InputType()
export class AssignmentFieldsInput {
  @Field(() => String, { nullable: true })
  name?: string | null;
  @Field(() => String, { nullable: true, description: 'HTML; sanitised on save.' })
  description?: string | null;
  @Field(() => Float, { nullable: true })
  pointsPossible?: number | null;
  @Field(() => String, { nullable: true })
  gradingType?: string | null;
  @Field(() => [String], { nullable: true })
  submissionTypes?: string[] | null;
  @Field(() => DateTimeScalar, { nullable: true })
  dueAt?: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  unlockAt?: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  lockAt?: Date | null;
  @Field(() => Boolean, { nullable: true })
  published?: boolean | null;
  @Field(() => Int, { nullable: true })
  position?: number | null;
}

@InputType()
export class CreateAssignmentInput extends AssignmentFieldsInput {
  @Field(() => ID)
  courseId: string;
}

@InputType()
export class UpdateAssignmentInput extends AssignmentFieldsInput {
  @Field(() => ID)
  id: string;
  @Field(() => ID, { nullable: true, description: 'When given, the assignment must belong to this course.' })
  courseId?: string | null;
}

@InputType()
export class ContentRefInput {
  @Field(() => ID)
  id: string;
  @Field(() => ID, { nullable: true, description: 'When given, the object must belong to this course.' })
  courseId?: string | null;
}

export const AssignmentPayload = PayloadType('AssignmentPayload', { assignment: () => AssignmentType });

@ArgsType()
export class SubmissionsArgs extends ConnectionArgs {
  @Field(() => [String], { nullable: true, description: 'Only submissions in these states.' })
  workflowStates?: string[] | null;
}
