// SQLite's checkpoints on a thread of their own beside the write thread (src/platform/db/checkpoint-thread.ts,
// issue 33): the WAL's pages reach the database file without the writing connection checkpointing, a reader's
// snapshot is waited for, and nothing written is lost.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { CheckpointThread, WRITER_AUTOCHECKPOINT } from '../../src/platform/db/checkpoint-thread.js';
import { openSqliteConnection } from '../../src/platform/db/sqlite-connection.js';
import { useTestContext } from '../test-context.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-checkpoints-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const FAST = { busyMs: 5, idleMs: 20 };

/** Waits (up to 10 s) until `check` holds of the thread's stats, and returns them. */
async function until(
  thread: CheckpointThread,
  check: (s: Awaited<ReturnType<CheckpointThread['stats']>>) => boolean,
) {
  for (let waited = 0; ; waited += 20) {
    const stats = await thread.stats();
    if (check(stats)) return stats;
    if (waited > 10_000) throw new Error(`the checkpoint thread never got there: ${JSON.stringify(stats)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The WAL's frames as a PASSIVE checkpoint reports them, and how many of them are in the database file. */
const walOf = (db: SQLite.Database) =>
  (db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[])[0]!;

describe('the checkpoint thread', () => {
  it("copies the WAL into the database file while the writer's own checkpoint never runs", async () => {
    const file = path.join(dir, 'copies.sqlite');
    // The writer as the write thread would be, without a checkpoint of its own at all.
    const writer = openSqliteConnection(file, 'FULL', 0);
    writer.exec('create table t (id integer primary key, body text not null)');
    const insert = writer.prepare('insert into t (body) values (?)');
    writer.transaction(() => {
      for (let i = 0; i < 2000; i++) insert.run(`row ${i} ${'x'.repeat(200)}`);
    })();
    const sizeBefore = fs.statSync(file).size;
    const thread = new CheckpointThread(file, 'FULL', FAST);
    try {
      const stats = await until(thread, (s) => s.pages > 0);
      expect(stats.runs).toBeGreaterThan(0);
      // The pages are in the database file now: it grew, and a reader without the WAL would find the rows.
      await until(thread, () => fs.statSync(file).size > sizeBefore + 2000 * 200);
      // Every frame is copied: the writer's next transaction may start the WAL again from the beginning.
      const wal = walOf(writer);
      expect(wal.checkpointed).toBe(wal.log);
      // Writes go on beside it, and are copied too.
      writer.transaction(() => {
        for (let i = 0; i < 500; i++) insert.run(`later ${i}`);
      })();
      const copied = stats.pages;
      await until(thread, (s) => s.pages > copied);
      expect((writer.prepare('select count(*) as n from t').get() as { n: number }).n).toBe(2500);
    } finally {
      await thread.close();
      writer.close();
    }
    const reopened = new SQLite(file, { readonly: true });
    expect((reopened.prepare('select count(*) as n from t').get() as { n: number }).n).toBe(2500);
    reopened.close();
  });

  it("waits for a reader's snapshot, and copies the rest once the reader is done", async () => {
    const file = path.join(dir, 'reader.sqlite');
    const writer = openSqliteConnection(file, 'FULL', 0);
    writer.exec('create table t (id integer primary key, body text not null)');
    const insert = writer.prepare('insert into t (body) values (?)');
    insert.run('first');
    const thread = new CheckpointThread(file, 'FULL', FAST);
    const reader = new SQLite(file, { readonly: true });
    try {
      await until(thread, () => {
        const wal = walOf(writer);
        return wal.checkpointed === wal.log;
      });
      // The reader's snapshot: what was there before the writes below.
      reader.exec('begin');
      expect((reader.prepare('select count(*) as n from t').get() as { n: number }).n).toBe(1);
      writer.transaction(() => {
        for (let i = 0; i < 300; i++) insert.run(`row ${i} ${'y'.repeat(300)}`);
      })();
      const held = (await thread.stats()).held;
      await until(thread, (s) => s.held > held + 2);
      // Held back: the frames after the reader's snapshot are not in the database file yet, and the reader still
      // sees its own snapshot.
      const heldWal = walOf(writer);
      expect(heldWal.checkpointed).toBeLessThan(heldWal.log);
      expect((reader.prepare('select count(*) as n from t').get() as { n: number }).n).toBe(1);
      reader.exec('commit');
      await until(thread, () => {
        const wal = walOf(writer);
        return wal.checkpointed === wal.log;
      });
    } finally {
      reader.close();
      await thread.close();
      writer.close();
    }
  });

  it('stops when closed, and answers its last stats after', async () => {
    const file = path.join(dir, 'close.sqlite');
    const writer = openSqliteConnection(file, 'FULL', 0);
    writer.exec('create table t (id integer primary key)');
    const thread = new CheckpointThread(file, 'FULL', FAST);
    await until(thread, (s) => s.runs > 0);
    const last = await thread.close();
    expect(last.runs).toBeGreaterThan(0);
    expect(await thread.stats()).toEqual(last);
    expect(await thread.close()).toEqual(last);
    writer.close();
  });

  it('answers at once, stats and close alike, once the thread is gone', async () => {
    // A file in no directory: the thread's connection cannot open, and the thread ends with an error.
    const thread = new CheckpointThread(path.join(dir, 'missing', 'gone.sqlite'), 'FULL', FAST);
    const stats = await thread.stats();
    expect(stats.errors).toBeGreaterThan(0);
    expect(await thread.stats()).toEqual(stats);
    expect(await thread.close()).toEqual(stats);
    expect(await thread.stats()).toEqual(stats);
  });
});

/** The app's database has its checkpoint thread, its writing connection only the WAL's bound, and loses nothing. */
async function checkpointsBeside(ctx: ReturnType<typeof useTestContext>, file: string) {
  const database = ctx.app.deps.database;
  const checkpoints = database.checkpoints;
  if (!checkpoints) throw new Error('no checkpoint thread beside the writes');
  const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(database.db);
  expect(rows[0]?.wal_autocheckpoint).toBe(WRITER_AUTOCHECKPOINT);
  const before = (await checkpoints.stats()).pages;
  const created = await Promise.all(
    Array.from({ length: 30 }, (_, n) => ctx.createLead({ title: `Punt ${n}` })),
  );
  await until(checkpoints, (s) => s.pages > before);
  // Every lead is there, read from the database as another process would open it.
  const other = new SQLite(file, { readonly: true });
  try {
    const ids = new Set((other.prepare('select id from leads').all() as { id: string }[]).map((r) => r.id));
    for (const lead of created) expect(ids.has(String(lead.id))).toBe(true);
  } finally {
    other.close();
  }
}

describe('checkpoints beside the write thread (the app, SQLite with a database file)', () => {
  const file = path.join(dir, 'app.sqlite');
  const ctx = useTestContext('sqlite', { database: { dialect: 'sqlite', file } });

  it("runs with the write thread, whose connections keep only the WAL's bound", async () => {
    expect(ctx.app.deps.database.writeThread).toBeDefined();
    await checkpointsBeside(ctx, file);
  });
});

describe('checkpoints beside writes on the event loop (the app on one core: SQLITE_WRITE_THREAD=auto or off)', () => {
  const file = path.join(dir, 'app-event-loop.sqlite');
  const ctx = useTestContext('sqlite', { database: { dialect: 'sqlite', file, writeThread: false } });

  it("runs there too: a COMMIT on the event loop checkpoints only at the WAL's bound", async () => {
    expect(ctx.app.deps.database.writeThread).toBeUndefined();
    await checkpointsBeside(ctx, file);
  });
});
