import { Args, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { ConnectionArgs } from '../common/relay';
import { describeFileContext } from '../files/file-context';
import { FileService } from '../files/file.service';
import { FileConnection } from '../files/file.types';
import type { RequestContext } from '../request/context';
import { Group } from './group.entity';
import { GroupType } from './group.types';

/** Group.filesConnection: the group's available files, through the files area's checked context. */
@Resolver(() => GroupType)
export class GroupFilesResolver {
  @FieldResolver(() => FileConnection, { description: 'Available files of the group, by name.' })
  filesConnection(@Root() g: Group, @Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(FileService).listForContext(describeFileContext('Group', g), args);
  }
}
