import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../request/context';
import { NodeResolver, NodeType, registerNode } from '../../api/graphql/node';
import { mutationPayload } from '../../api/graphql/payload';
import { lockExplanation, lockInfo, LockInfoType } from '../content.types';
import { SubmissionConnection } from '../submissions/submission.types';
import { Assignment } from './assignment.entity';
import { AssignmentPayload, AssignmentType, ContentRefInput, CreateAssignmentInput, SubmissionsArgs, UpdateAssignmentInput } from './assignment.types';
import { ListBound } from '../../common/list-bounds';
import { AssignmentService } from './assignment.service';
import { QuizService } from '../quizzes/quiz.service';
import { SubmissionService } from '../submissions/submission.service';

registerNode(NodeType.Assignment, Assignment, async (ctx, id) => (await ctx.use(AssignmentService).find(null, id)).assignment);

@Resolver(() => AssignmentType)
export class AssignmentResolver extends NodeResolver(NodeType.Assignment, AssignmentType) {
  @Query(() => AssignmentType, { description: "An assignment the viewer may see; a student's read counts as a view." })
  assignment(@Arg('id', () => ID) id: string, @Arg('courseId', () => ID, { nullable: true }) courseId: string | null, @Ctx() ctx: RequestContext) {
    return ctx.use(AssignmentService).show(courseId, id);
  }

  @Mutation(() => AssignmentPayload, { description: 'Creates an assignment (manage_assignments).' })
  createAssignment(@Arg('input') input: CreateAssignmentInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(AssignmentService).create(input.courseId, input));
  }

  @Mutation(() => AssignmentPayload)
  updateAssignment(@Arg('input') input: UpdateAssignmentInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(AssignmentService).update(input.courseId, input.id, input));
  }

  @Mutation(() => AssignmentPayload, { description: "Deletes the assignment (and a quiz's assignment deletes its quiz)." })
  deleteAssignment(@Arg('input') input: ContentRefInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(AssignmentService).delete(input.courseId, input.id));
  }

  @ListBound(20)
  @FieldResolver(() => [String])
  submissionTypes(@Root() a: Assignment): string[] {
    return a.types;
  }

  @FieldResolver(() => Boolean)
  published(@Root() a: Assignment): boolean {
    return a.published;
  }

  @FieldResolver(() => ID, { nullable: true, description: 'The quiz this assignment grades.' })
  async quizId(@Root() a: Assignment, @Ctx() ctx: RequestContext): Promise<number | null> {
    return (await ctx.use(QuizService).backedByLoader().load(a.id))?.id ?? null;
  }

  @FieldResolver(() => Boolean)
  async isQuizAssignment(@Root() a: Assignment, @Ctx() ctx: RequestContext): Promise<boolean> {
    return a.types.includes('online_quiz') && (await ctx.use(QuizService).backedByLoader().load(a.id)) != null;
  }

  @FieldResolver(() => Boolean, { description: 'Students have turned something in.' })
  hasSubmittedSubmissions(@Root() a: Assignment, @Ctx() ctx: RequestContext): Promise<boolean> {
    return ctx.use(AssignmentService).hasSubmittedLoader().load(a.id);
  }

  @FieldResolver(() => Boolean, { description: 'Can be unpublished: nothing has been submitted.' })
  async unpublishable(@Root() a: Assignment, @Ctx() ctx: RequestContext): Promise<boolean> {
    return !(await ctx.use(AssignmentService).hasSubmittedLoader().load(a.id));
  }

  @FieldResolver(() => Boolean)
  async lockedForUser(@Root() a: Assignment, @Ctx() ctx: RequestContext): Promise<boolean> {
    return (await ctx.use(AssignmentService).lockFor(a)).locked;
  }

  @FieldResolver(() => LockInfoType, { nullable: true })
  async lockInfo(@Root() a: Assignment, @Ctx() ctx: RequestContext): Promise<LockInfoType | null> {
    return lockInfo(await ctx.use(AssignmentService).lockFor(a));
  }

  @FieldResolver(() => String, { nullable: true })
  async lockExplanation(@Root() a: Assignment, @Ctx() ctx: RequestContext): Promise<string | null> {
    return lockExplanation('assignment', await ctx.use(AssignmentService).lockFor(a));
  }

  @FieldResolver(() => String)
  htmlUrl(@Root() a: Assignment, @Ctx() ctx: RequestContext): string {
    return `${ctx.baseUrl}/courses/${a.courseId}/assignments/${a.id}`;
  }

  @FieldResolver(() => SubmissionConnection, { description: "Graders see every student's submission; students their own, observers their students'." })
  submissionsConnection(@Root() a: Assignment, @Args() args: SubmissionsArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(SubmissionService).listForAssignment(a, args);
  }
}
