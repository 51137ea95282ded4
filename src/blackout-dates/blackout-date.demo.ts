import type { DemoExtension } from '../courses/demo-world';
import { BlackoutDate } from './blackout-date.entity';

const day = (d: Date) => d.toISOString().slice(0, 10);
const addDays = (d: Date, n: number) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + n));

/** The demo's blackout dates: a reading week in the course and a winter closure on the root account. */
export const blackoutDatesDemo: DemoExtension = {
  name: 'blackout dates',
  async seed(em, world, { rootAccountId }) {
    const repo = em.getRepository(BlackoutDate);
    const start = addDays(new Date(), 28);
    const year = new Date().getUTCFullYear();
    await repo.save([
      repo.create({ contextType: 'Course', contextId: world.course.id, rootAccountId, startDate: day(start), endDate: day(addDays(start, 4)), eventTitle: 'Reading week' }),
      repo.create({ contextType: 'Account', contextId: rootAccountId, rootAccountId, startDate: `${year}-12-24`, endDate: `${year + 1}-01-01`, eventTitle: 'Winter closure' }),
    ]);
  },
};
