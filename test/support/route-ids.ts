/**
 * Real ids of the demo world for every path parameter of the route table (`course_id`, and `id:<segment>`
 * for an `:id` after that path segment), so route-wide tests (fuzz, empty bodies) reach real objects.
 */
export async function demoRouteIds(
  ids: Map<string, string>,
  firstId: (table: string, column?: string) => Promise<string | undefined>,
  courseId: number,
  studentId: number,
): Promise<void> {
  const set = async (keys: string[], table: string, column = 'id') => {
    const v = await firstId(table, column);
    if (v !== undefined) for (const k of keys) ids.set(k, v);
  };
  ids.set('account_id', '1');
  ids.set('id:accounts', '1');
  ids.set('course_id', String(courseId));
  ids.set('id:courses', String(courseId));
  ids.set('user_id', String(studentId));
  ids.set('id:users', String(studentId));
  ids.set('submission_id', String(studentId));
  ids.set('id:submissions', String(studentId));
  await set(['group_id', 'id:groups'], 'groups');
  await set(['group_category_id', 'id:group_categories'], 'group_categories');
  await set(['id:memberships', 'membership_id'], 'group_memberships');
  await set(['module_id', 'context_module_id', 'id:modules'], 'context_modules');
  await set(['id:items', 'id:module_item_redirect'], 'module_items');
  await set(['assignment_id', 'id:assignments'], 'assignments');
  await set(['quiz_id', 'id:quizzes'], 'quizzes');
  await set(['topic_id', 'id:discussion_topics'], 'discussion_topics');
  await set(['entry_id', 'id:entries'], 'discussion_entries');
  await set(['id:files'], 'attachments');
  await set(['folder_id', 'id:folders'], 'folders');
  await set(['id:planner_notes'], 'planner_notes');
  await set(['id:overrides'], 'planner_overrides');
  await set(['id:blackout_dates'], 'blackout_dates');
  await set(['id:calendar_events'], 'calendar_events');
  await set(['id:tool_proxies'], 'lti_tool_proxies');
  await set(['id:subscriptions'], 'webhook_subscriptions');
  await set(['id:sections', 'section_id'], 'course_sections');
  await set(['id:enrollments'], 'enrollments');
  await set(['id:tokens'], 'access_tokens');
  await set(['id:error_reports'], 'error_reports');
  await set(['url_or_id', 'id:pages'], 'wiki_pages', 'url');
}
