import { Arg, Args, Ctx, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../request/context';
import { orHidden } from '../common/visible';
import { ListBound } from '../common/list-bounds';
import { parseAnyId } from '../common/relay';
import { AssignmentType } from '../content/assignments/assignment.types';
import type { Assignment } from '../content/assignments/assignment.entity';
import { AssignmentService } from '../content/assignments/assignment.service';
import { QuizType } from '../content/quizzes/quiz.types';
import type { Quiz } from '../content/quizzes/quiz.entity';
import { QuizService } from '../content/quizzes/quiz.service';
import { CourseType } from '../courses/course.types';
import type { Course } from '../courses/course.entity';
import { CourseService } from '../courses/course.service';
import { PlannerOverrideType } from '../planner/planner.types';
import { userIdArg } from '../users/user.resolver';
import { MissingSubmissionConnection, MissingSubmissionsArgs, MissingSubmissionType, TodoItemConnection, TodoItemCountType, TodoItemsArgs, TodoItemType, UpcomingEventType } from './todo.types';
import { TodoService } from './todo.service';
import type { TodoEntry } from './todo.service';
import { UpcomingEventsService } from './upcoming.service';
import type { UpcomingEvent } from './upcoming.service';
import { MissingSubmissionsService } from './missing-submissions.service';
import type { MissingSubmission } from './missing-submissions.service';

const courseArg = (id: string | null | undefined) => (id == null ? id : String(parseAnyId(id, 'Course') ?? id));

/** The objects an entry names, each through its own checked lookup (absent when the viewer may not see it). */
const assignmentOf = (ctx: RequestContext, courseId: number, id: number | null) =>
  id == null ? Promise.resolve(null) : orHidden(async () => (await ctx.use(AssignmentService).find(courseId, id)).assignment);

@Resolver(() => TodoItemType)
export class TodoItemResolver {
  @Query(() => TodoItemConnection, { description: "The viewer's to-do list (Canvas's users/self/todo, or a course's with courseId)." })
  todoItems(@Args() args: TodoItemsArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(TodoService).list({ ...args, courseId: courseArg(args.courseId) });
  }

  @Query(() => TodoItemCountType, { description: "Counts of the viewer's to-do list." })
  todoItemCount(@Arg('includeUngradedQuizzes', () => Boolean, { nullable: true }) includeUngradedQuizzes: boolean | null, @Ctx() ctx: RequestContext) {
    return ctx.use(TodoService).count({ includeUngradedQuizzes });
  }

  @FieldResolver(() => String)
  contextType(): string {
    return 'Course';
  }

  @FieldResolver(() => AssignmentType, { nullable: true })
  assignment(@Root() e: TodoEntry, @Ctx() ctx: RequestContext): Promise<Assignment | null> {
    return assignmentOf(ctx, e.courseId, e.assignmentId);
  }

  @FieldResolver(() => QuizType, { nullable: true })
  quiz(@Root() e: TodoEntry, @Ctx() ctx: RequestContext): Promise<Quiz | null> {
    return e.quizId == null ? Promise.resolve(null) : orHidden(async () => (await ctx.use(QuizService).find(e.courseId, e.quizId!)).quiz);
  }
}

@Resolver(() => UpcomingEventType)
export class UpcomingEventResolver {
  @ListBound(20)
  @Query(() => [UpcomingEventType], { description: "The viewer's upcoming events: assignments due within a week in their courses, soonest first (at most 20)." })
  upcomingEvents(@Ctx() ctx: RequestContext): Promise<UpcomingEvent[]> {
    return ctx.use(UpcomingEventsService).list();
  }

  @FieldResolver(() => AssignmentType, { nullable: true })
  assignment(@Root() e: UpcomingEvent, @Ctx() ctx: RequestContext): Promise<Assignment | null> {
    return e.courseId == null ? Promise.resolve(null) : assignmentOf(ctx, e.courseId, e.assignmentId);
  }
}

@Resolver(() => MissingSubmissionType)
export class MissingSubmissionResolver {
  @Query(() => MissingSubmissionConnection, { description: "A user's past-due assignments with nothing turned in (the viewer's, or a student's they observe), by due date." })
  missingSubmissions(@Args() args: MissingSubmissionsArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(MissingSubmissionsService).list({
      ...args,
      userId: args.userId == null ? null : String(userIdArg(args.userId)),
      courseIds: args.courseIds?.map((id) => String(parseAnyId(id, 'Course') ?? id)),
    });
  }

  @FieldResolver(() => AssignmentType, { nullable: true })
  assignment(@Root() m: MissingSubmission, @Ctx() ctx: RequestContext): Promise<Assignment | null> {
    return assignmentOf(ctx, m.courseId, m.assignmentId);
  }

  @FieldResolver(() => CourseType, { nullable: true })
  course(@Root() m: MissingSubmission, @Ctx() ctx: RequestContext): Promise<Course | null> {
    return orHidden(ctx.use(CourseService).find(m.courseId));
  }

  @FieldResolver(() => PlannerOverrideType, { nullable: true, description: "The user's planner override of the assignment's item." })
  plannerOverride(@Root() m: MissingSubmission) {
    return m.plannerOverride;
  }
}

export const todoResolvers = [TodoItemResolver, UpcomingEventResolver, MissingSubmissionResolver] as const;
