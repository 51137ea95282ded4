import { Entity, Index } from 'typeorm';
import { BoolColumn, DateTimeColumn, IntColumn, NullableInt, NullableString, StringColumn, TextColumn, Timestamped } from '../db/columns';

export const CALENDAR_CONTEXT_TYPES = ['Course', 'Group', 'User', 'CourseSection'] as const;
export type CalendarContextType = (typeof CALENDAR_CONTEXT_TYPES)[number];
export type CalendarEventState = 'active' | 'deleted';

/**
 * An event on a course's, group's or user's calendar. A section-limited event is a parent in the course
 * (hidden: it stands for its children) with one child per section, whose context is the section and whose
 * effective context is the course, as Canvas stores them. `contextCode` is kept beside the pair so the
 * calendar's and planner's reads by context code are one index range.
 */
@Entity('calendar_events')
// The calendar list's page orders (migrations/1732000016000-CalendarListIndexes.ts).
@Index(['contextCode', 'workflowState', 'startAt', 'id', 'hidden', 'endAt'])
@Index(['effectiveContextCode', 'workflowState', 'startAt', 'id', 'hidden', 'contextType', 'endAt'])
@Index(['parentCalendarEventId'])
export class CalendarEvent extends Timestamped {
  @StringColumn(16)
  contextType: CalendarContextType;

  @IntColumn()
  contextId: number;

  /** `course_1`, `group_2`, `user_3`, `course_section_4`. */
  @StringColumn(64)
  contextCode: string;

  /** The context the event shows in: its own, or a section child's course. */
  @StringColumn(64)
  effectiveContextCode: string;

  @StringColumn()
  title: string;

  @TextColumn()
  description: string | null;

  @NullableString()
  locationName: string | null;

  @NullableString()
  locationAddress: string | null;

  @DateTimeColumn()
  startAt: Date | null;

  @DateTimeColumn()
  endAt: Date | null;

  @BoolColumn(false)
  allDay: boolean;

  /** YYYY-MM-DD of an all-day event (text, so no time zone can shift it). */
  @NullableString(10)
  allDayDate: string | null;

  /** A parent of section events is hidden: each section sees its own child instead. */
  @BoolColumn(false)
  hidden: boolean;

  @NullableInt()
  parentCalendarEventId: number | null;

  /** Who created it. */
  @NullableInt()
  userId: number | null;

  @StringColumn(16, { default: 'active' })
  workflowState: CalendarEventState;
}
