import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * "Forgot password" links: one row per link that can still be used, keyed by the SHA-256 hash of its token (the
 * token itself is only in the mail). A user has at most one: a new request replaces the older. Removing the user
 * removes their links.
 */
export function migration(dialect: Dialect) {
  const idType = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  const time = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('password_resets')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
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
    },
  };
}
