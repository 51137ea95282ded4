import { AccountService } from './accounts/account.service';
import { AccessTokenService } from './auth/access-token.service';
import { CourseService } from './courses/course.service';
import { EnrollmentService } from './courses/enrollment.service';
import { SectionService } from './courses/section.service';
import type { RequestContext } from './graphql/context';
import { UserService } from './users/user.service';
import { GroupAvatarService } from './groups/group-avatar.service';
import { GroupCategoryService } from './groups/group-category.service';
import { GroupMembershipService } from './groups/group-membership.service';
import { GroupPolicy } from './groups/group-policy';
import { GroupService } from './groups/group.service';

/** Per-request service registry; each service is created on first use with the request's context. */
export class Services {
  private readonly made = new Map<string, unknown>();
  constructor(private readonly ctx: RequestContext) {}

  private lazy<T>(key: string, make: (ctx: RequestContext) => T): T {
    if (!this.made.has(key)) this.made.set(key, make(this.ctx));
    return this.made.get(key) as T;
  }

  get accounts() {
    return this.lazy('accounts', (c) => new AccountService(c));
  }
  get users() {
    return this.lazy('users', (c) => new UserService(c));
  }
  get tokens() {
    return this.lazy('tokens', (c) => new AccessTokenService(c));
  }
  get courses() {
    return this.lazy('courses', (c) => new CourseService(c));
  }
  get sections() {
    return this.lazy('sections', (c) => new SectionService(c));
  }
  get enrollments() {
    return this.lazy('enrollments', (c) => new EnrollmentService(c));
  }
  get groupPolicy() {
    return this.lazy('groupPolicy', (c) => new GroupPolicy(c));
  }
  get groupCategories() {
    return this.lazy('groupCategories', (c) => new GroupCategoryService(c));
  }
  get groups() {
    return this.lazy('groups', (c) => new GroupService(c));
  }
  get groupMemberships() {
    return this.lazy('groupMemberships', (c) => new GroupMembershipService(c));
  }
  get groupAvatars() {
    return this.lazy('groupAvatars', (c) => new GroupAvatarService(c));
  }
}
