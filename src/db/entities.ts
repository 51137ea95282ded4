import { Account } from '../accounts/account.entity';
import { AccountUser } from '../accounts/account-user.entity';
import { AccessToken } from '../auth/access-token.entity';
import { Course } from '../courses/course.entity';
import { CourseSection } from '../courses/section.entity';
import { Enrollment } from '../courses/enrollment.entity';
import { Pseudonym } from '../users/pseudonym.entity';
import { User } from '../users/user.entity';
import { Setting } from './setting.entity';
import { GroupCategory } from '../groups/group-category.entity';
import { Group } from '../groups/group.entity';
import { GroupMembership } from '../groups/group-membership.entity';
import { GroupInvitation } from '../groups/group-invitation.entity';

/** Every entity of the domain; feature areas add theirs here. */
export const entities = [
  Setting,
  Account,
  AccountUser,
  User,
  Pseudonym,
  AccessToken,
  Course,
  CourseSection,
  Enrollment,
  GroupCategory,
  Group,
  GroupMembership,
  GroupInvitation,
];
