import { Arg, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../request/context';
import { NodeResolver, NodeType, registerNode } from '../api/graphql/node';
import { mutationPayload } from '../api/graphql/payload';
import { idArg } from '../common/relay';
import { courseIdArg } from '../courses/course.resolver';
import { ModuleItem } from './module-item.entity';
import { itemContent, ModuleItemContent } from './module-item-content';
import { moduleIdArg } from './module.resolver';
import { ModuleItemView } from './module-views';
import {
  
  ContentDetailsType,
  CreateModuleItemInput,
  MessagePayload,
  ModuleItemPayload,
  ModuleItemRefInput,
  ModuleItemType,
  RedirectPayload,
  UpdateModuleItemInput,
} from './module.types';
import { ModuleItemService } from './module-item.service';

registerNode(NodeType.ModuleItem, ModuleItemView, async (ctx, id) => {
  const item = await ctx.ds.getRepository(ModuleItem).findOneBy({ id });
  return item ? ctx.use(ModuleItemService).show(String(item.courseId), String(item.moduleId), String(id)) : null;
});

const itemIdArg = (id: string) => idArg(id, 'ModuleItem');

@Resolver(() => ModuleItemType)
export class ModuleItemResolver extends NodeResolver(NodeType.ModuleItem, ModuleItemType) {
  @Query(() => ModuleItemType)
  moduleItem(
    @Arg('courseId', () => ID) courseId: string,
    @Arg('moduleId', () => ID) moduleId: string,
    @Arg('id', () => ID) id: string,
    @Arg('studentId', () => ID, { nullable: true }) studentId: string | null,
    @Ctx() ctx: RequestContext,
  ) {
    return ctx.use(ModuleItemService).show(courseIdArg(courseId), moduleIdArg(moduleId), itemIdArg(id), { studentId });
  }

  @Mutation(() => ModuleItemPayload)
  createModuleItem(@Arg('input') input: CreateModuleItemInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(ModuleItemService).create(courseIdArg(input.courseId), moduleIdArg(input.moduleId), input));
  }

  @Mutation(() => ModuleItemPayload)
  updateModuleItem(@Arg('input') input: UpdateModuleItemInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() =>
      ctx.use(ModuleItemService).update(courseIdArg(input.courseId), moduleIdArg(input.moduleId), itemIdArg(input.id), {
        ...input,
        moduleId: input.targetModuleId ? moduleIdArg(input.targetModuleId) : null,
      }),
    );
  }

  @Mutation(() => ModuleItemPayload)
  deleteModuleItem(@Arg('input') input: ModuleItemRefInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(ModuleItemService).delete(courseIdArg(input.courseId), moduleIdArg(input.moduleId), itemIdArg(input.id)));
  }

  @Mutation(() => MessagePayload, { description: 'Fulfils a must_view requirement; refused for locked or unpublished items.' })
  markModuleItemRead(@Arg('input') input: ModuleItemRefInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(ModuleItemService).markRead(courseIdArg(input.courseId), moduleIdArg(input.moduleId), itemIdArg(input.id)));
  }

  @Mutation(() => MessagePayload, { description: 'Marks the item done (must_mark_done), or not done with done: false.' })
  markModuleItemDone(@Arg('input') input: ModuleItemRefInput, @Arg('done', { defaultValue: true }) done: boolean, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(ModuleItemService).setDone(courseIdArg(input.courseId), moduleIdArg(input.moduleId), itemIdArg(input.id), done));
  }

  @Mutation(() => RedirectPayload, { description: 'Records a view of an ExternalUrl item and returns where it points.' })
  followModuleItemRedirect(@Arg('courseId', () => ID) courseId: string, @Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(ModuleItemService).followRedirect(courseIdArg(courseId), itemIdArg(id)));
  }

  @FieldResolver(() => ContentDetailsType)
  contentDetails(@Root() v: ModuleItemView): ContentDetailsType {
    return this.details(v);
  }

  @FieldResolver(() => ModuleItemContent, { nullable: true, description: 'The linked object; null for SubHeader and ExternalUrl items.' })
  content(@Root() v: ModuleItemView, @Ctx() ctx: RequestContext): Promise<object | null> {
    return itemContent(ctx, v);
  }

  /** Dates from the content; lock state for the student whose view this is. */
  private details(v: ModuleItemView): ContentDetailsType {
    const c = v.content;
    const now = Date.now();
    const mod = v.module.module;
    const p = v.module.progression;
    let reason: { asset: string; unlockAt: Date | null; lockAt: Date | null; module: boolean; explanation: string } | null = null;
    if (v.module.student != null) {
      const asset = c ? `${assetPrefix(v.item.contentType)}_${c.id}` : `context_module_${mod.id}`;
      if (!p || p.state === 'locked' || p.lockedItemIds.includes(v.item.id)) {
        reason = { asset, unlockAt: mod.unlockAt, lockAt: null, module: true, explanation: `This item is part of the module "${mod.name}", which is locked.` };
      } else if (c?.unlockAt && c.unlockAt.getTime() > now) {
        reason = { asset, unlockAt: c.unlockAt, lockAt: null, module: false, explanation: 'This item is not available yet.' };
      } else if (c?.lockAt && c.lockAt.getTime() < now) {
        reason = { asset, unlockAt: null, lockAt: c.lockAt, module: false, explanation: 'This item is locked.' };
      }
    }
    return {
      pointsPossible: c?.pointsPossible ?? null,
      dueAt: c?.dueAt ?? null,
      unlockAt: c?.unlockAt ?? null,
      lockAt: c?.lockAt ?? null,
      lockedForUser: reason != null,
      lockExplanation: reason?.explanation ?? null,
      lockInfo: reason
        ? {
            assetString: reason.asset,
            unlockAt: reason.unlockAt,
            lockAt: reason.lockAt,
            contextModuleId: reason.module ? mod.id : null,
            contextModuleName: reason.module ? mod.name : null,
          }
        : null,
    };
  }
}

function assetPrefix(type: string): string {
  return (
    { Assignment: 'assignment', Quiz: 'quizzes:quiz', Page: 'wiki_page', Discussion: 'discussion_topic', File: 'attachment', ExternalTool: 'context_external_tool' } as Record<string, string>
  )[type] ?? 'content_tag';
}
