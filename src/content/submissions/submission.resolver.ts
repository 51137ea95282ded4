import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { orHidden } from '../../common/visible';
import type { RequestContext } from '../../request/context';
import { NodeResolver, NodeType, registerNode } from '../../api/graphql/node';
import { mutationPayload } from '../../api/graphql/payload';
import { DateTimeScalar } from '../../api/graphql/scalars';
import { User } from '../../users/user.entity';
import { UserType } from '../../users/user.types';
import { Assignment } from '../assignments/assignment.entity';
import { AssignmentType } from '../assignments/assignment.types';
import { Submission } from './submission.entity';
import { CreateSubmissionInput, GradeSubmissionInput, SubmissionPayload, SubmissionType } from './submission.types';
import { ListBound } from '../../common/list-bounds';
import { SubmissionService } from './submission.service';
import { AssignmentService } from '../assignments/assignment.service';
import { UserService } from '../../users/user.service';

registerNode(NodeType.Submission, Submission, async (ctx, id) => {
  const s = await ctx.ds.getRepository(Submission).findOneBy({ id });
  return s ? ctx.use(SubmissionService).show(null, String(s.assignmentId), String(s.userId)) : null;
});

@Resolver(() => SubmissionType)
export class SubmissionResolver extends NodeResolver(NodeType.Submission, SubmissionType) {
  @Query(() => SubmissionType, { description: "A student's submission for an assignment (the student, their observers and graders may read it)." })
  submission(
    @Arg('assignmentId', () => ID) assignmentId: string,
    @Arg('userId', () => ID, { description: 'Numeric id, self, or sis_user_id:…' }) userId: string,
    @Arg('courseId', () => ID, { nullable: true }) courseId: string | null,
    @Ctx() ctx: RequestContext,
  ) {
    return ctx.use(SubmissionService).show(courseId, assignmentId, userId);
  }

  @Mutation(() => SubmissionPayload, { description: 'Submits a new attempt for the calling student.' })
  createSubmission(@Arg('input') input: CreateSubmissionInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(SubmissionService).submit(input.courseId, input.assignmentId, input));
  }

  @Mutation(() => SubmissionPayload, { description: 'Grades, clears, excuses or sets the late policy status of a submission (manage_grades).' })
  gradeSubmission(@Arg('input') input: GradeSubmissionInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(SubmissionService).grade(input.courseId, input.assignmentId, input.userId, input));
  }

  @FieldResolver(() => Boolean)
  async late(@Root() s: Submission, @Ctx() ctx: RequestContext): Promise<boolean> {
    return (await ctx.use(SubmissionService).status(s)).late;
  }

  @FieldResolver(() => Boolean)
  async missing(@Root() s: Submission, @Ctx() ctx: RequestContext): Promise<boolean> {
    return (await ctx.use(SubmissionService).status(s)).missing;
  }

  @FieldResolver(() => Int)
  async secondsLate(@Root() s: Submission, @Ctx() ctx: RequestContext): Promise<number> {
    return (await ctx.use(SubmissionService).status(s)).secondsLate;
  }

  @FieldResolver(() => DateTimeScalar, { nullable: true, description: "The assignment's due date for this student." })
  async cachedDueDate(@Root() s: Submission, @Ctx() ctx: RequestContext): Promise<Date | null> {
    return (await ctx.use(SubmissionService).status(s)).dueAt;
  }

  @FieldResolver(() => DateTimeScalar, { nullable: true, description: 'Grades are posted as soon as they are given.' })
  postedAt(@Root() s: Submission): Date | null {
    return s.score != null || s.excused ? s.gradedAt : null;
  }

  @ListBound(100)
  @FieldResolver(() => [ID], { description: 'Files of an online_upload.' })
  attachmentIds(@Root() s: Submission): number[] {
    return s.fileIds;
  }

  @FieldResolver(() => AssignmentType, { nullable: true })
  assignment(@Root() s: Submission, @Ctx() ctx: RequestContext): Promise<Assignment | null> {
    return orHidden(async () => (await ctx.use(AssignmentService).find(null, s.assignmentId)).assignment);
  }

  @FieldResolver(() => UserType, { nullable: true })
  user(@Root() s: Submission, @Ctx() ctx: RequestContext): Promise<User | null> {
    return orHidden(ctx.use(UserService).find(s.userId));
  }
}
