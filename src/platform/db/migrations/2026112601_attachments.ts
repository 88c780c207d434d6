import { type Kysely, sql } from 'kysely';
import { recreateListJsonTriggers } from '../../../leads/list-json-triggers.js';
import type { Dialect } from '../store.js';

/**
 * Photos and files with a request: one row per stored file (its bytes are in the attachment storage under
 * `storage_key`, never named after the file), listed per lead oldest first. Leads count theirs
 * (attachment_count, kept by the code that adds and removes them), which their list item shows: every stored
 * list item is forgotten, so the lists render them again with the count.
 */
export function migration(dialect: Dialect) {
  const idType = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  const big = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('attachments')
        .addColumn('id', idType, (c) => c.primaryKey())
        .addColumn('lead_id', idType, (c) => c.notNull().references('leads.id').onDelete('cascade'))
        .addColumn('brand_id', idType, (c) => c.notNull().references('brands.id'))
        .addColumn('file_name', 'text', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('size', big, (c) => c.notNull())
        .addColumn('sha256', 'text', (c) => c.notNull())
        .addColumn('width', 'integer')
        .addColumn('height', 'integer')
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('storage_key', 'text', (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('attachments_lead')
        .on('attachments')
        .columns(['lead_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('attachments_brand')
        .on('attachments')
        .columns(['brand_id', 'id'])
        .execute();
      await db.schema
        .alterTable('leads')
        .addColumn('attachment_count', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await recreateListJsonTriggers(db, dialect);
    },
  };
}
