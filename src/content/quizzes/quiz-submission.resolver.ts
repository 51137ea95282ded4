import { Arg, Ctx, FieldResolver, Float, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { orHidden } from '../../common/visible';
import type { RequestContext } from '../../request/context';
import { NodeResolver, NodeType, registerNode } from '../../api/graphql/node';
import { mutationPayload } from '../../api/graphql/payload';
import { User } from '../../users/user.entity';
import { UserType } from '../../users/user.types';
import { QuizSubmission } from './quiz-submission.entity';
import { Quiz } from './quiz.entity';
import {
  CompleteQuizSubmissionInput,
  QuizSubmissionPayload,
  QuizSubmissionType,
  QuizType,
  StartQuizSubmissionInput,
  UpdateQuizSubmissionScoresInput,
} from './quiz.types';
import { QuizSubmissionService } from './quiz-submission.service';
import { QuizService } from './quiz.service';
import { UserService } from '../../users/user.service';

registerNode(NodeType.QuizSubmission, QuizSubmission, async (ctx, id) => {
  const qs = await ctx.ds.getRepository(QuizSubmission).findOneBy({ id });
  return qs ? ctx.use(QuizSubmissionService).show(null, String(qs.quizId), String(id)) : null;
});

@Resolver(() => QuizSubmissionType)
export class QuizSubmissionResolver extends NodeResolver(NodeType.QuizSubmission, QuizSubmissionType) {
  @Query(() => QuizSubmissionType, { description: 'A quiz submission: its taker, their observers and graders may read it.' })
  quizSubmission(
    @Arg('quizId', () => ID) quizId: string,
    @Arg('id', () => ID) id: string,
    @Arg('courseId', () => ID, { nullable: true }) courseId: string | null,
    @Ctx() ctx: RequestContext,
  ) {
    return ctx.use(QuizSubmissionService).show(courseId, quizId, id);
  }

  @Mutation(() => QuizSubmissionPayload, { description: 'Starts an attempt (or a preview).' })
  startQuizSubmission(@Arg('input') input: StartQuizSubmissionInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(QuizSubmissionService).start(input.courseId, input.quizId, input));
  }

  @Mutation(() => QuizSubmissionPayload, { description: 'Turns the current attempt in.' })
  completeQuizSubmission(@Arg('input') input: CompleteQuizSubmissionInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(QuizSubmissionService).complete(input.courseId, input.quizId, input.id, input));
  }

  @Mutation(() => QuizSubmissionPayload, { description: 'Sets fudge points and question scores of a completed attempt (manage_grades).' })
  updateQuizSubmissionScores(@Arg('input') input: UpdateQuizSubmissionScoresInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(QuizSubmissionService).updateScores(input.courseId, input.quizId, input.id, input));
  }

  @FieldResolver(() => Int, { nullable: true, description: 'Seconds between start and finish.' })
  timeSpent(@Root() qs: QuizSubmission): number | null {
    return qs.timeSpent;
  }

  @FieldResolver(() => Boolean, { description: 'In progress and past its end_at.' })
  overdueAndNeedsSubmission(@Root() qs: QuizSubmission): boolean {
    return qs.workflowState === 'untaken' && qs.endAt != null && qs.endAt.getTime() < Date.now();
  }

  @FieldResolver(() => Float, { nullable: true })
  async quizPointsPossible(@Root() qs: QuizSubmission, @Ctx() ctx: RequestContext): Promise<number | null> {
    return (await ctx.loaders.byId(Quiz).load(qs.quizId))?.pointsPossible ?? null;
  }

  @FieldResolver(() => Int, { nullable: true, description: 'Attempts the student may still start; null when unlimited.' })
  async attemptsLeft(@Root() qs: QuizSubmission, @Ctx() ctx: RequestContext): Promise<number | null> {
    const quiz = await ctx.loaders.byId(Quiz).load(qs.quizId);
    return quiz ? ctx.use(QuizSubmissionService).attemptsLeft(quiz, qs) : null;
  }

  @FieldResolver(() => String, { nullable: true, description: 'Only for the taker: needed to complete the attempt.' })
  validationToken(@Root() qs: QuizSubmission, @Ctx() ctx: RequestContext): string | null {
    return qs.userId === ctx.viewer?.id ? qs.validationToken : null;
  }

  @FieldResolver(() => QuizType, { nullable: true })
  quiz(@Root() qs: QuizSubmission, @Ctx() ctx: RequestContext): Promise<Quiz | null> {
    return orHidden(async () => (await ctx.use(QuizService).find(null, qs.quizId)).quiz);
  }

  @FieldResolver(() => UserType, { nullable: true })
  user(@Root() qs: QuizSubmission, @Ctx() ctx: RequestContext): Promise<User | null> {
    return orHidden(ctx.use(UserService).find(qs.userId));
  }
}
