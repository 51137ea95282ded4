import { DataSource, In } from 'typeorm';
import { transaction } from '../db/transaction';
import { OutboxMessage } from './outbox.entity';
import type { DispatcherLog } from './delivery-results';
import { WebhookAttempt } from './webhook-attempt.entity';

/**
 * Removes delivered and cancelled messages past retention, with their attempt logs, in batches
 * (dead ones stay for operators, attempts included).
 */
export async function purgeOutbox(ds: DataSource, retentionDays: number, log: DispatcherLog): Promise<void> {
  const cutoff = new Date(Date.now() - retentionDays * 86_400_000);
  try {
    for (let round = 0; round < 20; round++) {
      const ids = (
        await ds
          .getRepository(OutboxMessage)
          .createQueryBuilder('m')
          .select('m.id', 'id')
          .where("m.status IN ('delivered', 'cancelled') AND m.updated_at < :cutoff", { cutoff })
          .limit(1000)
          .getRawMany<{ id: number }>()
      ).map((r) => Number(r.id));
      if (!ids.length) return;
      await transaction(ds, async (em) => {
        await em.getRepository(WebhookAttempt).delete({ outboxMessageId: In(ids) });
        await em.getRepository(OutboxMessage).delete({ id: In(ids) });
      });
    }
  } catch (e) {
    log.warn({ err: { message: (e as Error).message } }, 'webhook outbox purge failed');
  }
}
