import type { DemoExtension } from '../courses/demo-world';
import { CalendarEvent } from './calendar-event.entity';

const DAY = 86_400_000;
/** A time `days` from today's midnight (UTC) plus `hours`. */
const at = (days: number, hours: number) => new Date(Math.floor(Date.now() / DAY) * DAY + days * DAY + hours * 3_600_000);

/** The demo course's calendar: a lecture, an all-day field trip, and a lab held per section. */
export const calendarEventsDemo: DemoExtension = {
  name: 'calendar events',
  async seed(em, world) {
    const repo = em.getRepository(CalendarEvent);
    const code = `course_${world.course.id}`;
    const teacherId = world.users.get('teacher')?.id ?? null;
    const base = { contextType: 'Course' as const, contextId: world.course.id, contextCode: code, effectiveContextCode: code, userId: teacherId, workflowState: 'active' as const };
    const trip = at(9, 0);
    await repo.save([
      repo.create({ ...base, title: 'Guest lecture: cell biology', description: '<p>Bring your notebook.</p>', locationName: 'Hall 1', startAt: at(2, 10), endAt: at(2, 11) }),
      repo.create({ ...base, title: 'Field trip', allDay: true, allDayDate: trip.toISOString().slice(0, 10), startAt: trip, endAt: trip }),
    ]);
    const sections = [...world.sections.values()];
    if (!sections.length) return;
    const lab = await repo.save(repo.create({ ...base, title: 'Lab session', hidden: true, startAt: at(4, 9), endAt: at(4 + sections.length - 1, 11) }));
    await repo.save(
      sections.map((s, i) =>
        repo.create({
          ...base,
          contextType: 'CourseSection',
          contextId: s.id,
          contextCode: `course_section_${s.id}`,
          title: lab.title,
          parentCalendarEventId: lab.id,
          startAt: at(4 + i, 9),
          endAt: at(4 + i, 11),
        }),
      ),
    );
  },
};
