import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * Receipts (a form's auto-reply) counted per brand, recipient and UTC day, so no one can aim a brand's receipts at
 * a stranger (issue 29): at most a few a day per address, counted in the database so every instance shares the
 * count. `recipient_hash` is the SHA-256 of the lower-case address (no address is kept here); rows older than
 * yesterday are pruned as receipts are counted. A brand's rows go with it.
 */
export function migration(dialect: Dialect) {
  const idType = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('receipt_counts')
        .addColumn('brand_id', idType, (c) => c.notNull().references('brands.id').onDelete('cascade'))
        .addColumn('recipient_hash', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('receipt_counts_pkey', ['brand_id', 'recipient_hash', 'day'])
        .execute();
      await db.schema.createIndex('receipt_counts_day').on('receipt_counts').columns(['day']).execute();
    },
  };
}
