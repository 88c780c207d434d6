// Many leads at once for tests and benchmarks of exports and counts: one INSERT … SELECT per table over a number
// series (a recursive CTE on SQLite, generate_series on PostgreSQL), straight into the tables, not through the API.
import { sql } from 'kysely';
import type { Database } from '../src/platform/db/database.js';
import { indexPendingLeads } from '../src/platform/db/search-index.js';

/** Bulk leads are received one second apart from this instant on: lead n at BULK_EPOCH + n s. */
export const BULK_EPOCH = Date.parse('2025-01-01T00:00:00.000Z');
const CUSTOMERS = 100;

export interface BulkLeads {
  /** One lowercase letter or digit that keeps the ids of separate calls apart (one per brand). */
  tag: string;
  count: number;
  /** Default request (stage lead); a work-item state puts them in the work-item list. */
  status?: string;
}

const pad = (tag: string, n: number) => `${tag}${String(n).padStart(25, '0')}`;
export const bulkLeadId = (tag: string, n: number) => `wrk_${pad(tag, n)}`;
export const bulkCustomerId = (tag: string, n: number) => `cus_${pad(tag, n % CUSTOMERS)}`;
export const bulkTitle = (n: number) => `Bulk job ${n}`;
export const bulkReceivedAt = (n: number) => new Date(BULK_EPOCH + n * 1000).toISOString();
/** A description with a comma, a quote and a line break, so every row needs quoting. */
export const BULK_DESCRIPTION = 'Replace the tap, then "test" it\nand clean up';

/** Adds `count` leads numbered 0 to count - 1, with CUSTOMERS customers and addresses shared among them. */
export async function insertBulkLeads(database: Database, brandId: string, bulk: BulkLeads): Promise<void> {
  const pg = database.dialect === 'postgres';
  const status = bulk.status ?? 'request';
  const stage = ['request', 'quoted'].includes(status) ? 'lead' : 'work';
  const id = (prefix: string, expr: string) =>
    pg
      ? sql.raw(`'${prefix}_${bulk.tag}' || lpad((${expr})::text, 25, '0')`)
      : sql.raw(`'${prefix}_${bulk.tag}' || printf('%025d', ${expr})`);
  const series = (count: number) =>
    sql.raw(
      pg
        ? `generate_series(0, ${count - 1}) as s(n)`
        : `(with recursive s(n) as (select 0 union all select n + 1 from s where n + 1 < ${count}) select n from s) as s`,
    );
  const at = sql.raw(`${BULK_EPOCH} + n * 1000`);
  const epoch = sql.raw(String(BULK_EPOCH));
  await database.db.connection().execute(async (db) => {
    // The service's 15 s statement timeout is for requests; a 100,000-row insert on a loaded machine may need more.
    if (pg) await sql`set statement_timeout = 0`.execute(db);
    await sql`insert into customers (id, brand_id, type, name, email, email_normalized, phone, created_at, updated_at)
        select ${id('cus', 'n')}, ${brandId}, 'person', 'Bulk customer ' || n, 'bulk-' || ${bulk.tag} || n || '@example.com',
               'bulk-' || ${bulk.tag} || n || '@example.com', '+3161234' || (1000 + n), ${epoch}, ${epoch}
        from ${series(Math.min(CUSTOMERS, bulk.count))}`.execute(db);
    await sql`insert into addresses (id, brand_id, customer_id, street, street_number, postal_code, city, country,
                                     match_key, created_at, updated_at)
        select ${id('adr', 'n')}, ${brandId}, ${id('cus', 'n')}, 'Bulkstraat', '' || (n + 1), '1234 AB', 'Utrecht', 'NL',
               '1234AB|' || (n + 1) || '||NL', ${epoch}, ${epoch}
        from ${series(Math.min(CUSTOMERS, bulk.count))}`.execute(db);
    await sql`insert into leads (id, brand_id, customer_id, address_id, title, description, category, priority,
                                 status, stage, source, received_at, created_at, updated_at, scheduled_at)
        select ${id('wrk', 'n')}, ${brandId}, ${id('cus', `n % ${CUSTOMERS}`)}, ${id('adr', `n % ${CUSTOMERS}`)},
               'Bulk job ' || n, ${BULK_DESCRIPTION}, 'plumbing', 'medium', ${status}, ${stage}, 'website',
               ${at}, ${at}, ${at}, ${stage === 'work' ? at : sql.raw('null')}
        from ${series(bulk.count)}`.execute(db);
    if (pg) await sql`reset statement_timeout`.execute(db);
  });
  // SQLite: leads inserted with our own SQL are only numbered and marked for the search index; they are indexed
  // by a write's commit (src/platform/db/search-index.ts), here in one statement.
  if (!pg) await database.write((tx) => indexPendingLeads(tx));
}
