import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { AccountType } from '../accounts/account.types';
import { Account } from '../accounts/account.entity';
import { accountIdArg } from '../accounts/account.resolver';
import type { RequestContext } from '../request/context';
import { NodeResolver, NodeType, registerNode } from '../api/graphql/node';
import { mutationPayload } from '../api/graphql/payload';
import { idArg } from '../common/relay';
import { Course } from './course.entity';
import { CourseConnection, CoursePayload, CoursesArgs, CourseType, CreateCourseInput, UpdateCourseInput } from './course.types';
import { Enrollment } from './enrollment.entity';
import { EnrollmentConnection, EnrollmentsArgs, EnrollmentType } from './enrollment.types';
import { SectionConnection } from './section.types';
import { ConnectionArgs } from '../common/relay';
import { ListBound } from '../common/list-bounds';
import { CourseService } from './course.service';
import { SectionService } from './section.service';
import { EnrollmentService } from './enrollment.service';

registerNode(NodeType.Course, Course, (ctx, id) => ctx.use(CourseService).find(id));

/** Course lookups take a global id as well as the REST forms (numeric, sis_course_id:…). */
export const courseIdArg = (id: string) => idArg(id, 'Course');

@Resolver(() => CourseType)
export class CourseResolver extends NodeResolver(NodeType.Course, CourseType) {
  @Query(() => CourseType, { description: 'A course the viewer may read: id, global id or sis_course_id:…' })
  course(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<Course> {
    return ctx.use(CourseService).find(courseIdArg(id));
  }

  @Query(() => CourseConnection, { description: "The viewer's courses (those they are enrolled in), by id." })
  coursesConnection(@Args() args: CoursesArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(CourseService).listForViewer(args);
  }

  @Mutation(() => CoursePayload)
  createCourse(@Arg('input') input: CreateCourseInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(CourseService).create({ ...input, accountId: String(accountIdArg(input.accountId)) }));
  }

  @Mutation(() => CoursePayload)
  updateCourse(@Arg('input') input: UpdateCourseInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(CourseService).update({ ...input, id: courseIdArg(input.id) }));
  }

  @FieldResolver(() => AccountType, { nullable: true, description: 'Null unless the viewer administers it.' })
  async account(@Root() c: Course, @Ctx() ctx: RequestContext): Promise<Account | null> {
    return (await ctx.authz.isAccountAdmin(c.accountId)) ? ctx.loaders.byId(Account).load(c.accountId) : null;
  }

  @FieldResolver(() => String, { nullable: true })
  async sisCourseId(@Root() c: Course, @Ctx() ctx: RequestContext): Promise<string | null> {
    return (await ctx.authz.canCourse(c, 'read_sis')) ? c.sisCourseId : null;
  }

  @FieldResolver(() => String, { nullable: true })
  async integrationId(@Root() c: Course, @Ctx() ctx: RequestContext): Promise<string | null> {
    return (await ctx.authz.canCourse(c, 'read_sis')) ? c.integrationId : null;
  }

  @FieldResolver(() => Boolean)
  concluded(@Root() c: Course): boolean {
    return c.isConcluded();
  }

  @FieldResolver(() => SectionConnection)
  sectionsConnection(@Root() c: Course, @Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(SectionService).listForCourse(c, args);
  }

  @FieldResolver(() => EnrollmentConnection)
  enrollmentsConnection(@Root() c: Course, @Args() args: EnrollmentsArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(EnrollmentService).listForCourse(c, args);
  }

  @ListBound(100)
  @FieldResolver(() => [EnrollmentType], { description: "The viewer's own current enrollments in the course." })
  viewerEnrollments(@Root() c: Course, @Ctx() ctx: RequestContext): Promise<Enrollment[]> {
    return ctx.use(CourseService).viewerEnrollments(c);
  }
}
