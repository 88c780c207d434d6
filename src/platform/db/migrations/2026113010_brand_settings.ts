import type { Kysely } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * Brand settings (contract "The office's week", issue 30):
 * - `brands.mail_sender_name`: the display name in the From of every mail the brand sends; null: the brand's name.
 * - `brands.default_priority`: the priority of a new lead that was given none (API, website form, dashboard);
 *   null: medium, as before.
 * - `brands.first_run_dismissed_at`: when an admin put away the dashboard's "Get started" checklist; null: shown.
 */
export function migration(dialect: Dialect) {
  const time = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('brands').addColumn('mail_sender_name', 'text').execute();
      await db.schema.alterTable('brands').addColumn('default_priority', 'text').execute();
      await db.schema.alterTable('brands').addColumn('first_run_dismissed_at', time).execute();
    },
  };
}
