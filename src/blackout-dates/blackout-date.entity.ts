import { Entity, Index } from 'typeorm';
import { IntColumn, StringColumn, Timestamped } from '../db/columns';

export const BLACKOUT_CONTEXT_TYPES = ['Course', 'Account'] as const;
export type BlackoutContextType = (typeof BLACKOUT_CONTEXT_TYPES)[number];

/**
 * A date range owned by a course or an account on which course pacing schedules nothing. The dates
 * are calendar days, kept as `YYYY-MM-DD` text: that reads back identically on SQLite and MySQL
 * (no time zone can shift a day) and sorts chronologically.
 */
@Entity('blackout_dates')
@Index(['contextType', 'contextId', 'startDate'])
export class BlackoutDate extends Timestamped {
  @StringColumn(16)
  contextType: BlackoutContextType;

  @IntColumn()
  contextId: number;

  @IntColumn()
  rootAccountId: number;

  @StringColumn(10)
  startDate: string;

  @StringColumn(10)
  endDate: string;

  @StringColumn()
  eventTitle: string;
}
