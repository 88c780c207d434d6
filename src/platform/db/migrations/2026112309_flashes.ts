import type { Kysely } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * One-time messages from a dashboard form post to the page it redirects to (post/redirect/get): a new API key, an
 * invitation link, a webhook secret. A row lives until that page reads it (and deletes it) or for 5 minutes. The
 * value is encrypted with a key derived from the session's cookie token, which the database does not hold (it keeps
 * only the token's hash), so the rows alone reveal nothing. No foreign key to sessions: a row outlives a signed-out
 * session by minutes at most and is then unreadable anyway.
 */
export function migration(dialect: Dialect) {
  const time = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('dashboard_flashes')
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('expires_at', time, (c) => c.notNull())
        .addPrimaryKeyConstraint('dashboard_flashes_pkey', ['session_id', 'name'])
        .execute();
      await db.schema
        .createIndex('dashboard_flashes_expires')
        .on('dashboard_flashes')
        .columns(['expires_at'])
        .execute();
    },
  };
}
