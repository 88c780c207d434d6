import type { Kysely } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * Jobs that kill their worker (issue 32): `crashes` on the two leased queues counts the claims in a row that ended
 * with the holder gone (its lease ran out with no result recorded and nothing handed back). A row reaching
 * PARK_AFTER_CRASHES is parked (failed, with the reason) instead of being retried forever. Expand only: the
 * previous release ignores the column, and its default keeps that release's inserts valid.
 */
export function migration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const table of ['webhook_deliveries', 'email_outbox']) {
        await db.schema
          .alterTable(table)
          .addColumn('crashes', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
      }
    },
  };
}
