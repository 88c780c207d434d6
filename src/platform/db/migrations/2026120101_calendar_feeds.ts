import type { Kysely } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * Calendars and visit notices (issue 31):
 * - `users.calendar_token`, `users.brand_calendar_token`: the secret of the user's feed of their visits and (admins)
 *   of all the brand's visits, GET /calendar/{token}.ics. Kept in clear, unlike one-time links: the account page
 *   shows the feed's address again each time (docs/calendar.md, "The feed's token"). Null until first shown.
 * - `leads.visit_sequence`: the visit's iCalendar SEQUENCE, one more at each change of its time, length, assignee
 *   or address, and at its cancellation, in the change's own transaction.
 * - `leads.visit_notice_sequence`, `visit_notice_ref`, `visit_notice_kind`, `visit_notice_start`: what the customer
 *   was last told: the sequence, the outbox row that told it (a retry of that row tells it again), planned, moved
 *   or cancelled, and the start the mail named (null: never told). The mail worker writes them when it writes a
 *   visit notice.
 * - `brands.visit_notices`: 1 (default) sends customers visit notices when email is on.
 */
export function migration(dialect: Dialect) {
  const time = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('users').addColumn('calendar_token', 'text').execute();
      await db.schema.alterTable('users').addColumn('brand_calendar_token', 'text').execute();
      await db.schema
        .createIndex('users_calendar_token')
        .on('users')
        .columns(['calendar_token'])
        .unique()
        .execute();
      await db.schema
        .createIndex('users_brand_calendar_token')
        .on('users')
        .columns(['brand_calendar_token'])
        .unique()
        .execute();
      await db.schema
        .alterTable('leads')
        .addColumn('visit_sequence', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('leads').addColumn('visit_notice_sequence', 'integer').execute();
      await db.schema.alterTable('leads').addColumn('visit_notice_ref', 'text').execute();
      await db.schema.alterTable('leads').addColumn('visit_notice_kind', 'text').execute();
      await db.schema.alterTable('leads').addColumn('visit_notice_start', time).execute();
      await db.schema
        .alterTable('brands')
        .addColumn('visit_notices', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
    },
  };
}
