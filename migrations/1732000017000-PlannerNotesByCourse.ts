import { IndexReplacement, IndexSpec } from './indexes';

/**
 * A user's active notes by id carry their course: the planner notes page and its total (rel="last",
 * totalCount), which leave out notes of deleted courses, read the course from the index instead of
 * every note's row. It replaces (user, state, id), its prefix. An index by (user, state, course) made
 * MariaDB read the page from it and sort by id, so the course goes last.
 */
const INDEXES: IndexSpec[] = [['planner_notes', ['user_id', 'workflow_state', 'id', 'course_id']]];
const REPLACED: IndexSpec[] = [['planner_notes', ['user_id', 'workflow_state', 'id']]];

export class PlannerNotesByCourse1732000017000 extends IndexReplacement {
  name = 'PlannerNotesByCourse1732000017000';

  constructor() {
    super(INDEXES, REPLACED);
  }
}
