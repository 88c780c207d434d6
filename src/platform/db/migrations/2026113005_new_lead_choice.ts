import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * The new-lead email each user chooses (issue 30, "The office's week"):
 * - `users.new_lead_mail`: 'every' (a mail on each new lead), 'daily' (one summary at 08:00 in the brand's time
 *   zone) or 'none'. It replaces `notify_new_leads`: on becomes 'every', off 'none', so nobody's mail changes.
 *   `users.new_lead_mail_at`: when they last chose (0: never); a summary is due only for a day whose 08:00 came
 *   after the choice, so choosing "daily" at 15:00 does not send one at once.
 * - `email_outbox.reply_to`: the Reply-To of a mail (the customer's email on a new-lead mail); null: none.
 * - `new_lead_summaries`: one row per user and day whose summary was handled (queued, or nothing to list), claimed
 *   by the insert, so several instances never send a day's summary twice. Only ids and times: the mail is written
 *   when it is sent (a send-time mail, src/mail/send-time.ts) from the leads of its window, so an erasure leaves
 *   nothing of the person here or in the outbox.
 */
export function migration(dialect: Dialect) {
  const idType = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  const time = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('users')
        .addColumn('new_lead_mail', 'text', (c) => c.notNull().defaultTo('none'))
        .execute();
      await db.schema
        .alterTable('users')
        .addColumn('new_lead_mail_at', time, (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`update users set new_lead_mail = 'every' where notify_new_leads = 1`.execute(db);
      await db.schema.alterTable('users').dropColumn('notify_new_leads').execute();

      await db.schema.alterTable('email_outbox').addColumn('reply_to', 'text').execute();

      await db.schema
        .createTable('new_lead_summaries')
        .addColumn('id', idType, (c) => c.primaryKey())
        .addColumn('brand_id', idType, (c) => c.notNull().references('brands.id'))
        .addColumn('user_id', idType, (c) => c.notNull().references('users.id').onDelete('cascade'))
        // The brand's calendar day whose 08:00 ends the window, 'YYYY-MM-DD'.
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('window_start', time, (c) => c.notNull())
        .addColumn('window_end', time, (c) => c.notNull())
        .addColumn('created_at', time, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('new_lead_summaries_user_day')
        .on('new_lead_summaries')
        .columns(['user_id', 'day'])
        .unique()
        .execute();
    },
  };
}
