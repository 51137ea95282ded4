import { accountRoutes } from '../accounts/account.routes';
import { accessTokenRoutes } from '../auth/access-token.routes';
import { courseRoutes } from '../courses/course.routes';
import { userRoutes } from '../users/user.routes';
import { groupRoutes } from '../groups/group.routes';
import type { RestRoute } from './route';

/** The whole compatibility table; feature areas add their rows here. */
export const restRoutes: RestRoute[] = [...accountRoutes, ...userRoutes, ...accessTokenRoutes, ...courseRoutes, ...groupRoutes];
