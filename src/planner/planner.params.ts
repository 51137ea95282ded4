import { courseId } from '../courses/course.params';
import { bool, date, id, list, nullableText, oneOf, params, text, z } from '../api/rest/input';
import { userId } from '../users/user.params';
import { PLANNABLE_TYPES } from './plannables';

/**
 * Declared params of the planner rows (src/planner/planner.routes.ts). Where Canvas answers a bad value
 * with a body of its own (list dates: `{"errors":"Invalid date or datetime for start_date"}`; a blank
 * plannable_type or title: the model's `blank`; `{"message":"invalid linked_object_type"}`), the key is
 * declared as short text and the service keeps answering as Canvas does.
 */

/** A list date, judged by the service (Canvas's string body). */
const listDate = text({ max: 64 });
/** `course_1`, `group_2`, `user_3`: unknown codes are ignored as in Canvas, so any short word is taken. */
const contextCodes = list(text({ max: 64 }), { max: 500 });

export const plannerParams = {
  items: params({
    user_id: userId().optional(),
    observed_user_id: userId().optional(),
    context_codes: contextCodes.optional(),
    start_date: listDate.optional(),
    end_date: listDate.optional(),
    // Canvas ignores a filter it does not know (the list is then unfiltered).
    filter: text({ max: 64 }).optional(),
    includes: list(text({ max: 64 }), { max: 20 }).optional(),
    order: z.string().regex(/^(asc|desc)$/i, { message: 'must be asc or desc' }).optional(),
  }),
  notes: params({ start_date: listDate.optional(), end_date: listDate.optional(), context_codes: contextCodes.optional() }),
  note: params({ id: id() }),
  createNote: params({
    title: nullableText({ max: 255 }).optional(),
    details: nullableText({ max: 65_535 }).optional(),
    description: nullableText({ max: 65_535 }).optional(),
    todo_date: date().optional(),
    course_id: courseId({ nullable: true }).optional(),
    linked_object_type: nullableText({ max: 64 }).optional(),
    linked_object_id: id({ nullable: true }).optional(),
  }),
  updateNote: params({
    id: id(),
    title: nullableText({ max: 255 }).optional(),
    details: nullableText({ max: 65_535 }).optional(),
    description: nullableText({ max: 65_535 }).optional(),
    todo_date: date().optional(),
    // null or '' takes the note out of its course.
    course_id: courseId({ nullable: true }).optional(),
  }),
  overrides: params({}),
  override: params({ id: id() }),
  createOverride: params({
    // '' and null pass so the service answers Canvas's `blank`.
    plannable_type: oneOf(PLANNABLE_TYPES, { nullable: true }).optional(),
    plannable_id: id({ nullable: true }).optional(),
    marked_complete: bool().optional(),
    dismissed: bool().optional(),
  }),
  updateOverride: params({ id: id(), marked_complete: bool().optional(), dismissed: bool().optional() }),
};

