// Bulk seeding for the crowd scenarios of bench/creates.ts: many customers of one brand sharing one phone, written
// by SQL as bench/seed.ts writes the growth leads (one statement per table over a recursive CTE on SQLite,
// generate_series on PostgreSQL), through the schema's own triggers (search documents, customers.last_lead_at), with
// the list items rendered afterwards as after an import.
import { sql } from 'kysely';
import { renderMissingListJson } from '../src/leads/list-json.js';
import { openDatabase } from '../src/platform/db/database.js';
import type { Storage } from './processes.js';
import { databaseConfig, SEED_EPOCH } from './seed.js';

export interface Crowd {
  /** Tells the crowds of one database apart in their ids (0-99). */
  index: number;
  /** E.164, as the service stores a phone (the submissions send it so too). */
  phone: string;
  size: number;
  /**
   * With leads: each customer has an address and one lead (received one second apart, so the last customer has
   * the latest lead), as customers made by submissions. Without: customers only, as made through
   * POST /v1/customers (last_lead_at 0).
   */
  withLeads: boolean;
}

/** The customer of a crowd that has its latest lead: the one a submission with only the phone links to. */
export const crowdCustomerId = (crowd: Crowd, n: number) =>
  `cus_c${String(crowd.index).padStart(2, '0')}${String(n).padStart(23, '0')}`;

/** A landline number per crowd, far from the bench's mobile numbers (+316…) and from each other. */
export const crowdPhone = (index: number) => `+3120${String(5_000_000 + index).padStart(7, '0')}`;

/**
 * Writes the crowds into the brand. Every customer has its own email (so a submission with a new email links to
 * none of them by phone: the phone rule of a submission with an email reads only customers without one).
 */
export async function seedCrowds(storage: Storage, brandId: string, crowds: Crowd[]): Promise<void> {
  const database = openDatabase(databaseConfig(storage), 'NORMAL');
  const pg = storage.dialect === 'postgres';
  const pad = (expr: string, width: number) =>
    pg ? `lpad((${expr})::text, ${width}, '0')` : `printf('%0${width}d', ${expr})`;
  const series = (count: number) =>
    pg
      ? `generate_series(0, ${count - 1}) as s(n)`
      : `(with recursive s(n) as (select 0 union all select n + 1 from s where n + 1 < ${count}) select n from s) as s`;
  try {
    await database.db.connection().execute(async (db) => {
      // One connection, so that lifting the service's statement timeout applies to the inserts.
      if (pg) await sql`set statement_timeout = 0`.execute(db);
      for (const crowd of crowds) {
        const tag = `c${String(crowd.index).padStart(2, '0')}`;
        const id = (prefix: string) => `'${prefix}_${tag}' || ${pad('n', 23)}`;
        const at = `${SEED_EPOCH} + n * 1000`;
        // The crowd's number as an SQL text literal (a bound parameter of unknown type would not concatenate on
        // PostgreSQL).
        const label = sql.raw(`'${crowd.index}'`);
        await sql`insert into customers (id, brand_id, type, name, email, email_normalized, phone, created_at,
                                         updated_at)
            select ${sql.raw(id('cus'))}, ${brandId}, 'person', 'Crowd ' || ${label} || ' member ' || n,
                   'crowd' || ${label} || '-' || n || '@example.com',
                   'crowd' || ${label} || '-' || n || '@example.com', ${crowd.phone},
                   ${sql.raw(at)}, ${sql.raw(at)}
            from ${sql.raw(series(crowd.size))}`.execute(db);
        if (!crowd.withLeads) continue;
        await sql`insert into addresses (id, brand_id, customer_id, street, street_number, postal_code, city,
                                         country, match_key, created_at, updated_at)
            select ${sql.raw(id('adr'))}, ${brandId}, ${sql.raw(id('cus'))}, 'Damrak', '' || (n % 200 + 1),
                   '1012 LG', 'Amsterdam', 'NL', 'crowd|' || ${label} || '|' || n, ${sql.raw(at)}, ${sql.raw(at)}
            from ${sql.raw(series(crowd.size))}`.execute(db);
        // The trigger on leads sets each customer's last_lead_at (2026112902), as a create would.
        await sql`insert into leads (id, brand_id, customer_id, address_id, title, description, category,
                                     priority, status, stage, source, source_key_name, received_at, created_at,
                                     updated_at)
            select ${sql.raw(id('wrk'))}, ${brandId}, ${sql.raw(id('cus'))}, ${sql.raw(id('adr'))},
                   'Crowd job ' || n, 'Replace the kitchen tap', 'plumbing', 'medium', 'request', 'lead',
                   'website', 'bench-seed', ${sql.raw(at)}, ${sql.raw(at)}, ${sql.raw(at)}
            from ${sql.raw(series(crowd.size))}`.execute(db);
        await sql`insert into lead_status_history (lead_id, seq, status, at, actor)
            select ${sql.raw(id('wrk'))}, 1, 'request', ${sql.raw(at)}, null
            from ${sql.raw(series(crowd.size))}`.execute(db);
      }
    });
    // Written around the service, so their list items are rendered here, as after an import (list-json.ts).
    await renderMissingListJson(database, { batch: 5000 });
    // What autovacuum would do after such an import: statistics for the planner, and the rendering's dead rows gone.
    if (pg) {
      await database.db.connection().execute(async (db) => {
        await sql`set statement_timeout = 0`.execute(db);
        await sql`vacuum (analyze) customers, addresses, leads, lead_status_history`.execute(db);
      });
    }
  } finally {
    await database.close();
  }
}

/** How many customers of the brand have this phone now (an email crowd grows by one per create). */
export async function crowdSize(storage: Storage, brandId: string, phone: string): Promise<number> {
  const database = openDatabase(databaseConfig(storage), 'NORMAL');
  try {
    const row = await sql<{ n: number | string }>`select count(*) as n from customers
        where brand_id = ${brandId} and phone = ${phone}`.execute(database.db);
    return Number(row.rows[0]?.n ?? 0);
  } finally {
    await database.close();
  }
}
