import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * The dashboard's tables: first-run setup tokens, browser sessions, failed sign-ins (for throttling that holds
 * across instances) and invitations. Secrets are stored only as SHA-256 hashes.
 */
export function migration(dialect: Dialect) {
  const idType = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  const time = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('setup_tokens')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('created_at', time, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', idType, (c) => c.notNull().references('users.id'))
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('created_at', time, (c) => c.notNull())
        .addColumn('last_seen_at', time, (c) => c.notNull())
        .addColumn('expires_at', time, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_user').on('sessions').columns(['user_id']).execute();
      await db.schema.createIndex('sessions_expires').on('sessions').columns(['expires_at']).execute();

      await db.schema
        .createTable('sign_in_failures')
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('at', time, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('sign_in_failures_subject')
        .on('sign_in_failures')
        .columns(['subject', 'at'])
        .execute();
      await db.schema.createIndex('sign_in_failures_at').on('sign_in_failures').columns(['at']).execute();

      await db.schema
        .createTable('user_invites')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('id', idType, (c) => c.notNull().unique())
        .addColumn('brand_id', idType, (c) => c.notNull().references('brands.id'))
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('email_normalized', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('invited_by', 'text', (c) => c.notNull())
        .addColumn('created_at', time, (c) => c.notNull())
        .addColumn('expires_at', time, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('user_invites_brand')
        .on('user_invites')
        .columns(['brand_id', 'created_at'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const table of ['user_invites', 'sign_in_failures', 'sessions', 'setup_tokens']) {
        await db.schema.dropTable(table).execute();
      }
    },
  };
}
