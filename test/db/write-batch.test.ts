// Group commit on SQLite: concurrent writes share one transaction, each in its own savepoint, and none is
// acknowledged (its promise resolved) before the COMMIT that makes it durable.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database, openSqlite } from '../../src/platform/db/database.js';
import { statement } from '../../src/platform/db/sql.js';
import { MAX_BATCH } from '../../src/platform/db/write-batch.js';

const CREATE = 'create table items (id integer primary key, name text not null)';
const INSERT = statement('insert into items (name) values (?)');
const SAVEPOINT_FAILS = new Error('this write fails');

describe('SQLite group commit', () => {
  let dir: string;
  let database: Database;
  /** A second connection to the same file: it sees only what has been committed. */
  let observer: SQLite.Database;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-batch-'));
    database = openSqlite(path.join(dir, 'test.db'), 'FULL');
    observer = new SQLite(path.join(dir, 'test.db'));
  });
  afterEach(async () => {
    observer.close();
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const names = () =>
    (observer.prepare('select name from items order by id').all() as { name: string }[]).map((r) => r.name);

  it('commits writes that arrive together in one transaction, and resolves none before the commit', async () => {
    await sql.raw(CREATE).execute(database.db);
    const acknowledged: string[] = [];
    const seenByOthers: string[][] = [];
    const acknowledgedDuring: number[] = [];
    const writes = ['a', 'b', 'c', 'd'].map((name) =>
      database
        .write(async (r) => {
          await r.run(INSERT, [name]);
          // What another connection sees, and what has been acknowledged, while the batch is still open.
          seenByOthers.push(names());
          acknowledgedDuring.push(acknowledged.length);
          return name;
        })
        .then((value) => {
          acknowledged.push(value);
          return value;
        }),
    );
    expect(await Promise.all(writes)).toEqual(['a', 'b', 'c', 'd']);
    // One transaction: no write was visible outside it before the last one ran.
    expect(seenByOthers).toEqual([[], [], [], []]);
    expect(acknowledgedDuring).toEqual([0, 0, 0, 0]);
    expect(acknowledged).toEqual(['a', 'b', 'c', 'd']);
    expect(names()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('undoes a failing write alone and rejects it; the others in its batch commit', async () => {
    await sql.raw(CREATE).execute(database.db);
    const results = await Promise.allSettled([
      database.write((r) => r.run(INSERT, ['kept 1'])),
      database.write(async (r) => {
        await r.run(INSERT, ['undone']);
        throw SAVEPOINT_FAILS;
      }),
      database.write((r) => r.run(INSERT, ['kept 2'])),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBe(SAVEPOINT_FAILS);
    expect(names()).toEqual(['kept 1', 'kept 2']);
  });

  it('rejects every write of a batch whose COMMIT fails, and stores none of them', async () => {
    await sql.raw(CREATE).execute(database.db);
    await sql
      .raw('create table children (id integer primary key, item_id integer not null references items (id))')
      .execute(database.db);
    const results = await Promise.allSettled([
      database.write((r) => r.run(INSERT, ['first'])),
      database.write(async (r) => {
        // Foreign keys checked at COMMIT instead of per statement: this savepoint is released, the commit fails.
        await r.run(statement('pragma defer_foreign_keys = on'), []);
        await r.run(statement('insert into children (item_id) values (?)'), [999]);
      }),
      database.write((r) => r.run(INSERT, ['third'])),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(names()).toEqual([]);
    // The connection is usable again afterwards.
    await database.write((r) => r.run(INSERT, ['after']));
    expect(names()).toEqual(['after']);
  });

  it(`splits more than ${MAX_BATCH} concurrent writes over several commits, all of them stored`, async () => {
    await sql.raw(CREATE).execute(database.db);
    const visibleAtStart: number[] = [];
    const count = MAX_BATCH * 2 + 7;
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        database.write(async (r) => {
          visibleAtStart.push(names().length);
          await r.run(INSERT, [`item ${i}`]);
        }),
      ),
    );
    expect(names()).toHaveLength(count);
    // Three transactions: writes in later batches saw the earlier batches committed.
    expect(new Set(visibleAtStart)).toEqual(new Set([0, MAX_BATCH, MAX_BATCH * 2]));
  });

  it('waits for an open Kysely transaction on the same connection instead of writing inside it', async () => {
    await sql.raw(CREATE).execute(database.db);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const transaction = database.db.transaction().execute(async (trx) => {
      await sql`insert into items (name) values (${'in transaction'})`.execute(trx);
      await gate;
      throw new Error('roll this transaction back');
    });
    const write = database.write((r) => r.run(INSERT, ['batched']));
    await new Promise((resolve) => setTimeout(resolve, 30));
    // The batched write has not run: it would have committed the transaction's row with it.
    expect(names()).toEqual([]);
    release();
    await expect(transaction).rejects.toThrow('roll this transaction back');
    await write;
    expect(names()).toEqual(['batched']);
  });

  it('changes its version token on every commit, its own or another connection’s, and not on reads', async () => {
    await sql.raw(CREATE).execute(database.db);
    const v1 = database.version();
    expect(v1).toBeDefined();
    await database.all(statement('select * from items'), []);
    expect(database.version()).toBe(v1);
    await database.write((r) => r.run(INSERT, ['mine']));
    const v2 = database.version();
    expect(v2).not.toBe(v1);
    observer.prepare('insert into items (name) values (?)').run('theirs');
    expect(database.version()).not.toBe(v2);
  });
});
