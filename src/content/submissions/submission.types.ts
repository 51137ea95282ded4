import { Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import { Node } from '../../api/graphql/node';
import { PayloadType } from '../../api/graphql/payload';
import { Connection } from '../../common/relay';
import { DateTimeScalar } from '../../api/graphql/scalars';

@ObjectType('Submission', { implements: Node, description: "A student's submission for an assignment: the latest attempt and its grade." })
export class SubmissionType extends Node {
  @Field(() => ID)
  _id: string;
  @Field(() => ID)
  assignmentId: number;
  @Field(() => ID)
  userId: number;
  @Field(() => ID)
  courseId: number;
  @Field({ description: 'unsubmitted, submitted, pending_review or graded' })
  workflowState: string;
  @Field(() => String, { nullable: true, description: 'online_text_entry, online_url, online_upload or online_quiz' })
  submissionType: string | null;
  @Field(() => String, { nullable: true })
  body: string | null;
  @Field(() => String, { nullable: true })
  url: string | null;
  @Field(() => Int, { nullable: true })
  attempt: number | null;
  @Field(() => DateTimeScalar, { nullable: true })
  submittedAt: Date | null;
  @Field(() => Float, { nullable: true })
  score: number | null;
  @Field(() => String, { nullable: true })
  grade: string | null;
  @Field(() => DateTimeScalar, { nullable: true })
  gradedAt: Date | null;
  @Field(() => ID, { nullable: true })
  graderId: number | null;
  @Field()
  excused: boolean;
  @Field(() => String, { nullable: true })
  latePolicyStatus: string | null;
  @Field()
  gradeMatchesCurrentSubmission: boolean;
  @Field(() => ID, { nullable: true })
  quizSubmissionId: number | null;
}

export const SubmissionConnection = Connection('Submission', SubmissionType);

@InputType()
export class CreateSubmissionInput {
  @Field(() => ID)
  assignmentId: string;
  @Field(() => ID, { nullable: true, description: 'When given, the assignment must belong to this course.' })
  courseId?: string | null;
  @Field(() => String, { nullable: true, description: 'online_text_entry, online_url or online_upload' })
  submissionType?: string | null;
  @Field(() => String, { nullable: true, description: 'online_text_entry: HTML, sanitised.' })
  body?: string | null;
  @Field(() => String, { nullable: true, description: 'online_url: http assumed without a scheme.' })
  url?: string | null;
  @Field(() => [ID], { nullable: true, description: "online_upload: ids of the student's own files." })
  fileIds?: string[] | null;
}

@InputType()
export class GradeSubmissionInput {
  @Field(() => ID)
  assignmentId: string;
  @Field(() => ID, { description: 'The student (numeric id, self, or sis_user_id:…).' })
  userId: string;
  @Field(() => ID, { nullable: true })
  courseId?: string | null;
  @Field(() => String, { nullable: true, description: 'Points ("13.5"), percent ("40%"), a letter, pass/complete/fail/incomplete; "" clears.' })
  postedGrade?: string | null;
  @Field(() => Boolean, { nullable: true })
  excuse?: boolean | null;
  @Field(() => String, { nullable: true, description: 'late, missing or none; "" clears.' })
  latePolicyStatus?: string | null;
}

export const SubmissionPayload = PayloadType('SubmissionPayload', { submission: () => SubmissionType });
