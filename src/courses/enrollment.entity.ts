import { Entity, Index } from 'typeorm';
import { BoolColumn, DateTimeColumn, IntColumn, NullableInt, NullableString, StringColumn, Timestamped } from '../db/columns';

export const ENROLLMENT_TYPES = [
  'StudentEnrollment',
  'TeacherEnrollment',
  'TaEnrollment',
  'DesignerEnrollment',
  'ObserverEnrollment',
] as const;
export type EnrollmentType = (typeof ENROLLMENT_TYPES)[number];

export const ENROLLMENT_STATES = [
  'active',
  'invited',
  'creation_pending',
  'inactive',
  'completed',
  'rejected',
  'deleted',
] as const;
export type EnrollmentState = (typeof ENROLLMENT_STATES)[number];

/** Canvas's role names for each base enrollment type. */
export const ROLE_OF_TYPE: Record<EnrollmentType, string> = {
  StudentEnrollment: 'StudentEnrollment',
  TeacherEnrollment: 'TeacherEnrollment',
  TaEnrollment: 'TaEnrollment',
  DesignerEnrollment: 'DesignerEnrollment',
  ObserverEnrollment: 'ObserverEnrollment',
};

@Entity('enrollments')
@Index(['courseId', 'type', 'userId'])
@Index(['userId', 'courseId'])
@Index(['courseId', 'id'])
@Index(['courseId', 'sortableName', 'userId'])
export class Enrollment extends Timestamped {
  @IntColumn()
  userId: number;

  @IntColumn()
  courseId: number;

  /**
   * The user's sortable name, copied when the enrollment is created (names do not change after a
   * user is created): a course's people page by it from the (course, name, user) index.
   */
  @NullableString(255)
  sortableName: string | null;

  @Index()
  @IntColumn()
  courseSectionId: number;

  @IntColumn()
  rootAccountId: number;

  @StringColumn(32)
  type: EnrollmentType;

  @StringColumn(32, { default: 'invited' })
  workflowState: EnrollmentState;

  /** For observers: the observed student. */
  @Index()
  @NullableInt()
  associatedUserId: number | null;

  @BoolColumn(false)
  limitPrivilegesToCourseSection: boolean;

  @DateTimeColumn()
  startAt: Date | null;

  @DateTimeColumn()
  endAt: Date | null;

  @DateTimeColumn()
  lastActivityAt: Date | null;

  get isActive(): boolean {
    return this.workflowState === 'active';
  }
}
