// Deferred inserts (Tx.defer): on PostgreSQL they wait and reach the server as one statement before the
// transaction's next statement or its commit; on SQLite they run at once. Either way a write sees its own deferred
// rows, commits them with everything else, and a deferred insert that fails fails its whole write.
import { createRequire } from 'node:module';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, migrate, openDatabase } from '../../src/db/database.js';
import { combinedInserts, statement } from '../../src/db/sql.js';
import { createBrand } from '../../src/domain/brands.js';
import { createTestContext, dialects, dropSchemaNamed, testDatabaseConfig, validLead } from '../helpers.js';

const INSERT_BRAND = statement(
  'insert into brands (id, name, default_country, created_at) values (?, ?, ?, ?)',
);
const BRAND_NAMES = statement('select name from brands where id in (?, ?, ?) order by name');

/**
 * Records every statement text node-postgres sends while `fn` runs (this process, any client). Installed before the
 * pool connects: each connection wraps the query method it finds then (see sendQueriesWhole in database.ts).
 */
let recording: string[] | undefined;
function recordStatements(): void {
  const { Client } = createRequire(import.meta.url)('pg') as typeof pg;
  const original = Client.prototype.query as (...a: unknown[]) => unknown;
  Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text: string };
    recording?.push(typeof config === 'string' ? config : config.text);
    return original.apply(this, args);
  } as typeof Client.prototype.query;
}
async function statementsSentBy(fn: () => Promise<unknown>): Promise<string[]> {
  recording = [];
  try {
    await fn();
    return recording;
  } finally {
    recording = undefined;
  }
}

describe('combinedInserts', () => {
  it('makes the first inserts CTEs of the last, numbering the parameters through', () => {
    const { s, params } = combinedInserts([
      { s: statement('insert into a (x) values (?)'), params: [1] },
      { s: statement('insert into b (y, z) values (?, ?)'), params: [2, 3] },
      { s: statement('insert into c (w) values (?)'), params: [4] },
    ]);
    expect(s.postgres).toBe(
      'with d0 as (insert into a (x) values ($1)), d1 as (insert into b (y, z) values ($2, $3)) ' +
        'insert into c (w) values ($4)',
    );
    expect(params).toEqual([1, 2, 3, 4]);
  });

  it('refuses what is not a plain insert', () => {
    expect(() => combinedInserts([{ s: statement('update a set x = ?'), params: [1] }])).toThrow(
      /only inserts/,
    );
    expect(() =>
      combinedInserts([{ s: statement('insert into a (x) values (?) returning x'), params: [1] }]),
    ).toThrow(/only inserts/);
  });
});

describe.each(dialects())('deferred inserts on %s', (dialect) => {
  let database: Database;
  const config = testDatabaseConfig(dialect);
  beforeAll(async () => {
    database = openDatabase(config, 'NORMAL');
    await migrate(database, config.dialect === 'postgres' ? config.schema : undefined);
  });
  afterAll(async () => {
    if (config.dialect === 'postgres') await dropSchemaNamed(database.db, config.schema);
    await database.close();
  });

  it('are seen by the next statement and by tx.db of the same write, and commit with it', async () => {
    const ids = ['brd_deferred_a', 'brd_deferred_b', 'brd_deferred_c'] as const;
    await database.write(async (tx) => {
      await tx.defer(INSERT_BRAND, [ids[0], 'Deferred A', 'NL', 1]);
      await tx.defer(INSERT_BRAND, [ids[1], 'Deferred B', 'NL', 1]);
      expect(await tx.all(BRAND_NAMES, ids)).toEqual([{ name: 'Deferred A' }, { name: 'Deferred B' }]);
      await tx.defer(INSERT_BRAND, [ids[2], 'Deferred C', 'NL', 1]);
      const viaKysely = await tx.db.selectFrom('brands').select('name').where('id', '=', ids[2]).execute();
      expect(viaKysely).toEqual([{ name: 'Deferred C' }]);
    });
    expect(await database.all(BRAND_NAMES, ids)).toHaveLength(3);
  });

  it('that are still waiting at the end of the write are committed', async () => {
    await database.write(async (tx) => {
      await tx.defer(INSERT_BRAND, ['brd_deferred_last', 'Deferred last', 'NL', 1]);
    });
    expect(await database.all(BRAND_NAMES, ['brd_deferred_last', '', ''])).toEqual([
      { name: 'Deferred last' },
    ]);
  });

  it('fail their write when one fails, and nothing of that write is kept', async () => {
    const existing = await createBrand(database, { name: 'Taken', country: 'NL' });
    const write = database.write(async (tx) => {
      await tx.run(INSERT_BRAND, ['brd_deferred_before', 'Before', 'NL', 1]);
      await tx.defer(INSERT_BRAND, ['brd_deferred_fresh', 'Fresh', 'NL', 1]);
      await tx.defer(INSERT_BRAND, [existing.id, 'Duplicate', 'NL', 1]);
    });
    await expect(write).rejects.toThrow(/unique|duplicate/i);
    expect(
      await database.all(BRAND_NAMES, ['brd_deferred_before', 'brd_deferred_fresh', existing.id]),
    ).toEqual([{ name: 'Taken' }]);
  });
});

describe.runIf(dialects().includes('postgres'))('a create on PostgreSQL', () => {
  it("takes five statements for a new customer's lead: begin, brand with locks, customer, inserts, commit", async () => {
    recordStatements();
    const ctx = await createTestContext('postgres');
    try {
      const post = (fields: Record<string, unknown>) =>
        ctx.app.inject({
          method: 'POST',
          url: '/v1/leads',
          headers: { 'x-api-key': ctx.keys['leads:write'] },
          payload: validLead(fields),
        });
      // Warm: the key is read and cached on first use.
      expect((await post({ email: 'warm@example.com', phone: null })).statusCode).toBe(201);
      let response: Awaited<ReturnType<typeof post>> | undefined;
      const sent = await statementsSentBy(async () => {
        response = await post({ email: 'five@example.com', phone: '+31612345099' });
      });
      expect(response?.statusCode).toBe(201);
      const create = sent.filter((text) => !/api_keys/.test(text));
      expect(create).toHaveLength(5);
      expect(create[0]).toBe('begin');
      expect(create[1]).toMatch(/pg_advisory_xact_lock.*from brands/s);
      expect(create[2]).toMatch(/^with found as .*insert into customers/s);
      expect(create[3]).toMatch(/^with d0 as \(insert into/);
      for (const table of ['addresses', 'leads', 'lead_status_history', 'events']) {
        expect(create[3]).toContain(`insert into ${table} `);
      }
      expect(create[4]).toBe('commit');
      // And what they wrote is all there.
      const lead = await ctx.app.inject({
        method: 'GET',
        url: `/v1/leads/${response!.json().id}`,
        headers: { 'x-api-key': ctx.keys['leads:read'] },
      });
      expect(lead.json()).toMatchObject({ customer: { email: 'five@example.com', phone: '+31612345099' } });
    } finally {
      await ctx.close();
    }
  });
});
