import type { RequestContext } from '../request/context';
import type { UpcomingEvent, UpcomingEventSource } from '../todo/upcoming.service';
import { CalendarEventService } from './calendar-event.service';

/**
 * Calendar events in a user's upcoming events (Canvas's User#upcoming_events lists them beside
 * assignments): the events of the viewer's courses and their own calendar in the window, read through
 * the same checked list as GET /calendar_events. Registered from src/app/plugins.ts.
 */
export const calendarUpcomingEvents: UpcomingEventSource = async (ctx: RequestContext, window) => {
  const viewer = ctx.authz.requireViewer();
  const service = ctx.use(CalendarEventService);
  const page = await service.list({
    contextCodes: [...window.contextCodes, `user_${viewer.id}`],
    startDate: window.start.toISOString(),
    endDate: window.end.toISOString(),
    first: 20,
  });
  // Side by side, so the events' contexts are looked up in one batch.
  return Promise.all(
    page.nodes.map(
      async (e): Promise<UpcomingEvent> => ({
        type: 'event',
        id: String(e.id),
        title: e.title,
        startAt: e.startAt,
        endAt: e.endAt,
        courseId: e.contextType === 'Course' ? e.contextId : null,
        contextCode: e.contextCode,
        contextName: await service.contextName(e),
        htmlUrl: `${ctx.baseUrl}/calendar?event_id=${e.id}&include_contexts=${e.contextCode}`,
        assignmentId: null,
        sourceId: e.id,
      }),
    ),
  );
};
