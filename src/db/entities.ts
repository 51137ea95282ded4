import { Account } from '../accounts/account.entity';
import { AccountUser } from '../accounts/account-user.entity';
import { AccessToken } from '../auth/access-token.entity';
import { Course } from '../courses/course.entity';
import { CourseSection } from '../courses/section.entity';
import { Enrollment } from '../courses/enrollment.entity';
import { Pseudonym } from '../users/pseudonym.entity';
import { User } from '../users/user.entity';
import { Setting } from './setting.entity';

/** Every entity of the domain; feature areas add theirs here. */
export const entities = [Setting, Account, AccountUser, User, Pseudonym, AccessToken, Course, CourseSection, Enrollment];
