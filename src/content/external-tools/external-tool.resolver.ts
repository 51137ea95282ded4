import { Arg, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../request/context';
import { NodeResolver, NodeType, registerNode } from '../../api/graphql/node';
import { mutationPayload } from '../../api/graphql/payload';
import { ContentRefInput } from '../assignments/assignment.types';
import { ExternalTool } from './external-tool.entity';
import { CreateExternalToolInput, CustomFieldType, ExternalToolPayload, ExternalToolType, UpdateExternalToolInput } from './external-tool.types';
import { ListBound } from '../../common/list-bounds';
import { ExternalToolService } from './external-tool.service';

registerNode(NodeType.ExternalTool, ExternalTool, async (ctx, id) => (await ctx.use(ExternalToolService).find(null, id)).tool);

@Resolver(() => ExternalToolType)
export class ExternalToolResolver extends NodeResolver(NodeType.ExternalTool, ExternalToolType) {
  @Query(() => ExternalToolType, { description: 'A course external tool.' })
  externalTool(@Arg('id', () => ID) id: string, @Arg('courseId', () => ID, { nullable: true }) courseId: string | null, @Ctx() ctx: RequestContext) {
    return ctx.use(ExternalToolService).find(courseId, id).then((r) => r.tool);
  }

  @Mutation(() => ExternalToolPayload, { description: 'Adds an external tool to a course (manage_content).' })
  createExternalTool(@Arg('input') input: CreateExternalToolInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(ExternalToolService).create(input.courseId, input));
  }

  @Mutation(() => ExternalToolPayload)
  updateExternalTool(@Arg('input') input: UpdateExternalToolInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(ExternalToolService).update(input.courseId, input.id, input));
  }

  @Mutation(() => ExternalToolPayload)
  deleteExternalTool(@Arg('input') input: ContentRefInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(ExternalToolService).delete(input.courseId, input.id));
  }

  @ListBound(100)
  @FieldResolver(() => [CustomFieldType])
  customFields(@Root() t: ExternalTool, @Ctx() ctx: RequestContext) {
    return ctx.use(ExternalToolService).customFields(t);
  }
}
