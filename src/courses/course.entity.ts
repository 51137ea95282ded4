import { randomUUID } from 'node:crypto';
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
@Index(['rootAccountId', 'id'])
@Index(['accountId', 'id'])
export class Course extends Timestamped {
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

  /** A new course with Canvas's defaults for everything not given. */
  static draft(fields: Pick<Course, 'accountId' | 'rootAccountId' | 'name' | 'courseCode' | 'workflowState'>): Course {
    return Object.assign(new Course(), {
      uuid: randomUUID().replace(/-/g, ''),
      startAt: null,
      endAt: null,
      sisCourseId: null,
      integrationId: null,
      storageQuotaMb: null,
      timeZone: null,
      defaultView: 'modules',
      license: null,
      isPublic: false,
      publicDescription: null,
      restrictEnrollmentsToCourseDates: false,
      masteryPathsEnabled: false,
      ...fields,
    });
  }

  get isAvailable(): boolean {
    return this.workflowState === 'available';
  }

  /** A course is concluded when completed or past its end date. */
  isConcluded(now = new Date()): boolean {
    return this.workflowState === 'completed' || (this.endAt != null && this.endAt.getTime() < now.getTime());
  }
}
