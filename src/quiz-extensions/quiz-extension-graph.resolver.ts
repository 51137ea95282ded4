import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { orRefused } from '../common/visible';
import { Course } from '../courses/course.entity';
import { CourseType } from '../courses/course.types';
import type { RequestContext } from '../request/context';
import { MAX_PAGE_SIZE } from '../common/relay';
import type { QuizExtension } from './quiz-extension.service';
import { QuizExtensionType } from './quiz-extension.types';
import { ListBound } from '../common/list-bounds';
import { ContentAccess } from '../content/content-access';
import { QuizService } from '../content/quizzes/quiz.service';
import { QuizExtensionService } from './quiz-extension.service';

@Resolver(() => CourseType)
export class CourseQuizExtensionsResolver {
  /**
   * The read side of POST /courses/:id/quiz_extensions: every extension on the course's quizzes
   * (the quizzes quizzesConnection lists, up to a page of MAX_PAGE_SIZE), each through Quiz.extensions'
   * own grader check; one batch of statements for all quizzes.
   */
  @ListBound(1000) // QUIZ_EXTENSIONS_MAX
  @FieldResolver(() => [QuizExtensionType], {
    nullable: true,
    description: `Students' extensions on the course's quizzes (the first ${MAX_PAGE_SIZE} quizzes by id), by quiz then user; graders only.`,
  })
  async quizExtensions(@Root() c: Course, @Ctx() ctx: RequestContext): Promise<QuizExtension[] | null> {
    // Quiz.extensions' own grader check, made once here so a course without quizzes answers alike.
    if (!(await ctx.use(ContentAccess).isGrader(c))) return null;
    const quizzes = await orRefused(() => ctx.use(QuizService).listForCourse(c, { first: MAX_PAGE_SIZE }));
    if (!quizzes) return null;
    const lists = await Promise.all(quizzes.nodes.map((q) => orRefused(() => ctx.use(QuizExtensionService).forQuiz(q))));
    return lists.some((l) => l == null) ? null : lists.flat() as QuizExtension[];
  }
}
