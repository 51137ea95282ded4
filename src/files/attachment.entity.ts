import { Entity, Index } from 'typeorm';
import { DateTimeColumn, IntColumn, NullableInt, NullableString, StringColumn, Timestamped } from '../db/columns';
import type { FileContextType } from './file-context';

/**
 * `pending_upload`: created at preflight, no bytes yet. `uploaded`: bytes stored (they count against
 * the quota), waiting for create_success. `available`: confirmed. `deleted`: replaced or removed.
 */
export type AttachmentState = 'pending_upload' | 'uploaded' | 'available' | 'deleted';
export type OnDuplicate = 'overwrite' | 'rename';

/** A file of a course, group or user (Canvas's Attachment). */
@Entity('attachments')
@Index(['contextType', 'contextId', 'workflowState'])
// The sweep of expired presigned uploads (src/files/pending-uploads.ts) finds pending rows by age.
@Index(['workflowState', 'createdAt'])
export class Attachment extends Timestamped {
  @StringColumn(16)
  contextType: FileContextType;

  @IntColumn()
  contextId: number;

  @NullableInt()
  rootAccountId: number | null;

  @Index()
  @IntColumn()
  folderId: number;

  /** The uploader. */
  @NullableInt()
  userId: number | null;

  @StringColumn()
  displayName: string;

  /** The display name made safe as a file name (never used for the path on disk). */
  @StringColumn()
  filename: string;

  @StringColumn()
  contentType: string;

  /** Bytes; the declared size until the upload, then the real one. */
  @NullableInt()
  size: number | null;

  /** Also the download verifier, as in Canvas. */
  @Index({ unique: true })
  @StringColumn(40)
  uuid: string;

  /** Path of the bytes relative to FILES_DIR; null until uploaded. */
  @NullableString()
  storageKey: string | null;

  @StringColumn(16, { default: 'overwrite' })
  onDuplicate: OnDuplicate;

  @StringColumn(16, { default: 'pending_upload' })
  workflowState: AttachmentState;

  /** When the bytes arrived (Canvas's modified_at). */
  @DateTimeColumn()
  uploadedAt: Date | null;

  @DateTimeColumn()
  deletedAt: Date | null;

  /**
   * The file that overwrote this one (Canvas's replacement_attachment_id). A link to this id within its
   * context finds that file; files this one had replaced point there too, so the chain is one step.
   */
  @NullableInt()
  replacementAttachmentId: number | null;

  get isImage(): boolean {
    return this.contentType.toLowerCase().startsWith('image/');
  }

  /** Bytes are on disk and count against the context's quota. */
  get hasBytes(): boolean {
    return this.workflowState === 'uploaded' || this.workflowState === 'available';
  }
}
