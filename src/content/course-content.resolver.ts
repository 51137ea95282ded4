import { Args, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Course } from '../courses/course.entity';
import { CourseType } from '../courses/course.types';
import type { RequestContext } from '../request/context';
import { ConnectionArgs } from '../common/relay';
import { AssignmentConnection } from './assignments/assignment.types';
import { ExternalToolConnection } from './external-tools/external-tool.types';
import { PageConnection, PagesArgs } from './pages/page.types';
import { QuizConnection } from './quizzes/quiz.types';
import { AssignmentService } from './assignments/assignment.service';
import { QuizService } from './quizzes/quiz.service';
import { PageService } from './pages/page.service';
import { ExternalToolService } from './external-tools/external-tool.service';

/** A course's content, as connections on Course (students see published objects only). */
@Resolver(() => CourseType)
export class CourseContentResolver {
  @FieldResolver(() => AssignmentConnection, { description: 'Assignments by position.' })
  assignmentsConnection(@Root() c: Course, @Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(AssignmentService).listForCourse(c, args);
  }

  @FieldResolver(() => QuizConnection, { description: 'Quizzes by id.' })
  quizzesConnection(@Root() c: Course, @Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(QuizService).listForCourse(c, args);
  }

  @FieldResolver(() => PageConnection, { description: 'Wiki pages, by title unless sorted otherwise.' })
  pagesConnection(@Root() c: Course, @Args() args: PagesArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(PageService).listForCourse(c, args);
  }

  @FieldResolver(() => ExternalToolConnection, { description: 'External tools by id.' })
  externalToolsConnection(@Root() c: Course, @Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(ExternalToolService).listForCourse(c, args);
  }
}
