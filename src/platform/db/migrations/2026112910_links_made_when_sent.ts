import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * One-time links are made when their mail is sent, never stored (issue 29, "No live secrets at rest"):
 * - `email_outbox.send_time_ref`: a mail written by the worker when it sends it, from the row this names (its
 *   `kind` says which renderer: `password_reset` a password_resets id, `invitation` a user_invites id); its text and
 *   html stay empty in the outbox. Null: written when queued, as before.
 * - `password_resets` gets an id and its `token_hash` is set by the worker when it sends the mail (null until
 *   then). The old table is dropped with every mail it sent: those mails held their live tokens in clear, so
 *   every link they carry must die; anyone in the middle of a reset asks again.
 * - `user_invites.mail_token_hash`: the SHA-256 hash of the emailed link's token, set when the invitation mail is
 *   sent (the link shown once to the admin keeps its own `token_hash`); both die with the invitation.
 */
export function migration(dialect: Dialect) {
  const idType = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  const time = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`delete from email_outbox where kind = 'password_reset'`.execute(db);
      await db.schema.alterTable('email_outbox').addColumn('send_time_ref', 'text').execute();

      await db.schema.dropTable('password_resets').execute();
      await db.schema
        .createTable('password_resets')
        .addColumn('id', idType, (c) => c.primaryKey())
        .addColumn('token_hash', 'text', (c) => c.unique())
        .addColumn('user_id', idType, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', time, (c) => c.notNull())
        .addColumn('expires_at', time, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('password_resets_user')
        .on('password_resets')
        .columns(['user_id'])
        .execute();
      await db.schema
        .createIndex('password_resets_expires')
        .on('password_resets')
        .columns(['expires_at'])
        .execute();

      await db.schema.alterTable('user_invites').addColumn('mail_token_hash', 'text').execute();
      await db.schema
        .createIndex('user_invites_mail_token')
        .on('user_invites')
        .columns(['mail_token_hash'])
        .unique()
        .execute();
    },
  };
}
