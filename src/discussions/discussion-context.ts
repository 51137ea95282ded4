import { ForbiddenError, NotFoundError } from '../common/errors';
import { Course } from '../courses/course.entity';
import type { RequestContext } from '../request/context';
import { Group } from '../groups/group.entity';
import type { DiscussionContextType } from './discussion-topic.entity';
import { CourseService } from '../courses/course.service';
import { GroupService } from '../groups/group.service';
import { GroupPolicy } from '../groups/group-policy';

/** The course or group a topic lives in. */
export interface DiscussionContext {
  type: DiscussionContextType;
  id: number;
  course?: Course;
  group?: Group;
}

/** What the viewer may do with the discussions of one context. */
export interface DiscussionRights {
  read: boolean;
  /** Moderators see unpublished and delayed topics, edit and delete any topic, post to closed ones. */
  moderate: boolean;
  createTopic: boolean;
  createAnnouncement: boolean;
  /** Reply to topics (Canvas's post_to_forum). */
  post: boolean;
  /** Put topics on the student to-do list (todo_date). */
  manageContent: boolean;
}

export const NO_RIGHTS: DiscussionRights = { read: false, moderate: false, createTopic: false, createAnnouncement: false, post: false, manageContent: false };

export const contextOf = (c: { contextType: DiscussionContextType; contextId: number }) => `${c.contextType}:${c.contextId}`;

/**
 * Discussion rights by context: courses from the viewer's course permissions (create_discussion_topic,
 * create_announcement, moderate_forum, post_to_forum, manage_content), groups from the group policy.
 * Cached per request, and every lookup goes through the request's loaders, so checking each topic of
 * a list costs nothing extra.
 */
export class DiscussionContexts {
  private readonly rightsCache = new Map<string, Promise<DiscussionRights>>();

  constructor(private readonly ctx: RequestContext) {}

  /** The context of a path (`/courses/:id/…` or `/groups/:id/…`), without a permission check. */
  async lookup(type: string, raw: string | number): Promise<DiscussionContext> {
    if (type === 'Course') {
      const course = await this.ctx.use(CourseService).lookup(raw);
      return { type: 'Course', id: course.id, course };
    }
    if (type === 'Group') {
      const group = await this.ctx.use(GroupService).lookup(raw);
      return { type: 'Group', id: group.id, group };
    }
    throw new NotFoundError();
  }

  /** The context of a stored topic; null when it is gone. */
  async load(type: DiscussionContextType, id: number): Promise<DiscussionContext | null> {
    if (type === 'Course') {
      const course = await this.ctx.loaders.byId(Course).load(id);
      return course && course.workflowState !== 'deleted' ? { type, id, course } : null;
    }
    const group = await this.ctx.loaders.byId(Group).load(id);
    return group && group.workflowState !== 'deleted' ? { type, id, group } : null;
  }

  /** Context rights for a stored topic (none when its context is gone). */
  async rightsOfTopic(topic: { contextType: DiscussionContextType; contextId: number }): Promise<DiscussionRights> {
    const context = await this.load(topic.contextType, topic.contextId);
    return context ? this.rights(context) : NO_RIGHTS;
  }

  rights(context: DiscussionContext): Promise<DiscussionRights> {
    const key = contextOf({ contextType: context.type, contextId: context.id });
    let r = this.rightsCache.get(key);
    if (!r) {
      r = this.compute(context);
      this.rightsCache.set(key, r);
    }
    return r;
  }

  /** The context's rights, refusing (403) a signed-in caller who may not read it. */
  async readable(context: DiscussionContext): Promise<DiscussionRights> {
    this.ctx.authz.requireViewer();
    const rights = await this.rights(context);
    if (!rights.read) throw new ForbiddenError();
    return rights;
  }

  private async compute(context: DiscussionContext): Promise<DiscussionRights> {
    if (!this.ctx.viewer) return NO_RIGHTS;
    if (context.course) {
      const course = context.course;
      const can = (p: Parameters<RequestContext['authz']['canCourse']>[1]) => this.ctx.authz.canCourse(course, p);
      const [read, moderate, createTopic, createAnnouncement, post, manageContent] = await Promise.all([
        can('read'),
        can('moderate_forum'),
        can('create_discussion_topic'),
        can('create_announcement'),
        can('post_to_forum'),
        can('manage_content'),
      ]);
      if (!read) return NO_RIGHTS;
      return { read, moderate, createTopic, createAnnouncement, post, manageContent };
    }
    const g = await this.ctx.use(GroupPolicy).rights(context.group!);
    if (!g.read) return NO_RIGHTS;
    // Group moderators and the admins of the group's context moderate its discussions.
    return {
      read: true,
      moderate: g.manage,
      createTopic: g.createDiscussionTopic,
      createAnnouncement: g.createAnnouncement,
      post: g.read,
      manageContent: g.manage,
    };
  }
}
