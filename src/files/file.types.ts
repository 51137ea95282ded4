import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { Node } from '../api/graphql/node';
import { PayloadType } from '../api/graphql/payload';
import { Connection } from '../common/relay';
import { DateTimeScalar } from '../api/graphql/scalars';

@ObjectType('File', { implements: Node, description: 'A file of a course, group or user (Canvas Attachment).' })
export class FileType extends Node {
  @Field(() => ID)
  _id: string;
  @Field()
  uuid: string;
  @Field(() => ID)
  folderId: number;
  @Field()
  displayName: string;
  @Field({ description: 'The display name made safe as a file name.' })
  filename: string;
  @Field({ description: 'pending until the bytes arrive, then success.' })
  uploadStatus: string;
  @Field()
  contentType: string;
  @Field({ description: 'Download URL carrying a verifier.' })
  url: string;
  @Field(() => Int, { nullable: true, description: 'Bytes.' })
  size: number | null;
  @Field(() => DateTimeScalar)
  createdAt: Date;
  @Field(() => DateTimeScalar)
  updatedAt: Date;
  @Field(() => DateTimeScalar, { nullable: true, description: 'When the contents last changed.' })
  modifiedAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  unlockAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  lockAt: Date | null;
  @Field()
  locked: boolean;
  @Field()
  hidden: boolean;
  @Field()
  lockedForUser: boolean;
  @Field()
  hiddenForUser: boolean;
  @Field(() => String, { nullable: true })
  lockExplanation: string | null;
  @Field(() => String, { nullable: true, description: 'Images only.' })
  thumbnailUrl: string | null;
  @Field(() => String, { nullable: true })
  previewUrl: string | null;
  @Field({ description: 'image, audio, video, pdf, doc, ppt, xls, text, html, code, zip, flash or file' })
  mimeClass: string;
  @Field(() => String, { nullable: true })
  mediaEntryId: string | null;
  @Field()
  category: string;
  @Field({ description: 'Course, Group or User' })
  contextType: string;
  @Field(() => ID)
  contextId: number;
}

export const FileConnection = Connection('File', FileType);

@InputType()
export class CreateFileUploadInput {
  @Field({ description: 'Course, Group or User' })
  contextType: string;
  @Field(() => ID, { description: 'Numeric id, sis id, or self for users.' })
  contextId: string;
  @Field(() => String, { nullable: true, description: 'The file name; taken from the upload when absent.' })
  name?: string | null;
  // Nullable in the schema only so that a missing size comes back as a payload error naming it.
  @Field(() => Int, { nullable: true, description: 'Bytes (required): checked against the quota; caps the upload.' })
  size?: number | null;
  @Field(() => String, { nullable: true, description: 'Guessed from the name when absent.' })
  contentType?: string | null;
  @Field(() => ID, { nullable: true })
  parentFolderId?: string | null;
  @Field(() => String, { nullable: true, description: 'Folders below the root, created as needed.' })
  parentFolderPath?: string | null;
  @Field(() => String, { nullable: true, description: 'overwrite (default) or rename' })
  onDuplicate?: string | null;
}

@ObjectType('FileUploadParam')
export class FileUploadParamType {
  @Field()
  name: string;
  @Field()
  value: string;
}

export const FileUploadPayload = PayloadType('FileUploadPayload', {
  uploadUrl: { type: () => String, description: 'Where to POST the bytes (multipart).' },
  uploadParams: { type: () => [FileUploadParamType], description: 'Fields to send unchanged before the file.', maxItems: 20 },
  fileParam: { type: () => String, description: 'The multipart field for the bytes.' },
  file: { type: () => FileType, description: 'The pending file.' },
});

@InputType()
export class ConfirmFileUploadInput {
  @Field(() => ID)
  id: string;
  @Field()
  uuid: string;
}

export const FilePayload = PayloadType('FilePayload', { file: () => FileType });
