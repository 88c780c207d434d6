import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * Posts a form refused for their origin, so the business sees them in Settings: one row per form, origin (as sent,
 * at most 300 characters, or "(none)") and UTC day with a count, pruned after 30 days. A form's rows go with it.
 */
export function migration(dialect: Dialect) {
  const idType = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  const time = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('form_refusals')
        .addColumn('form_id', idType, (c) => c.notNull().references('forms.id').onDelete('cascade'))
        .addColumn('origin', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addColumn('last_at', time, (c) => c.notNull())
        .addPrimaryKeyConstraint('form_refusals_pkey', ['form_id', 'origin', 'day'])
        .execute();
      await db.schema.createIndex('form_refusals_day').on('form_refusals').columns(['day']).execute();
    },
  };
}
