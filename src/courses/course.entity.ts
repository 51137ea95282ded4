import { Entity, Index } from 'typeorm';
import {
  BoolColumn,
  DateTimeColumn,
  IntColumn,
  NullableInt,
  NullableString,
  StringColumn,
  TextColumn,
  Timestamped,
} from '../db/columns';

/** workflow_state values as Canvas exposes them through the API. */
export type CourseState = 'unpublished' | 'available' | 'completed' | 'deleted';

@Entity('courses')
@Index(['rootAccountId', 'sisCourseId'])
export class Course extends Timestamped {
  @Index()
  @IntColumn()
  accountId: number;

  @IntColumn()
  rootAccountId: number;

  @StringColumn()
  name: string;

  @StringColumn()
  courseCode: string;

  @StringColumn(32, { default: 'unpublished' })
  workflowState: CourseState;

  @DateTimeColumn()
  startAt: Date | null;

  @DateTimeColumn()
  endAt: Date | null;

  @StringColumn(40)
  uuid: string;

  @NullableString()
  sisCourseId: string | null;

  @NullableString()
  integrationId: string | null;

  @NullableInt()
  storageQuotaMb: number | null;

  @NullableString(64)
  timeZone: string | null;

  @StringColumn(32, { default: 'modules' })
  defaultView: string;

  @NullableString(64)
  license: string | null;

  @BoolColumn(false)
  isPublic: boolean;

  @TextColumn()
  publicDescription: string | null;

  @BoolColumn(false)
  restrictEnrollmentsToCourseDates: boolean;

  /** Canvas's Mastery Paths (conditional release) feature for the course. */
  @BoolColumn(false)
  masteryPathsEnabled: boolean;

  get isAvailable(): boolean {
    return this.workflowState === 'available';
  }

  /** A course is concluded when completed or past its end date. */
  isConcluded(now = new Date()): boolean {
    return this.workflowState === 'completed' || (this.endAt != null && this.endAt.getTime() < now.getTime());
  }
}
