import { Arg, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import { Quiz } from '../content/quizzes/quiz.entity';
import { QuizType } from '../content/quizzes/quiz.types';
import { orHidden } from '../common/visible';
import type { RequestContext } from '../request/context';
import { mutationPayload } from '../api/graphql/payload';
import { User } from '../users/user.entity';
import { UserType } from '../users/user.types';
import type { QuizExtension } from './quiz-extension.service';
import { QuizExtensionType, SetCourseQuizExtensionsInput, SetCourseQuizExtensionsPayload } from './quiz-extension.types';
import { ListBound } from '../common/list-bounds';
import { QuizExtensionService } from './quiz-extension.service';
import { UserService } from '../users/user.service';

@Resolver(() => QuizExtensionType)
export class QuizExtensionResolver {
  @Mutation(() => SetCourseQuizExtensionsPayload, {
    description: "Course quiz extensions: sets each listed student's extension on every quiz of the course, atomically (manage_grades).",
  })
  setCourseQuizExtensions(@Arg('input') input: SetCourseQuizExtensionsInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(QuizExtensionService).extend(input.courseId, input.quizExtensions));
  }

  @FieldResolver(() => UserType, { nullable: true })
  user(@Root() e: QuizExtension, @Ctx() ctx: RequestContext): Promise<User | null> {
    return orHidden(ctx.use(UserService).find(e.userId));
  }
}

/** The extensions side of a quiz, kept with quiz extensions rather than in content/quizzes. */
@Resolver(() => QuizType)
export class QuizExtensionsFieldResolver {
  @ListBound(1000) // QUIZ_EXTENSIONS_MAX
  @FieldResolver(() => [QuizExtensionType], {
    nullable: true,
    description: "Students' extensions on this quiz (extra attempts, extra time, manual unlocking, or an extended end_at), by user id. Graders only.",
  })
  extensions(@Root() quiz: Quiz, @Ctx() ctx: RequestContext): Promise<QuizExtension[]> {
    return ctx.use(QuizExtensionService).forQuiz(quiz);
  }
}
