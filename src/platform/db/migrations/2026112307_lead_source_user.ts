import type { Kysely } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * Who typed in a lead in the dashboard (source "phone" or "dashboard"): the user's id and their name then, which
 * stays what is shown after the user is renamed or removed. No foreign key, like api_keys.created_by_user_id.
 */
export function migration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('leads').addColumn('source_user_id', 'text').execute();
      await db.schema.alterTable('leads').addColumn('source_user_name', 'text').execute();
    },
  };
}
