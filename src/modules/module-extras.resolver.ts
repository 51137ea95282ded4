import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { courseIdArg } from '../courses/course.resolver';
import type { RequestContext } from '../request/context';
import { NodeResolver, NodeType, registerNode } from '../api/graphql/node';
import { mutationPayload } from '../api/graphql/payload';
import { ConnectionArgs } from '../common/relay';
import { MasteryPathRule } from './mastery-path.entity';
import {
  MasteryPathRulePayload,
  MasteryPathRuleType,
  ModuleOverrideConnection,
  ModuleOverrideInput,
  ModuleOverrideType,
  OkPayload,
  OverrideGroupType,
  OverrideTargetType,
  ScoreRangeInput,
  ScoreRangeType,
  SelectMasteryPathPayload,
  SequenceType,
} from './module-extras.types';
import { ModuleOverride } from './module-override.entity';
import { moduleIdArg } from './module.resolver';
import { ListBound } from '../common/list-bounds';
import { ModuleService } from './module.service';
import { SequenceService } from './sequence.service';
import { MasteryPathService } from './mastery-path.service';
import { ModuleOverrideService } from './module-override.service';

registerNode(NodeType.ModuleAssignmentOverride, ModuleOverride, async (ctx, id) => {
  const o = await ctx.ds.getRepository(ModuleOverride).findOneBy({ id, workflowState: 'active' });
  if (!o) return null;
  const course = await ctx.use(ModuleService).course(String(o.courseId));
  await ctx.use(ModuleService).assertManage(course);
  return o;
});

@Resolver()
export class SequenceResolver {
  @Query(() => SequenceType, { description: 'Where an asset appears in the course’s module sequence, with its neighbours.' })
  moduleItemSequence(
    @Arg('courseId', () => ID) courseId: string,
    @Arg('assetType', () => String, { nullable: true }) assetType: string | null,
    @Arg('assetId', () => String, { nullable: true }) assetId: string | null,
    @Ctx() ctx: RequestContext,
  ) {
    return ctx.use(SequenceService).sequence(courseIdArg(courseId), assetType, assetId);
  }

  @ListBound(100)
  @Query(() => [MasteryPathRuleType], { description: 'Mastery Paths rules of a course (needs manage_assignments).' })
  masteryPathRules(@Arg('courseId', () => ID) courseId: string, @Ctx() ctx: RequestContext) {
    return ctx.use(MasteryPathService).rules(courseIdArg(courseId));
  }

  @Mutation(() => MasteryPathRulePayload, { description: 'Creates or replaces the rule of a trigger assignment.' })
  setMasteryPathRule(
    @Arg('courseId', () => ID) courseId: string,
    @Arg('triggerAssignmentId', () => ID) triggerAssignmentId: string,
    @Arg('scoringRanges', () => [ScoreRangeInput]) ranges: ScoreRangeInput[],
    @Ctx() ctx: RequestContext,
  ) {
    return mutationPayload(() => ctx.use(MasteryPathService).setRule(courseIdArg(courseId), triggerAssignmentId, ranges));
  }

  @Mutation(() => MasteryPathRulePayload)
  deleteMasteryPathRule(@Arg('courseId', () => ID) courseId: string, @Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(MasteryPathService).deleteRule(courseIdArg(courseId), id));
  }

  @Mutation(() => SelectMasteryPathPayload, { description: 'Chooses one of the assignment sets open to the student’s score.' })
  selectMasteryPath(
    @Arg('courseId', () => ID) courseId: string,
    @Arg('moduleId', () => ID) moduleId: string,
    @Arg('itemId', () => ID) itemId: string,
    @Arg('assignmentSetId', () => ID, { nullable: true }) assignmentSetId: string | null,
    @Arg('studentId', () => ID, { nullable: true }) studentId: string | null,
    @Ctx() ctx: RequestContext,
  ) {
    return mutationPayload(() => ctx.use(MasteryPathService).select(courseIdArg(courseId), moduleIdArg(moduleId), itemId, { assignmentSetId, studentId }));
  }
}

@Resolver(() => MasteryPathRuleType)
export class MasteryPathRuleResolver {
  @FieldResolver(() => ID)
  _id(@Root() r: MasteryPathRule): string {
    return String(r.id);
  }

  @ListBound(10)
  @FieldResolver(() => [ScoreRangeType])
  scoringRanges(@Root() r: MasteryPathRule) {
    return r.scoreRanges;
  }
}

@Resolver(() => ModuleOverrideType)
export class ModuleOverrideResolver extends NodeResolver(NodeType.ModuleAssignmentOverride, ModuleOverrideType) {
  @Query(() => ModuleOverrideConnection, { description: 'Assignment overrides of a module (content managers).' })
  moduleOverridesConnection(@Arg('courseId', () => ID) courseId: string, @Arg('moduleId', () => ID) moduleId: string, @Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(ModuleOverrideService).list(courseIdArg(courseId), moduleIdArg(moduleId), args);
  }

  @Mutation(() => OkPayload, { description: 'Makes the module’s overrides exactly this list (ids update, no id creates, absent ones are deleted).' })
  setModuleOverrides(
    @Arg('courseId', () => ID) courseId: string,
    @Arg('moduleId', () => ID) moduleId: string,
    @Arg('overrides', () => [ModuleOverrideInput]) overrides: ModuleOverrideInput[],
    @Ctx() ctx: RequestContext,
  ) {
    return mutationPayload(() => ctx.use(ModuleOverrideService).replace(courseIdArg(courseId), moduleIdArg(moduleId), overrides));
  }

  @ListBound(100)
  @FieldResolver(() => [OverrideTargetType], { nullable: true })
  students(@Root() o: ModuleOverride, @Ctx() ctx: RequestContext) {
    return o.studentIds == null ? null : ctx.use(ModuleOverrideService).students(o);
  }

  @FieldResolver(() => OverrideTargetType, { nullable: true })
  courseSection(@Root() o: ModuleOverride, @Ctx() ctx: RequestContext) {
    return ctx.use(ModuleOverrideService).section(o);
  }

  @FieldResolver(() => OverrideGroupType, { nullable: true })
  group(@Root() o: ModuleOverride, @Ctx() ctx: RequestContext) {
    return ctx.use(ModuleOverrideService).group(o);
  }
}
