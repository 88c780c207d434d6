import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * Website forms: a brand's forms (allowed origins, redirect, honeypot, captcha, consent, defaults), and on each
 * lead the form it came from, whether it is spam, the fields the form did not know, attribution and consent.
 */
export function migration(dialect: Dialect) {
  const idType = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  const time = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('forms')
        .addColumn('id', idType, (c) => c.primaryKey())
        .addColumn('brand_id', idType, (c) => c.notNull().references('brands.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('allowed_origins', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('redirect_url', 'text')
        .addColumn('honeypot_field', 'text', (c) => c.notNull().defaultTo('_gotcha'))
        .addColumn('captcha_provider', 'text')
        .addColumn('captcha_site_key', 'text')
        .addColumn('captcha_secret', 'text')
        .addColumn('consent_text', 'text')
        .addColumn('auto_reply', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('default_priority', 'text')
        .addColumn('default_category', 'text')
        .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('created_at', time, (c) => c.notNull())
        .addColumn('updated_at', time, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('forms_brand_created')
        .on('forms')
        .columns(['brand_id', 'created_at', 'id'])
        .execute();

      await db.schema.alterTable('leads').addColumn('source_form_id', 'text').execute();
      await db.schema.alterTable('leads').addColumn('source_form_name', 'text').execute();
      await db.schema
        .alterTable('leads')
        .addColumn('spam', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('leads').addColumn('extra_fields', 'text').execute();
      await db.schema.alterTable('leads').addColumn('attribution', 'text').execute();
      await db.schema.alterTable('leads').addColumn('consent', 'text').execute();
    },
  };
}
