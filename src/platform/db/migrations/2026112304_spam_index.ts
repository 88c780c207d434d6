import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * Spam leads by brand and time, for the dashboard's Spam view and its count, and for the worker that removes spam
 * after 30 days: a partial index, so it holds only spam and the lists of real leads do not pay for it.
 */
export function migration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('leads_spam_received')
        .on('leads')
        .columns(['brand_id', 'received_at', 'id'])
        .where(sql<boolean>`spam = 1`)
        .execute();
    },
  };
}
