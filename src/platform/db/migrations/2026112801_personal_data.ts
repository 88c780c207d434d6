import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * Personal data (contract "Personal data"):
 * - `customers.erased_at`: when the customer was erased (its personal fields are null from then on), and
 *   `leads.erased_at`: when a lead's personal data was erased (with its customer, or alone by retention).
 * - `customer_activity`: what was done to a customer, newest last: `updated` (detail `{ changed, from, to }`,
 *   rewritten to `{ changed }` by an erase), `merged` (`{ from }`, the removed customer's id), `exported` (`{}`)
 *   and `erased` (`{ reason? }`, the business's own words on why). The actor is who did it: an API key, a
 *   dashboard user, the command line or the retention run. No personal data besides an update's values.
 * - `email_outbox.lead_id`: the lead a mail is about (the office's new-lead mail, the customer's receipt), so an
 *   erasure deletes exactly those; null for other mail and for mail queued before.
 * - `brands.retention_months`: erase leads untouched for that many months in request, quoted or cancelled, and
 *   customers left with nothing else; null (the default) keeps everything.
 */
export function migration(dialect: Dialect) {
  const idType = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  const time = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('customers').addColumn('erased_at', time).execute();
      await db.schema.alterTable('leads').addColumn('erased_at', time).execute();
      await db.schema.alterTable('brands').addColumn('retention_months', 'integer').execute();
      await db.schema.alterTable('email_outbox').addColumn('lead_id', idType).execute();
      await db.schema.createIndex('email_outbox_lead').on('email_outbox').columns(['lead_id']).execute();
      await db.schema
        .createTable('customer_activity')
        .addColumn('id', idType, (c) => c.primaryKey())
        .addColumn('brand_id', idType, (c) => c.notNull().references('brands.id'))
        .addColumn('customer_id', idType, (c) => c.notNull())
        .addColumn('at', time, (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('actor_type', 'text', (c) => c.notNull())
        .addColumn('actor_id', 'text')
        .addColumn('actor_name', 'text')
        .addColumn('detail', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('customer_activity_customer')
        .on('customer_activity')
        .columns(['customer_id', 'at'])
        .execute();
    },
  };
}
