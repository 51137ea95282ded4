import { Arg, Args, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { ContextModule } from './module.entity';
import { orHidden } from '../common/visible';
import type { RequestContext } from '../request/context';
import { NodeResolver, NodeType, registerNode } from '../api/graphql/node';
import { mutationPayload } from '../api/graphql/payload';
import { idArg, ConnectionArgs } from '../common/relay';
import { User } from '../users/user.entity';
import { UserType } from '../users/user.types';
import { ModuleProgressionConnection, ModuleProgressionType } from './module-extras.types';
import type { ProgressionView } from './progress.service';
import { courseIdArg } from '../courses/course.resolver';
import { MAX_EMBEDDED_ITEMS, ModuleItemReads } from './module-item-reads';
import { ModuleItemView, ModuleView } from './module-views';
import {
  CreateModuleInput,
  ModuleConnection,
  ModuleItemConnection,
  ModuleItemsArgs,
  ModuleItemType,
  ModulePayload,
  ModulesArgs,
  ModuleType,
  UpdateModuleInput,
} from './module.types';
import { ModuleService } from './module.service';
import { ModuleItemService } from './module-item.service';
import { ProgressionPages } from './progression-pages';
import { UserService } from '../users/user.service';

registerNode(NodeType.Module, ModuleView, async (ctx, id) => {
  const m = await ctx.ds.getRepository(ContextModule).findOneBy({ id });
  return m ? ctx.use(ModuleService).show(String(m.courseId), String(id)) : null;
});

export const moduleIdArg = (id: string) => idArg(id, 'Module');

@Resolver(() => ModuleType)
export class ModuleResolver extends NodeResolver(NodeType.Module, ModuleType) {
  @Query(() => ModuleConnection, { description: 'Modules of a course the viewer sees, by position.' })
  modulesConnection(@Arg('courseId', () => ID) courseId: string, @Args() args: ModulesArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(ModuleService).list(courseIdArg(courseId), args);
  }

  @Query(() => ModuleType)
  module(@Arg('courseId', () => ID) courseId: string, @Arg('id', () => ID) id: string, @Arg('studentId', () => ID, { nullable: true }) studentId: string | null, @Ctx() ctx: RequestContext) {
    return ctx.use(ModuleService).show(courseIdArg(courseId), moduleIdArg(id), { studentId });
  }

  @Query(() => ModuleItemConnection, { description: 'Items of a module the viewer sees, by position.' })
  moduleItemsConnection(@Arg('courseId', () => ID) courseId: string, @Arg('moduleId', () => ID) moduleId: string, @Args() args: ModuleItemsArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(ModuleItemService).list(courseIdArg(courseId), moduleIdArg(moduleId), args);
  }

  @Mutation(() => ModulePayload)
  createModule(@Arg('input') input: CreateModuleInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(ModuleService).create(courseIdArg(input.courseId), input));
  }

  @Mutation(() => ModulePayload)
  updateModule(@Arg('input') input: UpdateModuleInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(ModuleService).update(courseIdArg(input.courseId), moduleIdArg(input.id), input));
  }

  @Mutation(() => ModulePayload, { description: 'Deletes the module and its items.' })
  deleteModule(@Arg('courseId', () => ID) courseId: string, @Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(ModuleService).delete(courseIdArg(courseId), moduleIdArg(id)));
  }

  @Mutation(() => ModulePayload, { description: 'Resets progressions to locked and recalculates them from current requirements.' })
  relockModule(@Arg('courseId', () => ID) courseId: string, @Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(ModuleService).relock(courseIdArg(courseId), moduleIdArg(id)));
  }

  @FieldResolver(() => Int)
  itemsCount(@Root() v: ModuleView, @Ctx() ctx: RequestContext): Promise<number> {
    return ctx.use(ModuleItemReads).countFor(v);
  }

  @FieldResolver(() => String)
  itemsUrl(@Root() v: ModuleView, @Ctx() ctx: RequestContext): string {
    return `${ctx.baseUrl}/api/v1/courses/${v.module.courseId}/modules/${v.module.id}/items`;
  }

  @FieldResolver(() => [ModuleItemType], { nullable: true })
  async items(@Root() v: ModuleView, @Ctx() ctx: RequestContext): Promise<ModuleItemView[] | null> {
    // The first MAX_EMBEDDED_ITEMS + 1 only: one more says the module is too long to embed.
    let items = await ctx.use(ModuleItemReads).firstItems(v);
    if (items.length > MAX_EMBEDDED_ITEMS) return null;
    if (v.itemSearch) items = items.filter((i) => i.item.title.toLowerCase().includes(v.itemSearch!));
    return items;
  }

  @FieldResolver(() => ModuleProgressionConnection, { description: 'Students’ progress in the module: all students for graders, one’s own or one’s observees’ otherwise.' })
  progressionsConnection(@Root() v: ModuleView, @Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(ProgressionPages).forModule(v, args);
  }
}

@Resolver(() => ModuleProgressionType)
export class ModuleProgressionResolver {
  @FieldResolver(() => UserType, { nullable: true })
  student(@Root() p: ProgressionView, @Ctx() ctx: RequestContext): Promise<User | null> {
    return orHidden(ctx.use(UserService).find(p.userId));
  }
}
