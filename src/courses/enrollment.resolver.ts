import { Arg, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import { orHidden } from '../common/visible';
import type { RequestContext } from '../request/context';
import { NodeResolver, NodeType, registerNode } from '../api/graphql/node';
import { mutationPayload } from '../api/graphql/payload';
import { User } from '../users/user.entity';
import { UserType } from '../users/user.types';
import { Course } from './course.entity';
import { courseIdArg } from './course.resolver';
import { CourseType } from './course.types';
import { Enrollment } from './enrollment.entity';
import { CreateEnrollmentInput, EnrollmentPayload, EnrollmentType } from './enrollment.types';
import { CourseSection } from './section.entity';
import { SectionType } from './section.types';
import { EnrollmentService } from './enrollment.service';
import { UserService } from '../users/user.service';
import { CourseService } from './course.service';
import { SectionService } from './section.service';

registerNode(NodeType.Enrollment, Enrollment, (ctx, id) => ctx.use(EnrollmentService).find(id));

@Resolver(() => EnrollmentType)
export class EnrollmentResolver extends NodeResolver(NodeType.Enrollment, EnrollmentType) {
  @Mutation(() => EnrollmentPayload)
  createEnrollment(@Arg('input') input: CreateEnrollmentInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(EnrollmentService).create({ ...input, courseId: courseIdArg(input.courseId) }));
  }

  @FieldResolver(() => String)
  state(@Root() e: Enrollment): string {
    return e.workflowState;
  }

  @FieldResolver(() => String)
  role(@Root() e: Enrollment): string {
    return e.type;
  }

  @FieldResolver(() => UserType, { nullable: true })
  user(@Root() e: Enrollment, @Ctx() ctx: RequestContext): Promise<User | null> {
    return orHidden(ctx.use(UserService).find(e.userId));
  }

  @FieldResolver(() => UserType, { nullable: true })
  associatedUser(@Root() e: Enrollment, @Ctx() ctx: RequestContext): Promise<User | null> {
    return e.associatedUserId ? orHidden(ctx.use(UserService).find(e.associatedUserId)) : Promise.resolve(null);
  }

  @FieldResolver(() => CourseType, { nullable: true })
  course(@Root() e: Enrollment, @Ctx() ctx: RequestContext): Promise<Course | null> {
    return orHidden(ctx.use(CourseService).find(e.courseId));
  }

  @FieldResolver(() => SectionType, { nullable: true })
  section(@Root() e: Enrollment, @Ctx() ctx: RequestContext): Promise<CourseSection | null> {
    return orHidden(ctx.use(SectionService).find(e.courseSectionId));
  }
}
