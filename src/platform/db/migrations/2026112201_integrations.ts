import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Idempotency keys, events, webhook endpoints and their delivery queue. Booleans are integers (0/1) and JSON is
 * text on both dialects, so the same queries run everywhere.
 */
export function migration(dialect: Dialect) {
  const idType = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  const time = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('idempotency_keys')
        .addColumn('key_id', idType, (c) => c.notNull())
        .addColumn('idempotency_key', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('claim_token', 'text', (c) => c.notNull())
        .addColumn('response_status', 'integer')
        .addColumn('response_body', 'text')
        .addColumn('created_at', time, (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['key_id', 'idempotency_key'])
        .execute();
      await db.schema
        .createIndex('idempotency_keys_created')
        .on('idempotency_keys')
        .columns(['created_at'])
        .execute();

      await db.schema
        .createTable('events')
        .addColumn('id', idType, (c) => c.primaryKey())
        .addColumn('brand_id', idType, (c) => c.notNull().references('brands.id'))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('created_at', time, (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('events_brand_created')
        .on('events')
        .columns(['brand_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('events_brand_type_created')
        .on('events')
        .columns(['brand_id', 'type', 'created_at', 'id'])
        .execute();

      await db.schema
        .createTable('webhook_endpoints')
        .addColumn('id', idType, (c) => c.primaryKey())
        .addColumn('brand_id', idType, (c) => c.notNull().references('brands.id'))
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('events', 'text', (c) => c.notNull())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('previous_secret', 'text')
        .addColumn('previous_secret_expires_at', time)
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('failing_since', time)
        .addColumn('last_success_at', time)
        .addColumn('disabled_at', time)
        .addColumn('disabled_reason', 'text')
        .addColumn('created_at', time, (c) => c.notNull())
        .addColumn('updated_at', time, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('webhook_endpoints_brand_created')
        .on('webhook_endpoints')
        .columns(['brand_id', 'created_at', 'id'])
        .execute();

      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', idType, (c) => c.primaryKey())
        .addColumn('endpoint_id', idType, (c) =>
          c.notNull().references('webhook_endpoints.id').onDelete('cascade'),
        )
        .addColumn('event_id', idType, (c) => c.notNull().references('events.id'))
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('next_attempt_at', time, (c) => c.notNull())
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until', time, (c) => c.notNull())
        .addColumn('response_status', 'integer')
        .addColumn('duration_ms', 'integer')
        .addColumn('error', 'text')
        .addColumn('last_attempt_at', time)
        .addColumn('created_at', time, (c) => c.notNull())
        .execute();
      // The queue: what is due, in order. The log: an endpoint's deliveries, newest first.
      await db.schema
        .createIndex('webhook_deliveries_due')
        .on('webhook_deliveries')
        .columns(['status', 'next_attempt_at'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_endpoint_created')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_event')
        .on('webhook_deliveries')
        .columns(['event_id'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const table of ['webhook_deliveries', 'webhook_endpoints', 'events', 'idempotency_keys']) {
        await db.schema.dropTable(table).execute();
      }
    },
  };
}
