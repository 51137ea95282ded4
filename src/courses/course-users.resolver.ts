import { Arg, Args, Ctx, FieldResolver, ID, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../request/context';
import { parseAnyId } from '../common/relay';
import { User } from '../users/user.entity';
import { UserConnection, UserType } from '../users/user.types';
import { Course } from './course.entity';
import { CourseType } from './course.types';
import { Enrollment } from './enrollment.entity';
import { EnrollmentType } from './enrollment.types';
import { CourseUsersArgs } from './course-users.types';
import { BASE_ROLE_IDS, CourseUsersService } from './course-users.service';

/** The people of a course (Canvas's /courses/:id/users), beside its enrollments list. */
@Resolver(() => CourseType)
export class CourseUsersResolver {
  @FieldResolver(() => UserConnection, { description: 'People with an enrollment the viewer may read (section limits apply), by sortable name.' })
  usersConnection(@Root() c: Course, @Args() args: CourseUsersArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(CourseUsersService).list(c.id, { ...args, userIds: args.userIds?.map((id) => String(parseAnyId(id, 'User') ?? id)) });
  }

  @FieldResolver(() => UserType, { nullable: true, description: 'One person of the course; not found unless enrolled there and visible to the viewer.' })
  user(@Root() c: Course, @Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<User> {
    return ctx.use(CourseUsersService).find(c.id, parseAnyId(id, 'User') ?? id);
  }
}

@Resolver(() => EnrollmentType)
export class EnrollmentRoleResolver {
  @FieldResolver(() => ID, { description: "The role's id (built-in roles only)." })
  roleId(@Root() e: Enrollment): string {
    return String(BASE_ROLE_IDS[e.type]);
  }
}

export const courseUsersResolvers = [CourseUsersResolver, EnrollmentRoleResolver] as const;
