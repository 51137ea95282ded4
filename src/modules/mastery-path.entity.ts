import { Entity, Index } from 'typeorm';
import { IntColumn, TextColumn, Timestamped } from '../db/columns';

/** One score range of a trigger assignment and the assignment sets a student may choose from in it. */
export interface ScoreRange {
  /** Percent of points possible, inclusive lower and exclusive upper (the top range includes 100). */
  lowerBound: number;
  upperBound: number;
  assignmentSets: { id: number; assignmentIds: number[] }[];
}

/** Mastery Paths: the score a student gets on the trigger assignment decides which sets open. */
@Entity('mastery_path_rules')
@Index(['courseId', 'triggerAssignmentId'], { unique: true })
export class MasteryPathRule extends Timestamped {
  @IntColumn()
  courseId: number;

  @IntColumn()
  triggerAssignmentId: number;

  /** JSON array of ScoreRange. */
  @TextColumn()
  ranges: string | null;

  get scoreRanges(): ScoreRange[] {
    return this.ranges ? (JSON.parse(this.ranges) as ScoreRange[]) : [];
  }
}

@Entity('mastery_path_selections')
@Index(['ruleId', 'userId'], { unique: true })
export class MasteryPathSelection extends Timestamped {
  @IntColumn()
  ruleId: number;

  @IntColumn()
  userId: number;

  @IntColumn()
  assignmentSetId: number;
}
