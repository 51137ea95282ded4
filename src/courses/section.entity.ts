import { Entity, Index } from 'typeorm';
import { BoolColumn, DateTimeColumn, IntColumn, NullableString, StringColumn, Timestamped } from '../db/columns';

@Entity('course_sections')
export class CourseSection extends Timestamped {
  @Index()
  @IntColumn()
  courseId: number;

  @IntColumn()
  rootAccountId: number;

  @StringColumn()
  name: string;

  @NullableString()
  sisSectionId: string | null;

  @NullableString()
  integrationId: string | null;

  @DateTimeColumn()
  startAt: Date | null;

  @DateTimeColumn()
  endAt: Date | null;

  @BoolColumn(false)
  restrictEnrollmentsToSectionDates: boolean;

  /** Every course has one default section that enrollments without a section land in. */
  @BoolColumn(false)
  defaultSection: boolean;

  @StringColumn(32, { default: 'active' })
  workflowState: string;

  /** A new active section of the course; every course has one default section. */
  static draft(course: { id: number; rootAccountId: number }, name: string, defaultSection = false): CourseSection {
    return Object.assign(new CourseSection(), {
      courseId: course.id,
      rootAccountId: course.rootAccountId,
      name,
      defaultSection,
      workflowState: 'active',
      sisSectionId: null,
      integrationId: null,
      startAt: null,
      endAt: null,
      restrictEnrollmentsToSectionDates: false,
    });
  }
}
