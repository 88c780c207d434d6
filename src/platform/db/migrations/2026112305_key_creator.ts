import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * Who created each API key: the dashboard user's id beside the existing created_by (their email then, or 'cli'),
 * which stays the name shown after the user is removed. No foreign key: removing a user neither removes nor blocks
 * on the keys they created, which keep working. Keys made in the dashboard before this get their creator's id back
 * from the email recorded, while that user still exists.
 */
export function migration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('api_keys').addColumn('created_by_user_id', 'text').execute();
      await sql`update api_keys set created_by_user_id = (
          select u.id from users u where u.brand_id = api_keys.brand_id and u.email = api_keys.created_by
        )
        where created_by is not null and created_by <> 'cli'`.execute(db);
    },
  };
}
