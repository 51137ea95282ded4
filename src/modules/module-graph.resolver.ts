import { Args, Ctx, Field, FieldResolver, ID, ObjectType, Resolver, Root } from 'type-graphql';
import { In } from 'typeorm';
import { orHidden, orRefused } from '../common/visible';
import { Assignment } from '../content/assignments/assignment.entity';
import { AssignmentType } from '../content/assignments/assignment.types';
import { Course } from '../courses/course.entity';
import { CourseType } from '../courses/course.types';
import type { RequestContext } from '../request/context';
import { ConnectionArgs } from '../common/relay';
import { ModuleOverrideConnection } from './module-extras.types';
import { ModuleItem } from './module-item.entity';
import { ModuleItemView, ModuleView } from './module-views';
import { ModuleConnection, ModuleItemConnection, ModuleItemsArgs, ModuleItemType, ModulesArgs, ModuleType } from './module.types';
import { studentArg } from './sequence.service';
import { ListBound } from '../common/list-bounds';
import { MAX_EMBEDDED_ITEMS, ModuleItemReads } from './module-item-reads';
import { ModuleService } from './module.service';
import { ModuleItemService } from './module-item.service';
import { ModuleOverrideService } from './module-override.service';
import { SequenceService } from './sequence.service';

/**
 * The modules part of the navigable graph: Course.modulesConnection, Module.moduleItems and friends,
 * ModuleItem.module/next/previous and Assignment.moduleItems. Each field runs the same checked service
 * call as its top-level query, with the parent's ids (and the parent's student view); those calls
 * read through per-request loaders, so a course with many modules and items costs a fixed number of
 * statements. A nested list the caller may not see is null (or the object is left out), never an error.
 */

@ObjectType('ModulePrerequisite', { description: 'A module that must be completed first (Canvas: ModulePrerequisite).' })
export class ModulePrerequisiteType {
  @Field(() => ID, { description: 'The prerequisite module’s numeric id.' })
  id: number;
  @Field()
  name: string;
  @Field({ description: 'Always context_module.' })
  type: string;
  @Field(() => ModuleType, { description: 'The prerequisite module itself.' })
  module: ModuleView;
}

const live = In(['active', 'unpublished']);

/** A module again through modules.show, as the given view's student sees it; null when hidden. */
function showModule(ctx: RequestContext, courseId: number, moduleId: number, from: ModuleView): Promise<ModuleView | null> {
  return orHidden(() => ctx.use(ModuleService).show(String(courseId), String(moduleId), { studentId: studentArg(ctx, from) }));
}

@Resolver(() => CourseType)
export class CourseModulesResolver {
  @FieldResolver(() => ModuleConnection, { nullable: true, description: 'Modules the viewer sees, by position (as modulesConnection(courseId:)).' })
  modulesConnection(@Root() c: Course, @Args() args: ModulesArgs, @Ctx() ctx: RequestContext) {
    return orRefused(() => ctx.use(ModuleService).list(String(c.id), args));
  }
}

@Resolver(() => ModuleType)
export class ModuleGraphResolver {
  @ListBound(MAX_EMBEDDED_ITEMS)
  @FieldResolver(() => [ModuleItemType], {
    nullable: true,
    description: `The items of the module the viewer sees, by position (Canvas’s Module.moduleItems): the first ${MAX_EMBEDDED_ITEMS}; moduleItemsConnection pages through the rest.`,
  })
  async moduleItems(@Root() v: ModuleView, @Ctx() ctx: RequestContext): Promise<ModuleItemView[] | null> {
    const view = await showModule(ctx, v.module.courseId, v.module.id, v);
    // Read with the bound as the LIMIT (per module, batched), never the whole module.
    return view ? (await ctx.use(ModuleItemReads).firstItems(view)).slice(0, MAX_EMBEDDED_ITEMS) : null;
  }

  @FieldResolver(() => ModuleItemConnection, { nullable: true, description: 'Items the viewer sees, by position (as moduleItemsConnection(courseId:, moduleId:)).' })
  moduleItemsConnection(@Root() v: ModuleView, @Args() args: ModuleItemsArgs, @Ctx() ctx: RequestContext) {
    const studentId = args.studentId ?? studentArg(ctx, v);
    return orRefused(() => ctx.use(ModuleItemService).list(String(v.module.courseId), String(v.module.id), { ...args, studentId }));
  }

  @ListBound(100)
  @FieldResolver(() => [ModulePrerequisiteType], { description: 'Prerequisite modules the viewer sees.' })
  async prerequisites(@Root() v: ModuleView, @Ctx() ctx: RequestContext): Promise<ModulePrerequisiteType[]> {
    const views = await Promise.all(v.module.prerequisiteIds.map((id) => showModule(ctx, v.module.courseId, id, v)));
    return views.filter((m): m is ModuleView => m != null).map((m) => ({ id: m.module.id, name: m.module.name, type: 'context_module', module: m }));
  }

  @FieldResolver(() => ModuleOverrideConnection, { nullable: true, description: 'Assignment overrides of the module; null unless the viewer manages content (as moduleOverridesConnection).' })
  assignmentOverrides(@Root() v: ModuleView, @Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
    return orRefused(() => ctx.use(ModuleOverrideService).list(String(v.module.courseId), String(v.module.id), args));
  }
}

@Resolver(() => ModuleItemType)
export class ModuleItemGraphResolver {
  @FieldResolver(() => ModuleType, { nullable: true, description: 'The module the item is in, as module(courseId:, id:) shows it.' })
  module(@Root() v: ModuleItemView, @Ctx() ctx: RequestContext): Promise<ModuleView | null> {
    return showModule(ctx, v.item.courseId, v.item.moduleId, v.module);
  }

  @FieldResolver(() => ModuleItemType, { nullable: true, description: 'The next item in the course’s module sequence (across modules, sub-headers skipped).' })
  async next(@Root() v: ModuleItemView, @Ctx() ctx: RequestContext): Promise<ModuleItemView | null> {
    return (await ctx.use(SequenceService).neighbours(v)).next;
  }

  @FieldResolver(() => ModuleItemType, { nullable: true, description: 'The previous item in the course’s module sequence (across modules, sub-headers skipped).' })
  async previous(@Root() v: ModuleItemView, @Ctx() ctx: RequestContext): Promise<ModuleItemView | null> {
    return (await ctx.use(SequenceService).neighbours(v)).previous;
  }
}

@Resolver(() => AssignmentType)
export class AssignmentModuleItemsResolver {
  @ListBound(100)
  @FieldResolver(() => [ModuleItemType], { description: 'Module items that link this assignment and that the viewer sees.' })
  async moduleItems(@Root() a: Assignment, @Ctx() ctx: RequestContext): Promise<ModuleItemView[]> {
    const items = await ctx.loaders.manyBy(ModuleItem, 'contentId', { contentType: 'Assignment', workflowState: live }, { position: 'ASC', id: 'ASC' } as never).load(a.id);
    const shown = await Promise.all(
      items.filter((i) => i.courseId === a.courseId).map((i) => orHidden(() => ctx.use(ModuleItemService).show(String(i.courseId), String(i.moduleId), String(i.id)))),
    );
    return shown.filter((x): x is ModuleItemView => x != null);
  }
}

export const moduleGraphResolvers = [CourseModulesResolver, ModuleGraphResolver, ModuleItemGraphResolver, AssignmentModuleItemsResolver] as const;
