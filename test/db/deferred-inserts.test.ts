// Deferred inserts (Tx.defer): on PostgreSQL they wait and reach the server as one statement before the
// transaction's next statement or its commit; on SQLite they run at once. Either way a write sees its own deferred
// rows, commits them with everything else, and a deferred insert that fails fails its whole write.
import { describe, expect, it } from 'vitest';
import { createBrand } from '../../src/accounts/brands.js';
import { combinedInserts, statement, statementPer } from '../../src/platform/db/sql.js';
import { dialects } from '../helpers.js';
import { migratedDatabase } from '../migrated-database.js';

const INSERT_BRAND = statement(
  'insert into brands (id, name, default_country, created_at) values (?, ?, ?, ?)',
);
const BRAND_NAMES = statement('select name from brands where id in (?, ?, ?) order by name');

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

  it("takes PostgreSQL's own text of a statement whose texts differ (statementPer)", () => {
    const { s } = combinedInserts([
      {
        s: statementPer({
          sqlite: 'insert into a (x, k) values (?, ?)',
          postgres: 'insert into a (x) values (?)',
        }),
        params: [1],
      },
      { s: statement('insert into b (y) values (?)'), params: [2] },
    ]);
    expect(s.postgres).toBe('with d0 as (insert into a (x) values ($1)) insert into b (y) values ($2)');
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
  const database = migratedDatabase(dialect);

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
    const existing = await createBrand(database, { language: 'en', name: 'Taken', country: 'NL' });
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
