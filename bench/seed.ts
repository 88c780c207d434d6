// Bulk seeding for the growth benchmark: millions of leads in one SQL statement per table (a recursive CTE on
// SQLite, generate_series on PostgreSQL), many leads sharing a thousand customers and addresses, exactly as
// the service would have stored them (a status history row per lead, ids and times that sort together).
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import type { DatabaseConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import type { Tables as Schema } from '../src/db/schema.js';
import type { Storage } from './processes.js';

/** Seeded leads are received one second apart from this instant on. */
export const SEED_EPOCH = Date.parse('2020-01-01T00:00:00.000Z');
const CUSTOMERS = 1000;

export const seededLeadId = (n: number) => `wrk_${String(n).padStart(26, '0')}`;
export const seededReceivedAt = (n: number) => SEED_EPOCH + n * 1000;

export function databaseConfig(storage: Storage): DatabaseConfig {
  return storage.dialect === 'sqlite'
    ? { dialect: 'sqlite', file: path.join(storage.dataDir, 'lead-intake.sqlite') }
    : { dialect: 'postgres', url: storage.databaseUrl!, schema: storage.schema!, poolMax: 2 };
}

/** Adds leads number `from` to `to - 1` to the brand (and, on the first call, the shared customers). */
export async function seedLeads(storage: Storage, brandId: string, from: number, to: number): Promise<void> {
  const database = openDatabase(databaseConfig(storage), 'NORMAL');
  const pg = storage.dialect === 'postgres';
  try {
    // One connection throughout, so that lifting the service's 15 s statement timeout applies to the inserts.
    await database.db.connection().execute(async (db) => {
      if (pg) await sql`set statement_timeout = 0`.execute(db);
      await insertRows(db, brandId, from, to, pg);
    });
  } finally {
    await database.close();
  }
}

async function insertRows(db: Kysely<Schema>, brandId: string, from: number, to: number, pg: boolean) {
  const pad = (expr: string) => (pg ? `lpad((${expr})::text, 26, '0')` : `printf('%026d', ${expr})`);
  const series = (a: number, b: number) =>
    pg
      ? `generate_series(${a}, ${b - 1}) as s(n)`
      : `(with recursive s(n) as (select ${a} union all select n + 1 from s where n + 1 < ${b}) select n from s) as s`;
  if (from === 0) {
    await sql`insert into customers (id, brand_id, type, name, email, email_normalized, created_at, updated_at)
        select 'cus_' || ${sql.raw(pad('n'))}, ${brandId}, 'person', 'Seeded customer ' || n,
               'seed' || n || '@example.com', 'seed' || n || '@example.com', ${SEED_EPOCH}, ${SEED_EPOCH}
        from ${sql.raw(series(0, CUSTOMERS))}`.execute(db);
    await sql`insert into addresses (id, brand_id, customer_id, street, street_number, postal_code, city, country,
                                       match_key, created_at, updated_at)
        select 'adr_' || ${sql.raw(pad('n'))}, ${brandId}, 'cus_' || ${sql.raw(pad('n'))}, 'Seedstraat',
               '' || (n + 1), '1234 AB', 'Utrecht', 'NL', '1234AB|' || (n + 1) || '||NL', ${SEED_EPOCH}, ${SEED_EPOCH}
        from ${sql.raw(series(0, CUSTOMERS))}`.execute(db);
  }
  const at = `${SEED_EPOCH} + n * 1000`;
  await sql`insert into leads (id, brand_id, customer_id, address_id, title, description, category, priority,
                                 status, stage, source, source_key_name, received_at, created_at, updated_at)
      select 'wrk_' || ${sql.raw(pad('n'))}, ${brandId}, 'cus_' || ${sql.raw(pad(`n % ${CUSTOMERS}`))},
             'adr_' || ${sql.raw(pad(`n % ${CUSTOMERS}`))}, 'Seeded job ' || n, 'Replace the kitchen tap',
             'plumbing', 'medium', 'request', 'lead', 'website', 'bench-seed',
             ${sql.raw(at)}, ${sql.raw(at)}, ${sql.raw(at)}
      from ${sql.raw(series(from, to))}`.execute(db);
  await sql`insert into lead_status_history (lead_id, seq, status, at, actor)
      select 'wrk_' || ${sql.raw(pad('n'))}, 1, 'request', ${sql.raw(at)}, null
      from ${sql.raw(series(from, to))}`.execute(db);
  // PostgreSQL's autovacuum would analyse a table this size soon after; do it now. SQLite keeps the
  // planner's defaults, as a database the service built itself would.
  if (pg) await sql`analyze`.execute(db);
}
