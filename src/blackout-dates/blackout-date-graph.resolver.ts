import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { Account } from '../accounts/account.entity';
import { AccountType } from '../accounts/account.types';
import { orRefused } from '../common/visible';
import { Course } from '../courses/course.entity';
import { CourseType } from '../courses/course.types';
import type { RequestContext } from '../request/context';
import type { BlackoutDate } from './blackout-date.entity';
import { BlackoutDateType } from './blackout-date.types';
import { ListBound } from '../common/list-bounds';
import { BlackoutDateService } from './blackout-date.service';

/**
 * A course's or account's own blackout dates, as blackoutDates(contextType:, contextId:) lists them
 * (a small, unpaginated set, as Canvas answers it); null unless the viewer may read them.
 */
@Resolver(() => CourseType)
export class CourseBlackoutDatesResolver {
  @ListBound(1000) // BULK_MAX: a bulk replace stores at most 1,000
  @FieldResolver(() => [BlackoutDateType], { nullable: true, description: "The course's own blackout dates, by start date (as blackoutDates); null unless the viewer may read them." })
  blackoutDates(@Root() c: Course, @Ctx() ctx: RequestContext): Promise<BlackoutDate[] | null> {
    return orRefused(() => ctx.use(BlackoutDateService).list('Course', String(c.id)));
  }
}

@Resolver(() => AccountType)
export class AccountBlackoutDatesResolver {
  @ListBound(1000) // BULK_MAX: a bulk replace stores at most 1,000
  @FieldResolver(() => [BlackoutDateType], { nullable: true, description: "The account's own blackout dates, by start date (as blackoutDates); null unless the viewer may read them." })
  blackoutDates(@Root() a: Account, @Ctx() ctx: RequestContext): Promise<BlackoutDate[] | null> {
    return orRefused(() => ctx.use(BlackoutDateService).list('Account', String(a.id)));
  }
}

export const blackoutDateGraphResolvers = [CourseBlackoutDatesResolver, AccountBlackoutDatesResolver] as const;
