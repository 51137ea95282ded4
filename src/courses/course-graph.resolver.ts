import { Arg, Args, Ctx, FieldResolver, ID, Resolver, Root } from 'type-graphql';
import { In, Not } from 'typeorm';
import { Account } from '../accounts/account.entity';
import { AccountType } from '../accounts/account.types';
import { orHidden, orRefused } from '../common/visible';
import type { RequestContext } from '../request/context';
import { ConnectionArgs, parseAnyId } from '../common/relay';
import { User } from '../users/user.entity';
import { UserType } from '../users/user.types';
import { CourseConnection, CoursesArgs } from './course.types';
import { Enrollment } from './enrollment.entity';
import { EnrollmentType } from './enrollment.types';
import { ListBound } from '../common/list-bounds';
import { CourseService } from './course.service';
import { EnrollmentService } from './enrollment.service';

/**
 * The platform part of the navigable graph: an account's courses, a user's enrollments and courses.
 * Each runs the checked service call its top-level counterpart runs (course(id:)'s read check for an
 * enrollment's course, coursesConnection for the viewer's courses); lists batch across parents.
 */

@Resolver(() => AccountType)
export class AccountCoursesResolver {
  @FieldResolver(() => CourseConnection, { nullable: true, description: 'Live courses of the account (every course of a root account), by id; account admins only.' })
  coursesConnection(@Root() a: Account, @Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
    return orRefused(() => ctx.use(CourseService).listForAccount(String(a.id), args));
  }
}

@Resolver(() => UserType)
export class UserCoursesResolver {
  @ListBound(100) // the first page of the connection, as User.groups
  @FieldResolver(() => [EnrollmentType], {
    nullable: true,
    description: "Canvas's User.enrollments: the user's enrollments the viewer may see (their own, or in courses whose roster the viewer reads), by id.",
  })
  async enrollments(@Root() u: User, @Arg('courseId', () => ID, { nullable: true }) courseId: string | null, @Ctx() ctx: RequestContext): Promise<Enrollment[] | null> {
    if (!ctx.viewer) return null;
    const course = courseId == null ? null : parseAnyId(courseId, 'Course');
    if (courseId != null && course == null) return [];
    const rows = await ctx.loaders.manyBy(Enrollment, 'userId', { workflowState: Not(In(['deleted'])) }).load(u.id);
    const mine = rows.filter((e) => course == null || e.courseId === course);
    const seen = await Promise.all(mine.map((e) => orHidden(() => ctx.use(EnrollmentService).find(e.id))));
    return seen.filter((e): e is Enrollment => e != null);
  }

  @FieldResolver(() => CourseConnection, { nullable: true, description: "The user's courses (as coursesConnection); only for the user themself." })
  coursesConnection(@Root() u: User, @Args() args: CoursesArgs, @Ctx() ctx: RequestContext) {
    return ctx.viewer?.id === u.id ? orRefused(() => ctx.use(CourseService).listForViewer(args)) : null;
  }
}

export const courseGraphResolvers = [AccountCoursesResolver, UserCoursesResolver] as const;
