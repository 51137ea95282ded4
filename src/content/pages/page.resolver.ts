import { Arg, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { orHidden } from '../../common/visible';
import type { RequestContext } from '../../request/context';
import { NodeResolver, NodeType, registerNode } from '../../api/graphql/node';
import { mutationPayload } from '../../api/graphql/payload';
import { User } from '../../users/user.entity';
import { UserType } from '../../users/user.types';
import { WikiPage } from './page.entity';
import { CreatePageInput, PagePayload, PageRefInput, PageType, UpdatePageInput } from './page.types';
import { PageService } from './page.service';

registerNode(NodeType.Page, WikiPage, async (ctx, id) => (await ctx.use(PageService).find(null, `page_id:${id}`)).page);

@Resolver(() => PageType)
export class PageResolver extends NodeResolver(NodeType.Page, PageType) {
  @Query(() => PageType, { description: "A page by slug, page_id:<id> or id; a student's read counts as a view." })
  page(@Arg('courseId', () => ID) courseId: string, @Arg('urlOrId') urlOrId: string, @Ctx() ctx: RequestContext) {
    return ctx.use(PageService).show(courseId, urlOrId);
  }

  @Mutation(() => PagePayload, { description: 'Creates a page (manage_content).' })
  createPage(@Arg('input') input: CreatePageInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(PageService).create(input.courseId, input));
  }

  @Mutation(() => PagePayload)
  updatePage(@Arg('input') input: UpdatePageInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(PageService).update(input.courseId, input.urlOrId, input));
  }

  @Mutation(() => PagePayload)
  deletePage(@Arg('input') input: PageRefInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(PageService).delete(input.courseId, input.urlOrId));
  }

  @FieldResolver(() => Boolean)
  published(@Root() p: WikiPage): boolean {
    return p.published;
  }

  @FieldResolver(() => Boolean)
  hideFromStudents(@Root() p: WikiPage): boolean {
    return !p.published;
  }

  @FieldResolver(() => Boolean, { description: 'The front page cannot be unpublished.' })
  unpublishable(@Root() p: WikiPage): boolean {
    return !p.frontPage;
  }

  @FieldResolver(() => UserType, { nullable: true, description: 'Null unless the viewer may read the page itself.' })
  async lastEditedBy(@Root() p: WikiPage, @Ctx() ctx: RequestContext): Promise<User | null> {
    // Whoever reads a page sees who last edited it; checked here rather than trusting how the page was reached.
    if (p.userId == null || !(await orHidden(ctx.use(PageService).find(null, `page_id:${p.id}`)))) return null;
    return ctx.loaders.byId(User).load(p.userId);
  }

  @FieldResolver(() => String)
  htmlUrl(@Root() p: WikiPage, @Ctx() ctx: RequestContext): string {
    return `${ctx.baseUrl}/courses/${p.courseId}/pages/${p.url}`;
  }
}
