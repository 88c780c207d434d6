import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * Email: the outbox (mails queued in the transaction that causes them, sent by a worker under a lease, like webhook
 * deliveries) and each user's "Email me new leads", on for the owners there are now and off for members.
 */
export function migration(dialect: Dialect) {
  const idType = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  const time = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('email_outbox')
        .addColumn('id', idType, (c) => c.primaryKey())
        .addColumn('brand_id', idType, (c) => c.notNull().references('brands.id'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('recipient', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('html', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at', time, (c) => c.notNull())
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until', time, (c) => c.notNull())
        .addColumn('last_error', 'text')
        .addColumn('last_attempt_at', time)
        .addColumn('created_at', time, (c) => c.notNull())
        .addColumn('sent_at', time)
        .execute();
      // The queue: what is due, in order. The dashboard: a brand's failed mails, newest first.
      await db.schema
        .createIndex('email_outbox_due')
        .on('email_outbox')
        .columns(['status', 'next_attempt_at'])
        .execute();
      await db.schema
        .createIndex('email_outbox_brand_status')
        .on('email_outbox')
        .columns(['brand_id', 'status', 'created_at'])
        .execute();

      await db.schema
        .alterTable('users')
        .addColumn('notify_new_leads', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`update users set notify_new_leads = 1 where role = 'owner'`.execute(db);
    },
  };
}
