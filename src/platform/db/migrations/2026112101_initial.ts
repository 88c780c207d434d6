import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * The first schema. Ids sort byte-wise (collate "C" on PostgreSQL) so keyset paging is the same on both dialects.
 * Every list query has an index that starts with brand_id and ends with its order columns.
 */
export function migration(dialect: Dialect) {
  const idType = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  const time = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('brands')
        .addColumn('id', idType, (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('default_country', 'text', (c) => c.notNull())
        .addColumn('created_at', time, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('users')
        .addColumn('id', idType, (c) => c.primaryKey())
        .addColumn('brand_id', idType, (c) => c.notNull().references('brands.id'))
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('email_normalized', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('created_at', time, (c) => c.notNull())
        .addColumn('disabled_at', time)
        .execute();
      await db.schema.createIndex('users_brand').on('users').columns(['brand_id']).execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', idType, (c) => c.primaryKey())
        .addColumn('brand_id', idType, (c) => c.notNull().references('brands.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('display_prefix', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('created_at', time, (c) => c.notNull())
        .addColumn('created_by', 'text')
        .addColumn('last_used_at', time)
        .addColumn('expires_at', time)
        .addColumn('revoked_at', time)
        .addColumn('reads_per_minute', 'integer')
        .addColumn('writes_per_minute', 'integer')
        .execute();
      await db.schema
        .createIndex('api_keys_brand')
        .on('api_keys')
        .columns(['brand_id', 'created_at'])
        .execute();

      await db.schema
        .createTable('customers')
        .addColumn('id', idType, (c) => c.primaryKey())
        .addColumn('brand_id', idType, (c) => c.notNull().references('brands.id'))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('first_name', 'text')
        .addColumn('last_name', 'text')
        .addColumn('email', 'text')
        .addColumn('email_normalized', 'text')
        .addColumn('phone', 'text')
        .addColumn('company_name', 'text')
        .addColumn('created_at', time, (c) => c.notNull())
        .addColumn('updated_at', time, (c) => c.notNull())
        .execute();
      // One customer per email and per phone within a brand: concurrent creates link instead of duplicating.
      await db.schema
        .createIndex('customers_brand_email')
        .on('customers')
        .columns(['brand_id', 'email_normalized'])
        .unique()
        .where(sql.ref('email_normalized'), 'is not', null)
        .execute();
      await db.schema
        .createIndex('customers_brand_phone')
        .on('customers')
        .columns(['brand_id', 'phone'])
        .unique()
        .where(sql.ref('phone'), 'is not', null)
        .execute();

      await db.schema
        .createTable('addresses')
        .addColumn('id', idType, (c) => c.primaryKey())
        .addColumn('brand_id', idType, (c) => c.notNull().references('brands.id'))
        .addColumn('customer_id', idType, (c) => c.notNull().references('customers.id'))
        .addColumn('street', 'text', (c) => c.notNull())
        .addColumn('street_number', 'text')
        .addColumn('street_number_addition', 'text')
        .addColumn('postal_code', 'text', (c) => c.notNull())
        .addColumn('city', 'text', (c) => c.notNull())
        .addColumn('country', 'text', (c) => c.notNull())
        .addColumn('match_key', 'text', (c) => c.notNull())
        .addColumn('created_at', time, (c) => c.notNull())
        .addColumn('updated_at', time, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('addresses_customer_match')
        .on('addresses')
        .columns(['customer_id', 'match_key'])
        .unique()
        .execute();
      await db.schema
        .createIndex('addresses_brand_created')
        .on('addresses')
        .columns(['brand_id', 'created_at', 'id'])
        .execute();

      await db.schema
        .createTable('leads')
        .addColumn('id', idType, (c) => c.primaryKey())
        .addColumn('brand_id', idType, (c) => c.notNull().references('brands.id'))
        .addColumn('customer_id', idType, (c) => c.notNull().references('customers.id'))
        .addColumn('address_id', idType, (c) => c.notNull().references('addresses.id'))
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('category', 'text')
        .addColumn('priority', 'text', (c) => c.notNull())
        .addColumn('budget_quote', 'text')
        .addColumn('notes', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('stage', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('source_key_id', 'text')
        .addColumn('source_key_name', 'text')
        .addColumn('received_at', time, (c) => c.notNull())
        .addColumn('created_at', time, (c) => c.notNull())
        .addColumn('updated_at', time, (c) => c.notNull())
        .addColumn('scheduled_at', time)
        .execute();
      // Lists: GET /v1/leads and /v1/work-items walk (brand, stage) in (received_at, id) order.
      await db.schema
        .createIndex('leads_brand_stage_received')
        .on('leads')
        .columns(['brand_id', 'stage', 'received_at', 'id'])
        .execute();
      // status= filters on one state.
      await db.schema
        .createIndex('leads_brand_status_received')
        .on('leads')
        .columns(['brand_id', 'status', 'received_at', 'id'])
        .execute();
      // updatedAfter= (incremental sync of changes).
      await db.schema
        .createIndex('leads_brand_stage_updated')
        .on('leads')
        .columns(['brand_id', 'stage', 'updated_at'])
        .execute();
      await db.schema.createIndex('leads_customer').on('leads').columns(['customer_id']).execute();
      await db.schema.createIndex('leads_address').on('leads').columns(['address_id']).execute();

      await db.schema
        .createTable('lead_status_history')
        .addColumn('lead_id', idType, (c) => c.notNull().references('leads.id'))
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('at', time, (c) => c.notNull())
        .addColumn('actor', 'text')
        .addPrimaryKeyConstraint('lead_status_history_pk', ['lead_id', 'seq'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const table of [
        'lead_status_history',
        'leads',
        'addresses',
        'customers',
        'api_keys',
        'users',
        'brands',
      ]) {
        await db.schema.dropTable(table).execute();
      }
    },
  };
}
