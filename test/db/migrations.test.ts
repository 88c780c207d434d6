// Migrations (concurrent start on PostgreSQL, re-open on SQLite) and the query plans of every list at scale.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import {
  type CompiledQuery,
  Kysely,
  Migrator,
  PostgresDialect,
  type RawBuilder,
  SqliteDialect,
  sql,
} from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AddressListQuery,
  listAddresses,
  listCustomerAddresses,
} from '../../src/customers/addresses.js';
import { getCustomer } from '../../src/customers/customers.js';
import { type LeadListQuery, listLeads } from '../../src/leads/index.js';
import type { Stage } from '../../src/leads/states.js';
import {
  type Database,
  type Dialect,
  migrate,
  openDatabase,
  openSqlite,
  overKysely,
} from '../../src/platform/db/database.js';
import { migrations } from '../../src/platform/db/migration-files.js';
import type { Tables as Schema } from '../../src/platform/db/schema.js';
import { dialects, dropSchemaNamed, testSchemaName } from '../helpers.js';

const onPostgres = dialects().includes('postgres');
const allMigrations = async (dialect: Dialect) => Object.keys(await migrations(dialect)).sort();
const APP_TABLES = ['addresses', 'api_keys', 'brands', 'customers', 'lead_status_history', 'leads', 'users'];

function openPostgres(schema: string): Database {
  return openDatabase({ dialect: 'postgres', url: process.env.TEST_DATABASE_URL!, schema, poolMax: 2 });
}

/** A migrator over the service's migrations for an empty test database (on PostgreSQL: `schema`, created here). */
async function migratorFor(database: Database, dialect: Dialect, schema: string): Promise<Migrator> {
  if (dialect === 'postgres') await sql`create schema ${sql.id(schema)}`.execute(database.db);
  return new Migrator({
    db: database.db,
    provider: { getMigrations: () => migrations(dialect) },
    ...(dialect === 'postgres' ? { migrationTableSchema: schema } : {}),
  });
}

/** Columns and indexes of one PostgreSQL schema, with the schema name taken out so two schemas compare. */
async function describePostgresSchema(database: Database, schema: string) {
  const columns = await sql<{
    table_name: string;
    column_name: string;
    data_type: string;
    is_nullable: string;
  }>`
    select table_name, column_name, data_type, is_nullable from information_schema.columns
    where table_schema = ${schema} order by table_name, column_name`.execute(database.db);
  const indexes = await sql<{ indexdef: string }>`
    select indexdef from pg_indexes where schemaname = ${schema} order by indexname`.execute(database.db);
  return {
    tables: [...new Set(columns.rows.map((c) => c.table_name))].sort(),
    columns: columns.rows,
    indexes: indexes.rows.map((i) => i.indexdef.replaceAll(`${schema}.`, '')),
  };
}

async function dropPostgresSchema(database: Database, schema: string) {
  await dropSchemaNamed(database.db, schema);
}

describe.runIf(onPostgres)('migrations on postgres', () => {
  it('four instances migrating one fresh schema at once all succeed, and a rerun applies nothing', async () => {
    const schema = testSchemaName();
    const referenceSchema = testSchemaName();
    const handles = Array.from({ length: 4 }, () => openPostgres(schema));
    const reference = openPostgres(referenceSchema);
    try {
      const applied = await Promise.all(handles.map((h) => migrate(h, schema)));
      // One instance applied everything; the others waited on the lock and found nothing left to do.
      expect(applied.flat().sort()).toEqual(await allMigrations('postgres'));
      expect(applied.filter((names) => names.length > 0)).toHaveLength(1);
      const recorded = await sql<{ name: string }>`
        select name from ${sql.id(schema, 'kysely_migration')} order by name`.execute(handles[0]!.db);
      expect(recorded.rows.map((r) => r.name)).toEqual(await allMigrations('postgres'));

      // The raced schema is exactly what a lone run produces.
      expect(await migrate(reference, referenceSchema)).toEqual(await allMigrations('postgres'));
      const raced = await describePostgresSchema(handles[0]!, schema);
      expect(raced.tables).toEqual(expect.arrayContaining(APP_TABLES));
      expect(raced).toEqual(await describePostgresSchema(reference, referenceSchema));

      const late = openPostgres(schema);
      handles.push(late);
      expect(await Promise.all([migrate(late, schema), migrate(handles[1]!, schema)])).toEqual([[], []]);
    } finally {
      await dropPostgresSchema(reference, schema);
      await dropPostgresSchema(reference, referenceSchema);
      await Promise.all([...handles, reference].map((h) => h.close()));
    }
  });
});

describe('migrations on sqlite', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-migrate-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('migrates a new file database; reopened, it applies nothing and keeps its tables', async () => {
    const file = path.join(dir, 'nested', 'lead-intake.db');
    const first = openSqlite(file);
    try {
      expect(await migrate(first)).toEqual(await allMigrations('sqlite'));
    } finally {
      await first.close();
    }
    const again = openSqlite(file);
    try {
      expect(await migrate(again)).toEqual([]);
      const tables = await sql<{ name: string }>`
        select name from sqlite_master where type = 'table' order by name`.execute(again.db);
      expect(tables.rows.map((t) => t.name)).toEqual(expect.arrayContaining(APP_TABLES));
      const recorded = await again.db
        .selectFrom('kysely_migration' as never)
        .select('name' as never)
        .execute();
      expect((recorded as { name: string }[]).map((r) => r.name).sort()).toEqual(
        await allMigrations('sqlite'),
      );
    } finally {
      await again.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Query plans: every list the API serves must be answered from an index on its table, never a full scan.

const LEADS = 20_000;
const CUSTOMERS = 2_000;
const BASE_TIME = Date.UTC(2025, 0, 1);
const MINUTE = 60_000;
const BRAND = `brd_${'1'.padStart(26, '0')}`;

interface PlanDatabase {
  dialect: Dialect;
  /** A Kysely that records the SQL it runs, so the domain functions' own queries can be explained. */
  db: Kysely<Schema>;
  captured: CompiledQuery[];
  /** The PostgreSQL schema the tables live in. */
  schema?: string;
  explain(query: CompiledQuery): Promise<string[]>;
  close(): Promise<void>;
}

async function openPlanDatabase(dialect: Dialect): Promise<PlanDatabase> {
  const captured: CompiledQuery[] = [];
  const log = (event: { level: string; query: CompiledQuery }) => {
    if (event.level === 'query') captured.push(event.query);
  };
  if (dialect === 'sqlite') {
    const sqlite = new SQLite(':memory:');
    const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: sqlite }), log });
    return {
      dialect,
      db,
      captured,
      async explain(query) {
        const rows = sqlite.prepare(`explain query plan ${query.sql}`).all(...query.parameters) as {
          detail: string;
        }[];
        return rows.map((r) => r.detail);
      },
      close: () => db.destroy(),
    };
  }
  const schema = testSchemaName();
  const pool = new pg.Pool({
    connectionString: process.env.TEST_DATABASE_URL,
    max: 2,
    options: `-c search_path=${schema}`,
  });
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }), log });
  return {
    dialect,
    db,
    captured,
    schema,
    async explain(query) {
      const result = await pool.query(`explain ${query.sql}`, query.parameters as unknown[]);
      return result.rows.map((r: Record<string, string>) => r['QUERY PLAN']!);
    },
    async close() {
      await dropSchemaNamed(db, schema);
      await db.destroy();
    },
  };
}

/** Bulk-inserts two brands' customers, addresses and leads in a realistic mix of states, in a few statements. */
async function seed(target: PlanDatabase) {
  const { db, dialect } = target;
  // Literals, not parameters: PostgreSQL would type a bare parameter in arithmetic as integer (32-bit).
  const t0 = sql.lit(BASE_TIME);
  const minute = sql.lit(MINUTE);
  const hour = sql.lit(60 * MINUTE);
  const series = (n: number): RawBuilder<unknown> =>
    dialect === 'postgres'
      ? sql`select generate_series(1, ${sql.lit(n)}) as i`
      : sql`with recursive s(i) as (select 1 union all select i + 1 from s where i < ${sql.lit(n)}) select i from s`;
  const pad = (expr: RawBuilder<unknown>): RawBuilder<string> =>
    dialect === 'postgres'
      ? sql`lpad(cast(${expr} as text), 26, '0')`
      : sql`substr('00000000000000000000000000' || (${expr}), -26)`;
  const brandOf = (expr: RawBuilder<unknown>) => sql`'brd_' || ${pad(sql`1 + ${expr} % 2`)}`;
  // Most records end up completed or cancelled; the open lead list is a small share of the table.
  const status = sql`case i % 20 when 0 then 'request' when 1 then 'quoted' when 2 then 'scheduled'
    when 3 then 'planned' when 4 then 'in_progress' else case when i % 20 < 15 then 'completed' else 'cancelled' end end`;
  const stage = sql`case when i % 20 < 2 then 'lead' when i % 20 < 15 then 'work' else 'closed' end`;

  await sql`insert into brands (id, name, default_country, created_at)
    select 'brd_' || ${pad(sql`i`)}, 'Brand ' || i, 'NL', ${t0} from (${series(2)}) g`.execute(db);
  await sql`insert into customers (id, brand_id, type, name, email, email_normalized, created_at, updated_at)
    select 'cus_' || ${pad(sql`i`)}, ${brandOf(sql`i`)}, 'person', 'Customer ' || i,
      'c' || i || '@example.com', 'c' || i || '@example.com', ${t0} + i * ${minute}, ${t0} + i * ${minute}
    from (${series(CUSTOMERS)}) g`.execute(db);
  await sql`insert into addresses (id, brand_id, customer_id, street, street_number, postal_code, city, country,
      match_key, created_at, updated_at)
    select 'adr_' || ${pad(sql`i`)}, ${brandOf(sql`i`)}, 'cus_' || ${pad(sql`i`)}, 'Main street', '' || i, '1015CJ',
      'Amsterdam', 'NL', '1015CJ|' || i || '||NL', ${t0} + i * ${minute}, ${t0} + i * ${minute}
    from (${series(CUSTOMERS)}) g`.execute(db);
  await sql`insert into leads (id, brand_id, customer_id, address_id, title, priority, status, stage, source,
      received_at, created_at, updated_at, scheduled_at)
    select 'wrk_' || ${pad(sql`i`)}, ${brandOf(sql`c`)}, 'cus_' || ${pad(sql`c`)}, 'adr_' || ${pad(sql`c`)},
      'Job ' || i, 'medium', ${status}, ${stage}, 'website',
      ${t0} + i * ${minute}, ${t0} + i * ${minute}, ${t0} + i * ${minute} + (i % 5) * ${hour},
      case when i % 20 between 2 and 14 then ${t0} + i * ${minute} + 1000 end
    from (select i, 1 + i % ${sql.lit(CUSTOMERS)} as c from (${series(LEADS)}) g) s`.execute(db);
  if (dialect === 'postgres') await sql`analyze`.execute(db);
}

/**
 * Fails unless the plan reads `table` (alias `alias`) through one of its indexes, never whole; on SQLite, which
 * plans without statistics, no joined table may be scanned whole either. `ordered`: the index also gives the order.
 */
function expectIndexedPlan(
  target: PlanDatabase,
  plan: string[],
  table: 'leads' | 'addresses',
  alias: string,
  options: { ordered: boolean },
) {
  const text = plan.join('\n');
  if (process.env.SHOW_PLANS) console.log(text);
  if (target.dialect === 'postgres') {
    // Joined lookup tables may be hashed whole when small; the listed table itself never is.
    expect(text, text).not.toMatch(new RegExp(`Seq Scan on ${table}\\b`));
    expect(text, text).toMatch(
      new RegExp(
        `(Index (Only )?Scan( Backward)? using ${table}_\\w+ on ${table}|Bitmap Index Scan on ${table}_)`,
      ),
    );
    if (options.ordered) expect(text, text).not.toMatch(/\bSort\b/);
  } else {
    // "SCAN x" without "USING ... INDEX" is a full table scan.
    expect(
      plan.filter((line) => /^SCAN \w+$/.test(line)),
      text,
    ).toEqual([]);
    expect(text, text).toMatch(new RegExp(`(SEARCH|SCAN) ${alias} USING (COVERING )?INDEX ${table}_`));
    if (options.ordered) expect(text, text).not.toMatch(/TEMP B-TREE/);
  }
}

describe.each(dialects())('list query plans on %s', (dialect) => {
  let target: PlanDatabase;
  beforeAll(async () => {
    target = await openPlanDatabase(dialect);
    await migrate(overKysely(target.db, dialect), target.schema);
    await seed(target);
  });
  afterAll(async () => target?.close());

  async function leadPlan(stage: Stage, query: Partial<LeadListQuery>) {
    target.captured.length = 0;
    const page = await listLeads(overKysely(target.db, dialect), BRAND, stage, {
      limit: 50,
      order: 'desc',
      ...query,
    });
    expect(target.captured).toHaveLength(1);
    return { page, plan: await target.explain(target.captured[0]!) };
  }

  async function addressPlan(query: Partial<AddressListQuery>) {
    target.captured.length = 0;
    const page = await listAddresses(overKysely(target.db, dialect), BRAND, {
      limit: 50,
      order: 'desc',
      ...query,
    });
    expect(target.captured).toHaveLength(1);
    return { page, plan: await target.explain(target.captured[0]!) };
  }

  const recent = BASE_TIME + (LEADS - 400) * MINUTE;

  it.each(['lead', 'work'] as const)(
    '%s list: first page, cursor page and oldest first walk an index in order',
    async (stage) => {
      const first = await leadPlan(stage, {});
      expect(first.page.data).toHaveLength(50);
      expectIndexedPlan(target, first.plan, 'leads', 'l', { ordered: true });

      const next = await leadPlan(stage, { cursor: first.page.nextCursor! });
      expect(next.page.data).toHaveLength(50);
      expectIndexedPlan(target, next.plan, 'leads', 'l', { ordered: true });

      const oldest = await leadPlan(stage, { order: 'asc' });
      expectIndexedPlan(target, oldest.plan, 'leads', 'l', { ordered: true });
      const oldestNext = await leadPlan(stage, { order: 'asc', cursor: oldest.page.nextCursor! });
      expectIndexedPlan(target, oldestNext.plan, 'leads', 'l', { ordered: true });
    },
  );

  it.each([
    ['lead', { receivedAfter: recent }],
    ['lead', { receivedAfter: recent, receivedBefore: recent + 200 * MINUTE }],
    ['lead', { status: 'quoted' }],
    ['lead', { status: 'request,quoted' }],
    ['lead', { updatedAfter: recent }],
    ['work', { status: 'planned' }],
    ['work', { status: 'planned,in_progress' }],
    ['work', { updatedAfter: recent }],
  ] as const)('%s list filtered by %o uses an index on leads', async (stage, query) => {
    const { page, plan } = await leadPlan(stage, query);
    expect(page.data.length).toBeGreaterThan(0);
    expectIndexedPlan(target, plan, 'leads', 'l', { ordered: false });
  });

  it('address list: first page, cursor page and oldest first walk an index in order', async () => {
    const first = await addressPlan({});
    expect(first.page.data).toHaveLength(50);
    expectIndexedPlan(target, first.plan, 'addresses', 'addresses', { ordered: true });
    const next = await addressPlan({ cursor: first.page.nextCursor! });
    expectIndexedPlan(target, next.plan, 'addresses', 'addresses', { ordered: true });
    const oldest = await addressPlan({ order: 'asc' });
    expectIndexedPlan(target, oldest.plan, 'addresses', 'addresses', { ordered: true });
    const filtered = await addressPlan({ createdAfter: BASE_TIME + (CUSTOMERS - 100) * MINUTE });
    expect(filtered.page.data.length).toBeGreaterThan(0);
    expectIndexedPlan(target, filtered.plan, 'addresses', 'addresses', { ordered: false });
  });

  it("a customer's leads and addresses are found through the indexes over its internal key", async () => {
    // Customer 2 is the first brand's (brandOf), with the leads whose c is 2.
    const customerId = `cus_${'2'.padStart(26, '0')}`;
    const store = overKysely(target.db, dialect);
    target.captured.length = 0;
    const detail = await getCustomer(store, BRAND, customerId);
    expect(detail.leadCount).toBe(LEADS / CUSTOMERS);
    expect(await listCustomerAddresses(store, BRAND, customerId)).toHaveLength(1);
    // A list filtered by customer (GET /v1/leads?customerId=) starts from the customer's leads too.
    const work = await listLeads(store, BRAND, 'lead', { limit: 50, order: 'desc', customerId });
    expect(work.data.length).toBeGreaterThan(0);
    expect(work.data.every((l) => l.customer.id === customerId)).toBe(true);
    const plans = await Promise.all(target.captured.map((q) => target.explain(q)));
    const text = plans.map((p) => p.join('\n')).join('\n--\n');
    if (process.env.SHOW_PLANS) console.log(text);
    if (dialect === 'postgres') {
      expect(text, text).not.toMatch(/Seq Scan on (leads|addresses)\b/);
      // Links by id there (platform/db/internal-keys.ts).
      expect(text, text).toMatch(/using leads_customer_received on leads/);
      expect(text, text).toMatch(/using addresses_customer_match on addresses/);
    } else {
      expect(text, text).not.toMatch(/^SCAN (l|leads|a|addresses)$/m);
      expect(text, text).toMatch(/SEARCH l USING (COVERING )?INDEX leads_customer_received \(customer_key=/);
      // Never the brand's leads walked and filtered; the customer's index gives the lists their order.
      expect(text, text).not.toMatch(/INDEX leads_brand_/);
      for (const plan of plans.filter((p) => p.some((line) => line.includes('leads_customer_received')))) {
        expect(plan.join('\n'), text).not.toMatch(/TEMP B-TREE/);
      }
      expect(text, text).toMatch(/SEARCH addresses USING INDEX addresses_customer_match \(customer_key=/);
    }
  });
});

describe('migration discovery', () => {
  it('finds every migration file in the folder, in timestamp order, each with its migration(dialect)', async () => {
    const folder = path.join(
      path.dirname(fileURLToPath(import.meta.url)),
      '../../src/platform/db/migrations',
    );
    const files = fs
      .readdirSync(folder)
      .filter((f) => /^\d{10}_.+\.ts$/.test(f))
      .map((f) => f.replace(/\.ts$/, ''))
      .sort();
    expect(files.length).toBeGreaterThanOrEqual(3);
    expect(await allMigrations('sqlite')).toEqual(files);
    for (const migration of Object.values(await migrations('postgres')))
      expect(typeof migration.up).toBe('function');
  });
});

describe.each(dialects())('the lossless-intake migration on %s', (dialect) => {
  it('fills `submitted` of existing leads from their customer and address, and keys addresses by street', async () => {
    const schema = testSchemaName();
    const database = dialect === 'sqlite' ? openSqlite(':memory:') : openPostgres(schema);
    try {
      const migrator = await migratorFor(database, dialect, schema);
      const before = await migrator.migrateTo('2026112201_integrations');
      expect(before.error).toBeUndefined();
      const db = database.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
      await db
        .insertInto('brands')
        .values({ id: 'brd_1', name: 'B', default_country: 'NL', created_at: 1 })
        .execute();
      await db
        .insertInto('customers')
        .values({
          id: 'cus_1',
          brand_id: 'brd_1',
          type: 'business',
          name: 'Émile Dupont',
          first_name: null,
          last_name: 'Dupont',
          email: 'e@example.com',
          email_normalized: 'e@example.com',
          phone: '+31612345678',
          company_name: 'Dupont BV',
          created_at: 1,
          updated_at: 1,
        })
        .execute();
      await db
        .insertInto('addresses')
        .values({
          id: 'adr_1',
          brand_id: 'brd_1',
          customer_id: 'cus_1',
          street: 'Keizers Gracht',
          street_number: '5',
          street_number_addition: null,
          postal_code: '1015 CJ',
          city: 'Amsterdam',
          country: 'NL',
          match_key: '1015CJ|5||NL',
          created_at: 1,
          updated_at: 1,
        })
        .execute();
      await db
        .insertInto('leads')
        .values({
          id: 'wrk_1',
          brand_id: 'brd_1',
          customer_id: 'cus_1',
          address_id: 'adr_1',
          title: 'T',
          description: null,
          category: null,
          priority: 'medium',
          budget_quote: null,
          notes: null,
          status: 'request',
          stage: 'lead',
          source: 'website',
          source_key_id: null,
          source_key_name: null,
          received_at: 1,
          created_at: 1,
          updated_at: 1,
          scheduled_at: null,
        })
        .execute();

      const after = await migrator.migrateToLatest();
      expect(after.error).toBeUndefined();
      const [lead] = await db.selectFrom('leads').select('submitted').execute();
      expect(JSON.parse(lead!.submitted as string)).toEqual({
        customerName: 'Émile Dupont',
        firstName: null,
        lastName: 'Dupont',
        email: 'e@example.com',
        phone: '+31612345678',
        companyName: 'Dupont BV',
        street: 'Keizers Gracht',
        streetNumber: '5',
        streetNumberAddition: null,
        postalCode: '1015 CJ',
        city: 'Amsterdam',
        country: 'NL',
      });
      const [address] = await db.selectFrom('addresses').select('match_key').execute();
      expect(address!.match_key).toBe('1015CJ|5||NL|keizersgracht');
      // Two customers may now share a phone.
      await db
        .insertInto('customers')
        .values({
          id: 'cus_2',
          brand_id: 'brd_1',
          type: 'person',
          name: 'Other',
          first_name: null,
          last_name: null,
          email: 'o@example.com',
          email_normalized: 'o@example.com',
          phone: '+31612345678',
          company_name: null,
          created_at: 2,
          updated_at: 2,
        })
        .execute();
    } finally {
      if (dialect === 'postgres') await dropPostgresSchema(database, schema);
      await database.close();
    }
  });
});

describe.each(dialects())('the scheduling migration on %s', (dialect) => {
  it('gives existing brands a time zone from their country, and leads and users empty planning columns', async () => {
    const schema = testSchemaName();
    const database = dialect === 'sqlite' ? openSqlite(':memory:') : openPostgres(schema);
    try {
      const migrator = await migratorFor(database, dialect, schema);
      expect((await migrator.migrateTo('2026112305_key_creator')).error).toBeUndefined();
      const db = database.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
      await db
        .insertInto('brands')
        .values([
          { id: 'brd_nl', name: 'NL', default_country: 'NL', created_at: 1 },
          { id: 'brd_be', name: 'BE', default_country: 'BE', created_at: 1 },
        ])
        .execute();
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      const brands = await db.selectFrom('brands').select(['id', 'time_zone']).orderBy('id').execute();
      expect(brands).toEqual([
        { id: 'brd_be', time_zone: 'UTC' },
        { id: 'brd_nl', time_zone: 'Europe/Amsterdam' },
      ]);
      // New brands made without a zone (an old instance still running) get UTC rather than failing.
      await db
        .insertInto('brands')
        .values({ id: 'brd_x', name: 'X', default_country: 'DE', created_at: 2 })
        .execute();
      const [added] = await db.selectFrom('brands').select('time_zone').where('id', '=', 'brd_x').execute();
      expect(added!.time_zone).toBe('UTC');
    } finally {
      if (dialect === 'postgres') await dropPostgresSchema(database, schema);
      await database.close();
    }
  });
});
