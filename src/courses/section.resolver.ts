import { Arg, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import { orHidden } from '../common/visible';
import type { RequestContext } from '../request/context';
import { NodeResolver, NodeType, registerNode } from '../api/graphql/node';
import { mutationPayload } from '../api/graphql/payload';
import { Course } from './course.entity';
import { courseIdArg } from './course.resolver';
import { CourseType } from './course.types';
import { CourseSection } from './section.entity';
import { CreateSectionInput, SectionPayload, SectionType } from './section.types';
import { SectionService } from './section.service';
import { CourseService } from './course.service';

registerNode(NodeType.Section, CourseSection, (ctx, id) => ctx.use(SectionService).find(id));

@Resolver(() => SectionType)
export class SectionResolver extends NodeResolver(NodeType.Section, SectionType) {
  @Mutation(() => SectionPayload)
  createSection(@Arg('input') input: CreateSectionInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(SectionService).create({ ...input, courseId: courseIdArg(input.courseId) }));
  }

  @FieldResolver(() => CourseType, { nullable: true })
  course(@Root() s: CourseSection, @Ctx() ctx: RequestContext): Promise<Course | null> {
    return orHidden(ctx.use(CourseService).find(s.courseId));
  }

  @FieldResolver(() => String, { nullable: true })
  async sisSectionId(@Root() s: CourseSection, @Ctx() ctx: RequestContext): Promise<string | null> {
    const course = await ctx.loaders.byId(Course).load(s.courseId);
    return course && (await ctx.authz.canCourse(course, 'read_sis')) ? s.sisSectionId : null;
  }
}
