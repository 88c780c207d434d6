import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * Internal notes on a lead or work item: plain text written by office staff or an API key, never sent to the
 * customer. Listed newest first per lead, keyset-paged by (created_at, id).
 */
export function migration(dialect: Dialect) {
  const idType = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  const time = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('lead_notes')
        .addColumn('id', idType, (c) => c.primaryKey())
        .addColumn('lead_id', idType, (c) => c.notNull().references('leads.id').onDelete('cascade'))
        .addColumn('brand_id', idType, (c) => c.notNull().references('brands.id'))
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('author_type', 'text', (c) => c.notNull())
        .addColumn('author_id', 'text', (c) => c.notNull())
        .addColumn('author_name', 'text', (c) => c.notNull())
        .addColumn('created_at', time, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('lead_notes_lead')
        .on('lead_notes')
        .columns(['lead_id', 'created_at', 'id'])
        .execute();
    },
  };
}
