// Every column of every table is in the personal-data inventory (src/personal-data/inventory.ts), on both
// databases, and the inventory names no column that does not exist: a new column that could hold a person's data
// cannot be added without deciding how an erasure reaches it.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_INVENTORY } from '../../src/personal-data/inventory.js';
import { createTestContext, dialects, type TestContext } from '../helpers.js';

describe.each(dialects())('the personal-data inventory on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  /** table -> its columns, as the database lists them (SQLite: virtual tables and FTS5's own tables too). */
  async function columns(): Promise<Map<string, string[]>> {
    const db = ctx.app.deps.database.db;
    const { rows: tables } =
      dialect === 'sqlite'
        ? await sql<{ name: string }>`select name from sqlite_master where type = 'table'
            and name not like 'sqlite_%'`.execute(db)
        : await sql<{ name: string }>`select table_name as name from information_schema.tables
            where table_schema = current_schema()`.execute(db);
    const out = new Map<string, string[]>();
    for (const { name } of tables) {
      const { rows } =
        dialect === 'sqlite'
          ? await sql<{ name: string }>`select name from pragma_table_info(${name})`.execute(db)
          : await sql<{ name: string }>`select column_name as name from information_schema.columns
              where table_schema = current_schema() and table_name = ${name}`.execute(db);
      out.set(
        name,
        rows.map((r) => r.name),
      );
    }
    return out;
  }

  it('names every column of every table, and only those', async () => {
    const actual = await columns();
    const missing: string[] = [];
    for (const [table, names] of actual) {
      for (const name of names) if (!DATA_INVENTORY[table]?.[name]) missing.push(`${table}.${name}`);
    }
    expect(missing, 'columns with no erasure rule in src/personal-data/inventory.ts').toEqual([]);
    // The FTS5 tables and the search index's own (rows, pending marks) exist on SQLite only; the rest on both.
    const sqliteOnly = /^lead_search_(rows|pending|data|idx|docsize|config)$/;
    const sqliteOnlyColumns = new Set([
      'brands.search_key',
      // Internal keys (2026120801, platform/db/internal-keys.ts).
      'customers.key',
      'addresses.key',
      'addresses.customer_key',
      'leads.customer_key',
      'leads.address_key',
    ]);
    const stale: string[] = [];
    for (const [table, rules] of Object.entries(DATA_INVENTORY)) {
      if (dialect === 'postgres' && sqliteOnly.test(table)) continue;
      for (const name of Object.keys(rules)) {
        const known = actual.get(table);
        // lead_search has other columns on each database (FTS5's body; PostgreSQL's lead_id, brand_id, body).
        if (table === 'lead_search' && known) continue;
        if (dialect === 'postgres' && sqliteOnlyColumns.has(`${table}.${name}`)) continue;
        if (!known?.includes(name)) stale.push(`${table}.${name}`);
      }
    }
    expect(stale, 'inventory lines for columns that do not exist').toEqual([]);
  });
});
