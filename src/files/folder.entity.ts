import { Entity, Index } from 'typeorm';
import { IntColumn, NullableInt, StringColumn, Timestamped } from '../db/columns';
import type { FileContextType } from './file-context';

/** Longest folder path (`full_name`) kept; it is part of a unique index on both engines. */
export const FOLDER_FULL_NAME_MAX = 255;

/**
 * A folder of a course, group or user. Each context has one root folder (Canvas's "course files",
 * "files", "my files"); subfolders are created from `parent_folder_path` at upload time.
 */
@Entity('folders')
@Index(['contextType', 'contextId', 'fullName'], { unique: true })
export class Folder extends Timestamped {
  @StringColumn(16)
  contextType: FileContextType;

  @IntColumn()
  contextId: number;

  @Index()
  @NullableInt()
  parentFolderId: number | null;

  @StringColumn()
  name: string;

  /** The path from the root folder's name, e.g. `course files/week 1`. */
  @StringColumn(FOLDER_FULL_NAME_MAX)
  fullName: string;

  @StringColumn(16, { default: 'visible' })
  workflowState: 'visible' | 'deleted';
}
