import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { PayloadType } from '../api/graphql/payload';
import { DateTimeScalar } from '../api/graphql/scalars';

@ObjectType('QuizExtension', { description: "One student's extension settings on one quiz: Canvas's CourseQuizExtension, with the quiz it applies to." })
export class QuizExtensionType {
  @Field(() => ID)
  quizId: number;
  @Field(() => ID)
  userId: number;
  @Field(() => ID, { description: 'The quiz submission that carries the settings (settings-only until the student starts).' })
  quizSubmissionId: number;
  @Field(() => Int, { nullable: true, description: 'Re-takes over the quiz\'s allowed attempts.' })
  extraAttempts: number | null;
  @Field(() => Int, { nullable: true, description: 'Minutes added to the time limit of every attempt started from now on.' })
  extraTime: number | null;
  @Field({ description: 'The student may take the quiz even while it is locked for everyone else.' })
  manuallyUnlocked: boolean;
  @Field(() => DateTimeScalar, { nullable: true, description: 'When the current attempt becomes overdue (flagged late).' })
  endAt: Date | null;
}

@InputType({ description: 'One student\'s extension. Absent (or null) settings stay as they are. Limits: extraAttempts ≤ 1000, extraTime ≤ 10080, extendFromNow and extendFromEndAt ≤ 1440; none negative.' })
export class QuizExtensionInput {
  @Field(() => ID, { nullable: true, description: 'Required: a current student of the course.' })
  userId?: string | null;
  @Field(() => Int, { nullable: true })
  extraAttempts?: number | null;
  @Field(() => Int, { nullable: true, description: 'Minutes.' })
  extraTime?: number | null;
  @Field(() => Boolean, { nullable: true })
  manuallyUnlocked?: boolean | null;
  @Field(() => Int, { nullable: true, description: 'Minutes from now: the new end of a timed attempt in progress. Not with extendFromEndAt.' })
  extendFromNow?: number | null;
  @Field(() => Int, { nullable: true, description: 'Minutes added to the end of a timed attempt in progress. Not with extendFromNow.' })
  extendFromEndAt?: number | null;
}

@InputType()
export class SetCourseQuizExtensionsInput {
  @Field(() => ID)
  courseId: string;
  @Field(() => [QuizExtensionInput], { description: 'Applied to each student\'s submission of every quiz of the course, all or nothing.' })
  quizExtensions: QuizExtensionInput[];
}

export const SetCourseQuizExtensionsPayload = PayloadType('SetCourseQuizExtensionsPayload', {
  quizExtensions: { type: () => [QuizExtensionType], description: 'One per (quiz, entry) pair: by quiz id, in request order within a quiz.', maxItems: 10_000 },
});
