// Bulk seeding for the growth benchmark: millions of leads in one SQL statement per table (a recursive CTE on
// SQLite, generate_series on PostgreSQL), many leads sharing a thousand customers and addresses, exactly as
// the service would have stored them (a status history row per lead, ids and times that sort together).
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import { renderMissingListJson } from '../src/leads/list-json.js';
import type { DatabaseConfig } from '../src/platform/config.js';
import { openDatabase } from '../src/platform/db/database.js';
import type { Tables as Schema } from '../src/platform/db/schema.js';
import { indexPendingLeads } from '../src/platform/db/search-index.js';
import type { Storage } from './processes.js';

/** Seeded leads are received one second apart from this instant on. */
export const SEED_EPOCH = Date.parse('2020-01-01T00:00:00.000Z');
const CUSTOMERS = 1000;

const FIRST_NAMES = [
  'Jan',
  'Piet',
  'Kees',
  'Anna',
  'Sanne',
  'Eva',
  'Daan',
  'Lotte',
  'Bram',
  'Fleur',
  'Sem',
  'Noor',
  'Lucas',
  'Julia',
  'Finn',
  'Tess',
  'Ruben',
  'Iris',
  'Thijs',
  'Zoë',
] as const;
const LAST_NAMES = [
  'de Jong',
  'Jansen',
  'de Vries',
  'van den Berg',
  'van Dijk',
  'Bakker',
  'Janssen',
  'Visser',
  'Smit',
  'Meijer',
  'de Boer',
  'Mulder',
  'de Groot',
  'Bos',
  'Vos',
  'Peters',
  'Hendriks',
  'van Leeuwen',
  'Dekker',
  'Brouwer',
  'de Wit',
  'Dijkstra',
  'Smits',
  'de Graaf',
  'van der Meer',
  'van der Linden',
  'Kok',
  'Jacobs',
  'de Haan',
  'Vermeulen',
  'van den Heuvel',
  'van der Veen',
  'van den Broek',
  'de Bruijn',
  'de Bruin',
  'van der Heijden',
  'Schouten',
  'van Beek',
  'Willems',
  'van Vliet',
  'van de Ven',
  'Hoekstra',
  'Maas',
  'Verhoeven',
  'Koster',
  'van Dam',
  'van der Wal',
  'Prins',
  'Blom',
  'Huisman',
] as const;
const STREETS = [
  'Hoofdstraat',
  'Kerkstraat',
  'Dorpsstraat',
  'Schoolstraat',
  'Molenweg',
  'Stationsweg',
  'Julianastraat',
  'Beatrixlaan',
  'Nieuwstraat',
  'Marktplein',
  'Wilhelminastraat',
  'Kastanjelaan',
  'Eikenlaan',
  'Industrieweg',
  'Parallelweg',
  'Emmastraat',
  'Lindelaan',
  'Oranjestraat',
  'Sportlaan',
  'Irisstraat',
  'Tulpstraat',
  'Rozenstraat',
  'Prinsengracht',
  'Herengracht',
  'Oudegracht',
] as const;
const CITIES = [
  'Amsterdam',
  'Rotterdam',
  'Den Haag',
  'Utrecht',
  'Eindhoven',
  'Groningen',
  'Tilburg',
  'Almere',
  'Breda',
  'Nijmegen',
] as const;
/** Leads of the needle customer, at every size. */
export const NEEDLE_LEADS = 10;
/** What only the needle customer (and its NEEDLE_LEADS leads) has; the search scenario looks for it. */
export const SEARCH_NEEDLE = {
  name: 'Émile Dupont',
  phone: '+31642424242',
  street: 'Keizersgracht',
  postalCode: '1015 CJ',
} as const;
/** The search scenario's queries, as people type them, each finding the needle's NEEDLE_LEADS leads. */
export const SEARCH_QUERIES = {
  name: 'emile dupont',
  street: 'Keizersgracht',
  'phone (national)': '06 4242 4242',
  'postal code (no space)': '1015CJ',
} as const;

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
    // SQLite: leads inserted with our own SQL are only numbered and marked for the search index; they are indexed
    // by a write's commit (src/platform/db/search-index.ts), here in one statement.
    if (!pg) await database.write((tx) => indexPendingLeads(tx));
    // Written around the service, so their list items are rendered here, as after an import (list-json.ts).
    await renderMissingListJson(database, { batch: 5000 });
    // Rendering updated every row: on PostgreSQL the old versions stay until a vacuum, which autovacuum would do
    // after such an import; done here so the runs read the table as a service that wrote its leads itself would.
    if (pg) {
      await database.db.connection().execute(async (db) => {
        await sql`set statement_timeout = 0`.execute(db);
        await sql`vacuum (analyze) leads`.execute(db);
      });
    }
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
    // A thousand customers with the variety the search index sees in real data: names from 20 first and 50 last
    // names, Dutch mobile numbers (all +316…, so their common trigrams are in every document), a company for
    // every fifth, 25 streets, 10 cities, postal codes written with their space. Customer 0 is the needle the
    // search scenario looks for: its name, street and phone occur nowhere else.
    const pick = (list: readonly string[], expr: string) =>
      `(case ${list.map((v, i) => `when (${expr}) % ${list.length} = ${i} then '${v}'`).join(' ')} end)`;
    const needle = (value: string, otherwise: string) =>
      `(case when n = 0 then '${value}' else ${otherwise} end)`;
    const name = needle(
      SEARCH_NEEDLE.name,
      `${pick(FIRST_NAMES, 'n')} || ' ' || ${pick(LAST_NAMES, 'n / 20')}`,
    );
    const phone = needle(
      SEARCH_NEEDLE.phone,
      `'+316' || ${pg ? `lpad((10000000 + n * 7919 % 89999999)::text, 8, '0')` : `(10000000 + n * 7919 % 89999999)`}`,
    );
    await sql`insert into customers (id, brand_id, type, name, email, email_normalized, phone, company_name,
                                     created_at, updated_at)
        select 'cus_' || ${sql.raw(pad('n'))}, ${brandId}, 'person', ${sql.raw(name)},
               'seed' || n || '@example.com', 'seed' || n || '@example.com', ${sql.raw(phone)},
               (case when n % 5 = 1 then ${sql.raw(pick(LAST_NAMES, 'n / 3'))} || ' Installatie' end),
               ${SEED_EPOCH}, ${SEED_EPOCH}
        from ${sql.raw(series(0, CUSTOMERS))}`.execute(db);
    const street = needle(SEARCH_NEEDLE.street, pick(STREETS, 'n'));
    const postal = needle(
      SEARCH_NEEDLE.postalCode,
      `(1000 + n * 37 % 9000) || ' ' || ${pick(['AB', 'CD', 'EF', 'GH', 'JK', 'LM'], 'n')}`,
    );
    await sql`insert into addresses (id, brand_id, customer_id, street, street_number, postal_code, city, country,
                                       match_key, created_at, updated_at)
        select 'adr_' || ${sql.raw(pad('n'))}, ${brandId}, 'cus_' || ${sql.raw(pad('n'))}, ${sql.raw(street)},
               '' || (n + 1), ${sql.raw(postal)}, ${sql.raw(pick(CITIES, 'n'))}, 'NL', 'seed|' || n, ${SEED_EPOCH}, ${SEED_EPOCH}
        from ${sql.raw(series(0, CUSTOMERS))}`.execute(db);
  }
  // Leads 0 to NEEDLE_LEADS - 1 are the needle customer's (the same number at every size); the rest share the others.
  const customer = `(case when n < ${NEEDLE_LEADS} then 0 else 1 + n % ${CUSTOMERS - 1} end)`;
  const at = `${SEED_EPOCH} + n * 1000`;
  await sql`insert into leads (id, brand_id, customer_id, address_id, title, description, category, priority,
                                 status, stage, source, source_key_name, received_at, created_at, updated_at)
      select 'wrk_' || ${sql.raw(pad('n'))}, ${brandId}, 'cus_' || ${sql.raw(pad(customer))},
             'adr_' || ${sql.raw(pad(customer))}, 'Seeded job ' || n, 'Replace the kitchen tap',
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
