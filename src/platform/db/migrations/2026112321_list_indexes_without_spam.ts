import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * The lists' two indexes hold real leads only (`where spam = 0`, which every list, count and export query says),
 * so the dashboard's "1–25 of 312" is counted from the index alone instead of reading each lead to check that it
 * is not spam. Same names and columns as before; spam has its own index (2026112304_spam_index).
 */
export function migration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const [name, columns] of [
        ['leads_brand_stage_received', ['brand_id', 'stage', 'received_at', 'id']],
        ['leads_brand_status_received', ['brand_id', 'status', 'received_at', 'id']],
      ] as const) {
        await db.schema.dropIndex(name).execute();
        await db.schema
          .createIndex(name)
          .on('leads')
          .columns([...columns])
          .where(sql<boolean>`spam = 0`)
          .execute();
      }
    },
  };
}
