// Row locks and insert-or-get, spelled once for both databases (src/platform/db/portable.ts): the SQL each database
// gets, and on PostgreSQL what the locks do to two writes at once (SQLite runs one write at a time).
import { describe, expect, it } from 'vitest';
import {
  forUpdate,
  forUpdateSkipLocked,
  insertOrGet,
  lockingStatement,
  lockRow,
} from '../../src/platform/db/portable.js';
import { dialects } from '../helpers.js';
import { migratedDatabase } from '../migrated-database.js';

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(dialects())('row locks and insert-or-get on %s', (dialect) => {
  const database = migratedDatabase(dialect);
  let n = 0;
  const brand = async (name = 'Brand') => {
    const id = `brd_portable_${dialect}_${++n}`;
    await database.write((tx) =>
      tx.db.insertInto('brands').values({ id, name, default_country: 'NL', created_at: 1 }).execute(),
    );
    return id;
  };
  const nameOf = async (id: string) =>
    (await database.db.selectFrom('brands').select('name').where('id', '=', id).executeTakeFirst())?.name;

  it('forUpdate and forUpdateSkipLocked add the locking clause on PostgreSQL only', async () => {
    const id = await brand();
    const query = database.db.selectFrom('brands').select('name').where('id', '=', id);
    const locked = forUpdate(database, query).compile().sql;
    const skipping = forUpdateSkipLocked(database, query).compile().sql;
    if (dialect === 'postgres') {
      expect(locked).toMatch(/ for update$/);
      expect(skipping).toMatch(/ for update skip locked$/);
    } else {
      expect(locked).toBe(query.compile().sql);
      expect(skipping).toBe(query.compile().sql);
    }
    const rows = await database.write(async (tx) => ({
      locked: await forUpdate(tx, tx.db.selectFrom('brands').select('name').where('id', '=', id)).execute(),
      skipping: await forUpdateSkipLocked(
        tx,
        tx.db.selectFrom('brands').select('name').where('id', '=', id),
      ).execute(),
    }));
    expect(rows).toEqual({ locked: [{ name: 'Brand' }], skipping: [{ name: 'Brand' }] });
  });

  it('lockRow says whether the row exists', async () => {
    const id = await brand();
    expect(
      await database.write(async (tx) => [
        await lockRow(tx, 'brands', id),
        await lockRow(tx, 'brands', 'brd_none'),
      ]),
    ).toEqual([true, false]);
  });

  it('lockingStatement: for update on PostgreSQL, the text as it is on SQLite', async () => {
    const s = lockingStatement('select name from brands where id = ?');
    const skipping = lockingStatement('select name from brands where id = ?', { skipLocked: true });
    expect(s.sqlite).toBe('select name from brands where id = ?');
    expect(s.postgres).toBe('select name from brands where id = $1 for update');
    expect(skipping.postgres).toBe('select name from brands where id = $1 for update skip locked');
    expect(lockingStatement('select 1', { planPerCall: true }).planPerCall).toBe(true);
    const id = await brand('Stated');
    expect(await database.write((tx) => tx.all(s, [id]))).toEqual([{ name: 'Stated' }]);
  });

  it('insertOrGet inserts a new key and returns the row that holds a taken one', async () => {
    const id = `brd_portable_${dialect}_insert`;
    const values = { id, name: 'First', default_country: 'NL', created_at: 1 };
    const first = await database.write((tx) => insertOrGet(tx, 'brands', values, ['id'], ['id', 'name']));
    expect(first).toEqual({ inserted: true, row: { id, name: 'First' } });
    const second = await database.write((tx) =>
      insertOrGet(tx, 'brands', { ...values, name: 'Second' }, ['id'], ['name'], { lock: true }),
    );
    expect(second).toEqual({ inserted: false, row: { name: 'First' } });
    expect(await nameOf(id)).toBe('First');
  });

  it.runIf(dialect === 'postgres')(
    'a row lockRow holds makes a second forUpdate wait for the commit, and see what it wrote',
    async () => {
      const id = await brand('Before');
      const holding = signal();
      const release = signal();
      const first = database.write(async (tx) => {
        await lockRow(tx, 'brands', id);
        holding.resolve();
        await release.promise;
        await tx.db.updateTable('brands').set({ name: 'After' }).where('id', '=', id).execute();
      });
      await holding.promise;
      const events: string[] = [];
      const second = database.write(async (tx) => {
        const [row] = await forUpdate(
          tx,
          tx.db.selectFrom('brands').select('name').where('id', '=', id),
        ).execute();
        events.push(`second read ${row?.name}`);
      });
      await sleep(200);
      events.push('first commits');
      release.resolve();
      await Promise.all([first, second]);
      expect(events).toEqual(['first commits', 'second read After']);
    },
  );

  it.runIf(dialect === 'postgres')(
    'forUpdateSkipLocked and a skip-locked statement leave out a row another write holds',
    async () => {
      const held = await brand('Held');
      const free = await brand('Free');
      const holding = signal();
      const release = signal();
      const first = database.write(async (tx) => {
        await lockRow(tx, 'brands', held);
        holding.resolve();
        await release.promise;
      });
      await holding.promise;
      try {
        const seen = await database.write(async (tx) => ({
          built: await forUpdateSkipLocked(
            tx,
            tx.db.selectFrom('brands').select('id').where('id', 'in', [held, free]).orderBy('id'),
          ).execute(),
          stated: await tx.all(
            lockingStatement('select id from brands where id in (?, ?) order by id', { skipLocked: true }),
            [held, free],
          ),
        }));
        expect(seen).toEqual({ built: [{ id: free }], stated: [{ id: free }] });
      } finally {
        release.resolve();
        await first;
      }
    },
  );

  it.runIf(dialect === 'postgres')(
    'of two writes inserting one key at once, exactly one inserts',
    async () => {
      const id = `brd_portable_race_${n++}`;
      const results = await Promise.all(
        ['A', 'B'].map((name) =>
          database.write((tx) =>
            insertOrGet(tx, 'brands', { id, name, default_country: 'NL', created_at: 1 }, ['id'], ['name']),
          ),
        ),
      );
      expect(results.map((r) => r?.inserted).sort()).toEqual([false, true]);
      const winner = results.find((r) => r?.inserted)?.row.name;
      expect(results.map((r) => r?.row.name)).toEqual([winner, winner]);
    },
  );
});
