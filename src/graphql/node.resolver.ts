import { Arg, Ctx, ID, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../request/context';
import { Node, NodeType, visibleNode } from '../api/graphql/node';
import { fromGlobalId } from '../common/relay';

@Resolver()
export class NodeResolverRoot {
  @Query(() => Node, { nullable: true, description: 'Any object by its global id; null when missing or not visible.' })
  node(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<object | null> {
    const g = fromGlobalId(id);
    return g ? this.load(ctx, g.type, Number(g.id)) : Promise.resolve(null);
  }

  @Query(() => Node, { nullable: true, description: 'An object by type and numeric id; null when missing or not visible.' })
  legacyNode(
    @Arg('type', () => NodeType) type: NodeType,
    @Arg('_id', () => ID) legacyId: string,
    @Ctx() ctx: RequestContext,
  ): Promise<object | null> {
    return /^\d{1,15}$/.test(legacyId) ? this.load(ctx, type, Number(legacyId)) : Promise.resolve(null);
  }

  private load(ctx: RequestContext, type: string, id: number): Promise<object | null> {
    // As in Canvas, an object the viewer may not see is simply absent here.
    return visibleNode(ctx, type, id);
  }
}
