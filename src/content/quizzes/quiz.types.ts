import { Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import { Node } from '../../api/graphql/node';
import { PayloadType } from '../../api/graphql/payload';
import { Connection } from '../../common/relay';
import { DateTimeScalar } from '../../api/graphql/scalars';

@ObjectType('Quiz', { implements: Node, description: 'A classic quiz; graded types are graded through a backing assignment.' })
export class QuizType extends Node {
  @Field(() => ID)
  _id: string;
  @Field()
  title: string;
  @Field(() => String, { nullable: true })
  description: string | null;
  @Field(() => ID)
  courseId: number;
  @Field({ description: 'practice_quiz, assignment, graded_survey or survey' })
  quizType: string;
  @Field(() => ID, { nullable: true })
  assignmentId: number | null;
  @Field(() => Int, { nullable: true, description: 'Minutes.' })
  timeLimit: number | null;
  @Field(() => Int, { description: '-1 for unlimited.' })
  allowedAttempts: number;
  @Field({ description: 'keep_highest or keep_latest' })
  scoringPolicy: string;
  @Field()
  shuffleAnswers: boolean;
  @Field(() => Float, { nullable: true })
  pointsPossible: number | null;
  @Field(() => DateTimeScalar, { nullable: true })
  dueAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  unlockAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  lockAt: Date | null;
  @Field({ description: 'unpublished, available or deleted' })
  workflowState: string;
  @Field(() => DateTimeScalar)
  createdAt: Date;
  @Field(() => DateTimeScalar)
  updatedAt: Date;
}

export const QuizConnection = Connection('Quiz', QuizType);

@ObjectType('QuizPermissions', { description: "The viewer's rights on a quiz." })
export class QuizPermissionsType {
  @Field()
  read: boolean;
  @Field()
  submit: boolean;
  @Field()
  create: boolean;
  @Field()
  manage: boolean;
  @Field()
  update: boolean;
  @Field()
  delete: boolean;
  @Field()
  grade: boolean;
  @Field()
  readStatistics: boolean;
  @Field()
  reviewGrades: boolean;
}

@ObjectType('QuizSubmission', { implements: Node, description: "One person's submission for a quiz: its current (or a turned-in) attempt." })
export class QuizSubmissionType extends Node {
  @Field(() => ID)
  _id: string;
  @Field(() => ID)
  quizId: number;
  @Field(() => ID)
  userId: number;
  @Field(() => ID, { nullable: true, description: 'The backing assignment submission.' })
  submissionId: number | null;
  @Field(() => Int)
  attempt: number;
  @Field({ description: 'untaken, pending_review, complete, settings_only or preview' })
  workflowState: string;
  @Field(() => Float, { nullable: true })
  score: number | null;
  @Field(() => Float, { nullable: true })
  keptScore: number | null;
  @Field(() => Float, { nullable: true })
  fudgePoints: number | null;
  @Field(() => DateTimeScalar, { nullable: true })
  startedAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  finishedAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true, description: 'When the attempt must be turned in (time limit, extra time, lock date).' })
  endAt: Date | null;
  @Field(() => Int, { nullable: true })
  extraAttempts: number | null;
  @Field(() => Int, { nullable: true, description: 'Minutes.' })
  extraTime: number | null;
  @Field()
  manuallyUnlocked: boolean;
}

export const QuizSubmissionConnection = Connection('QuizSubmission', QuizSubmissionType);

@InputType()
export class QuizFieldsInput {
  @Field(() => String, { nullable: true })
  title?: string | null;
  @Field(() => String, { nullable: true, description: 'HTML; sanitised on save.' })
  description?: string | null;
  @Field(() => String, { nullable: true, description: 'practice_quiz, assignment, graded_survey or survey' })
  quizType?: string | null;
  @Field(() => Int, { nullable: true, description: 'Minutes; null for none.' })
  timeLimit?: number | null;
  @Field(() => Int, { nullable: true, description: 'Default 1; -1 for unlimited.' })
  allowedAttempts?: number | null;
  @Field(() => String, { nullable: true, description: 'keep_highest or keep_latest' })
  scoringPolicy?: string | null;
  @Field(() => Boolean, { nullable: true })
  shuffleAnswers?: boolean | null;
  @Field(() => String, { nullable: true })
  accessCode?: string | null;
  @Field(() => Float, { nullable: true })
  pointsPossible?: number | null;
  @Field(() => DateTimeScalar, { nullable: true })
  dueAt?: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  unlockAt?: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  lockAt?: Date | null;
  @Field(() => Boolean, { nullable: true })
  published?: boolean | null;
}

@InputType()
export class CreateQuizInput extends QuizFieldsInput {
  @Field(() => ID)
  courseId: string;
}

@InputType()
export class UpdateQuizInput extends QuizFieldsInput {
  @Field(() => ID)
  id: string;
  @Field(() => ID, { nullable: true })
  courseId?: string | null;
}

export const QuizPayload = PayloadType('QuizPayload', { quiz: () => QuizType });

@InputType()
export class StartQuizSubmissionInput {
  @Field(() => ID)
  quizId: string;
  @Field(() => ID, { nullable: true })
  courseId?: string | null;
  @Field(() => String, { nullable: true })
  accessCode?: string | null;
  @Field(() => Boolean, { nullable: true, description: "A preview attempt that counts for nothing (the quiz's authors only)." })
  preview?: boolean | null;
}

@InputType()
export class CompleteQuizSubmissionInput {
  @Field(() => ID)
  quizId: string;
  @Field(() => ID)
  id: string;
  @Field(() => ID, { nullable: true })
  courseId?: string | null;
  @Field(() => String, { nullable: true, description: 'Must be the current attempt.' })
  attempt?: string | null;
  @Field(() => String, { nullable: true, description: 'From the start response.' })
  validationToken?: string | null;
  @Field(() => String, { nullable: true })
  accessCode?: string | null;
}

@InputType()
export class QuestionScoreInputType {
  @Field(() => ID)
  questionId: string;
  @Field(() => Float, { nullable: true })
  score?: number | null;
  @Field(() => String, { nullable: true })
  comment?: string | null;
}

@InputType()
export class UpdateQuizSubmissionScoresInput {
  @Field(() => ID)
  quizId: string;
  @Field(() => ID)
  id: string;
  @Field(() => ID, { nullable: true })
  courseId?: string | null;
  @Field(() => Int, { nullable: true, description: 'A completed attempt.' })
  attempt?: number | null;
  @Field(() => Float, { nullable: true, description: 'Points added to (or, negative, taken from) the question scores.' })
  fudgePoints?: number | null;
  @Field(() => [QuestionScoreInputType], { nullable: true })
  questions?: QuestionScoreInputType[] | null;
}

export const QuizSubmissionPayload = PayloadType('QuizSubmissionPayload', { quizSubmission: () => QuizSubmissionType });
