import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../request/context';
import { NodeResolver, NodeType, registerNode } from '../api/graphql/node';
import { mutationPayload } from '../api/graphql/payload';
import { idArg } from '../common/relay';
import { Attachment } from './attachment.entity';
import { ConfirmFileUploadInput, CreateFileUploadInput, FilePayload, FileType, FileUploadPayload } from './file.types';
import { mimeClass, UNKNOWN_CONTENT_TYPE } from './mime';
import { FileService } from './file.service';

registerNode(NodeType.File, Attachment, (ctx, id) => ctx.use(FileService).show(id));

const fileIdArg = (id: string) => idArg(id, 'File');

@Resolver(() => FileType)
export class FileResolver extends NodeResolver(NodeType.File, FileType) {
  @Query(() => FileType, { description: "A file the viewer may see: numeric or global id; with courseId it must be that course's. A student's read counts as a view." })
  file(@Arg('id', () => ID) id: string, @Arg('courseId', () => ID, { nullable: true }) courseId: string | null, @Ctx() ctx: RequestContext): Promise<Attachment> {
    return ctx.use(FileService).open(fileIdArg(id), courseId);
  }

  @Mutation(() => FileUploadPayload, { description: 'Step 1 of an upload (preflight): a pending file and where to send its bytes.' })
  createFileUpload(@Arg('input') input: CreateFileUploadInput, @Ctx() ctx: RequestContext) {
    const contextId = idArg(input.contextId, input.contextType);
    return mutationPayload(() => ctx.use(FileService).createUpload({ ...input, contextId }));
  }

  @Mutation(() => FilePayload, { description: 'Step 3 of an upload: the uploader makes the file available.' })
  confirmFileUpload(@Arg('input') input: ConfirmFileUploadInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(FileService).confirm(fileIdArg(input.id), input.uuid));
  }

  @FieldResolver(() => String)
  uploadStatus(@Root() f: Attachment): string {
    return f.hasBytes ? 'success' : 'pending';
  }

  @FieldResolver(() => String)
  contentType(@Root() f: Attachment): string {
    return f.contentType || UNKNOWN_CONTENT_TYPE;
  }

  @FieldResolver(() => String)
  url(@Root() f: Attachment, @Ctx() ctx: RequestContext): string {
    return ctx.use(FileService).downloadUrl(f);
  }

  @FieldResolver(() => String, { nullable: true })
  thumbnailUrl(@Root() f: Attachment, @Ctx() ctx: RequestContext): string | null {
    return ctx.use(FileService).thumbnailUrl(f);
  }

  @FieldResolver(() => Int, { nullable: true })
  size(@Root() f: Attachment): number | null {
    return f.size;
  }

  @FieldResolver(() => Date, { nullable: true })
  modifiedAt(@Root() f: Attachment): Date | null {
    return f.uploadedAt ?? f.updatedAt;
  }

  @FieldResolver(() => String)
  mimeClass(@Root() f: Attachment): string {
    return mimeClass(f.contentType || UNKNOWN_CONTENT_TYPE);
  }

  // No locking, hiding, media or usage categories for files here yet: Canvas's values for a plain file.
  @FieldResolver(() => Date, { nullable: true })
  unlockAt(): null {
    return null;
  }

  @FieldResolver(() => Date, { nullable: true })
  lockAt(): null {
    return null;
  }

  @FieldResolver(() => Boolean)
  locked(): boolean {
    return false;
  }

  @FieldResolver(() => Boolean)
  hidden(): boolean {
    return false;
  }

  @FieldResolver(() => Boolean)
  lockedForUser(): boolean {
    return false;
  }

  @FieldResolver(() => Boolean)
  hiddenForUser(): boolean {
    return false;
  }

  @FieldResolver(() => String, { nullable: true })
  lockExplanation(): null {
    return null;
  }

  @FieldResolver(() => String, { nullable: true })
  previewUrl(): null {
    return null;
  }

  @FieldResolver(() => String, { nullable: true })
  mediaEntryId(): null {
    return null;
  }

  @FieldResolver(() => String)
  category(): string {
    return 'uncategorized';
  }
}
