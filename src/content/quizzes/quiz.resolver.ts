import { Arg, Args, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Course } from '../../courses/course.entity';
import { orHidden } from '../../common/visible';
import type { RequestContext } from '../../request/context';
import { NodeResolver, NodeType, registerNode } from '../../api/graphql/node';
import { mutationPayload } from '../../api/graphql/payload';
import { ConnectionArgs } from '../../common/relay';
import { Assignment } from '../assignments/assignment.entity';
import { AssignmentType, ContentRefInput } from '../assignments/assignment.types';
import { lockExplanation, lockInfo, LockInfoType } from '../content.types';
import { Quiz } from './quiz.entity';
import { CreateQuizInput, QuizPayload, QuizPermissionsType, QuizSubmissionConnection, QuizType, UpdateQuizInput } from './quiz.types';
import { QuizService } from './quiz.service';
import { ContentAccess } from '../content-access';
import { AssignmentService } from '../assignments/assignment.service';
import { QuizSubmissionService } from './quiz-submission.service';

registerNode(NodeType.Quiz, Quiz, async (ctx, id) => (await ctx.use(QuizService).find(null, id)).quiz);

@Resolver(() => QuizType)
export class QuizResolver extends NodeResolver(NodeType.Quiz, QuizType) {
  @Query(() => QuizType, { description: "A quiz the viewer may see; a student's read counts as a view." })
  quiz(@Arg('id', () => ID) id: string, @Arg('courseId', () => ID, { nullable: true }) courseId: string | null, @Ctx() ctx: RequestContext) {
    return ctx.use(QuizService).show(courseId, id);
  }

  @Mutation(() => QuizPayload, { description: 'Creates a quiz; graded types get a backing assignment (manage_assignments).' })
  createQuiz(@Arg('input') input: CreateQuizInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(QuizService).create(input.courseId, input));
  }

  @Mutation(() => QuizPayload)
  updateQuiz(@Arg('input') input: UpdateQuizInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(QuizService).update(input.courseId, input.id, input));
  }

  @Mutation(() => QuizPayload, { description: 'Deletes the quiz and its assignment.' })
  deleteQuiz(@Arg('input') input: ContentRefInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(QuizService).delete(input.courseId, input.id));
  }

  @FieldResolver(() => Boolean)
  published(@Root() q: Quiz): boolean {
    return q.published;
  }

  @FieldResolver(() => Boolean, { description: 'Can be unpublished: no student has taken it.' })
  async unpublishable(@Root() q: Quiz, @Ctx() ctx: RequestContext): Promise<boolean> {
    return !(await ctx.use(QuizService).hasStudentSubmissions(q));
  }

  @FieldResolver(() => String, { nullable: true, description: 'Only for those who manage the quiz.' })
  async accessCode(@Root() q: Quiz, @Ctx() ctx: RequestContext): Promise<string | null> {
    const course = await ctx.loaders.byId(Course).load(q.courseId);
    return course && (await ctx.authz.canCourse(course, 'manage_assignments')) ? q.accessCode : null;
  }

  @FieldResolver(() => Int, { description: 'Questions are not modelled here: always 0.' })
  questionCount(): number {
    return 0;
  }

  @FieldResolver(() => Boolean)
  async lockedForUser(@Root() q: Quiz, @Ctx() ctx: RequestContext): Promise<boolean> {
    return (await ctx.use(QuizService).lockFor(q)).locked;
  }

  @FieldResolver(() => LockInfoType, { nullable: true })
  async lockInfo(@Root() q: Quiz, @Ctx() ctx: RequestContext): Promise<LockInfoType | null> {
    return lockInfo(await ctx.use(QuizService).lockFor(q));
  }

  @FieldResolver(() => String, { nullable: true })
  async lockExplanation(@Root() q: Quiz, @Ctx() ctx: RequestContext): Promise<string | null> {
    return lockExplanation('quiz', await ctx.use(QuizService).lockFor(q));
  }

  @FieldResolver(() => String)
  htmlUrl(@Root() q: Quiz, @Ctx() ctx: RequestContext): string {
    return `${ctx.baseUrl}/courses/${q.courseId}/quizzes/${q.id}`;
  }

  @FieldResolver(() => QuizPermissionsType)
  async permissions(@Root() q: Quiz, @Ctx() ctx: RequestContext): Promise<QuizPermissionsType> {
    const course = await ctx.loaders.byId(Course).load(q.courseId);
    const can = (p: Parameters<RequestContext['authz']['canCourse']>[1]) => (course ? ctx.authz.canCourse(course, p) : Promise.resolve(false));
    const [manage, grade, viewAll, student] = await Promise.all([can('manage_assignments'), can('manage_grades'), can('view_all_grades'), course ? ctx.use(ContentAccess).isStudent(course) : false]);
    return { read: true, submit: student && q.published, create: manage, manage, update: manage, delete: manage, grade, readStatistics: grade || viewAll, reviewGrades: grade || viewAll };
  }

  @FieldResolver(() => AssignmentType, { nullable: true })
  async assignment(@Root() q: Quiz, @Ctx() ctx: RequestContext): Promise<Assignment | null> {
    if (!q.assignmentId) return null;
    const id = q.assignmentId;
    return orHidden(async () => (await ctx.use(AssignmentService).find(null, id)).assignment);
  }

  @FieldResolver(() => QuizSubmissionConnection, { description: "Graders: every student's; a student: the attempt in progress, else every attempt turned in." })
  submissionsConnection(@Root() q: Quiz, @Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(QuizSubmissionService).list(q, args);
  }
}
