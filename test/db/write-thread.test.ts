// SQLite's writes on a thread of their own when the database is a file (src/platform/db/write-thread.ts, issue 33):
// creates run whole on the thread, every other write sends its statements there, and a write's promise resolves
// only once its group has committed and (at FULL) its WAL frames are synced. The event loop's own connection reads,
// and sees only committed data.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createLead } from '../../src/leads/create.js';
import { statement } from '../../src/platform/db/sql.js';
import type { Database, WriteOptions } from '../../src/platform/db/store.js';
import { NotFoundError } from '../../src/shared/errors.js';
import { validLead } from '../helpers.js';
import { useTestContext } from '../test-context.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-write-thread-'));
const file = path.join(dir, 'lead-intake.sqlite');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const countLeads = statement('select count(*) as n from leads where brand_id = ?');

/** The files SQLite has open in its temporary directory (named etilqs_…): a spilled statement journal is one. */
const temporaryFiles = () =>
  fs
    .readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    })
    .filter((target) => target.includes('etilqs_'));

/**
 * A write whose savepoint changes ~100 pages that were there when it began: ~400 KB of statement journal, past
 * the 64 KiB SQLite keeps in memory unless the connection's temp_store is MEMORY (write-batch.ts). Answers which
 * temporary files the process had open while the journal was at its largest.
 */
async function journalHeavyWrite(database: Database, options?: WriteOptions): Promise<string[]> {
  return database.write(async (tx) => {
    const db = tx.db;
    await sql`create table journal_probe (n integer primary key, body blob)`.execute(db);
    await sql`with recursive s(n) as (select 1 union all select n + 1 from s where n < 200)
      insert into journal_probe (n, body) select n, randomblob(2000) from s`.execute(db);
    await sql`savepoint journal_probe`.execute(db);
    await sql`update journal_probe set body = randomblob(2000)`.execute(db);
    const open = temporaryFiles();
    await sql`release journal_probe`.execute(db);
    await sql`drop table journal_probe`.execute(db);
    return open;
  }, options);
}

describe('the write thread (SQLite, a database file)', () => {
  // FULL, the default outside tests: its writes are answered once the WAL sync thread has synced them.
  const ctx = useTestContext('sqlite', { database: { dialect: 'sqlite', file }, sqliteSynchronous: 'FULL' });
  const database = () => ctx.app.deps.database;
  const thread = () => {
    const t = database().writeThread;
    if (!t) throw new Error('no write thread');
    return t;
  };

  it('runs a create whole on the thread; the 201 comes once the lead is on disk', async () => {
    const before = { ...thread().sent };
    const lead = await ctx.createLead({ title: 'Kraan lekt' });
    expect(thread().sent.procedures).toBe(before.procedures + 1);
    // Another connection, as another process would open it, finds the lead committed.
    const other = new SQLite(file, { readonly: true });
    try {
      const row = other.prepare('select title from leads where id = ?').get(lead.id) as { title: string };
      expect(row.title).toBe('Kraan lekt');
    } finally {
      other.close();
    }
    const read = await ctx.api.get(`/v1/leads/${lead.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json().title).toBe('Kraan lekt');
  });

  it('takes creates that arrive together as one group, each answered with its own lead', async () => {
    const bodies = Array.from({ length: 40 }, (_, n) => validLead({ title: `Samen ${n}` }));
    const responses = await Promise.all(bodies.map((body) => ctx.api.post('/v1/leads', body)));
    expect(responses.map((r) => r.statusCode)).toEqual(bodies.map(() => 201));
    const titles = responses.map((r) => r.json().title);
    expect(titles).toEqual(bodies.map((b) => b.title));
    expect(new Set(responses.map((r) => r.json().id)).size).toBe(40);
    const list = await ctx.api.get('/v1/leads?limit=100');
    const listed = new Set(list.json().data.map((l: { id: string }) => l.id));
    for (const r of responses) expect(listed.has(r.json().id)).toBe(true);
  });

  it('finds creates in a search made right after them, their documents written first', async () => {
    const bodies = Array.from({ length: 12 }, (_, n) => validLead({ title: `Kwelwater ${n}` }));
    const responses = await Promise.all(bodies.map((body) => ctx.api.post('/v1/leads', body)));
    expect(responses.map((r) => r.statusCode)).toEqual(bodies.map(() => 201));
    const search = await ctx.api.get('/v1/leads?q=kwelwater&limit=100');
    expect(search.statusCode).toBe(200);
    expect(
      search
        .json()
        .data.map((l: { id: string }) => l.id)
        .sort(),
    ).toEqual(responses.map((r) => r.json().id).sort());
    // The search had them written: nothing of them waits any more.
    const other = new SQLite(file, { readonly: true });
    try {
      const waiting = other
        .prepare(
          `select count(*) from lead_search_pending p join lead_search_rows r on r.id = p.id
             join leads l on l.id = r.lead_id where l.title like 'Kwelwater %'`,
        )
        .pluck()
        .get();
      expect(waiting).toBe(0);
    } finally {
      other.close();
    }
  });

  it('counts a create made on the thread in the metrics, as one made here', async () => {
    const count = async () => {
      const text = (await ctx.app.inject({ method: 'GET', url: '/metrics' })).body;
      const line = text
        .split('\n')
        .find((l) => l.startsWith('lead_intake_leads_created_total{') && l.includes('source="website"'));
      return Number(line?.split(' ').at(-1) ?? 0);
    };
    const before = await count();
    await ctx.createLead();
    await ctx.createLead();
    expect(await count()).toBe(before + 2);
  });

  it('runs other writes from here, statement by statement, in the same groups', async () => {
    const lead = await ctx.createLead();
    const before = thread().sent.remote;
    await ctx.setStatus(String(lead.id), 'quoted');
    const body = validLead({ title: 'Eenmaal' });
    const idempotent = await ctx.api.post('/v1/leads', body, { idempotencyKey: 'write-thread-once' });
    expect(idempotent.statusCode).toBe(201);
    const again = await ctx.api.post('/v1/leads', body, {
      idempotencyKey: 'write-thread-once',
    });
    expect(again.json().id).toBe(idempotent.json().id);
    expect(thread().sent.remote).toBeGreaterThan(before);
    const read = (await ctx.api.get(`/v1/leads/${lead.id}`)).json();
    expect(read.status).toBe('quoted');
    expect(read.statusHistory.map((h: { status: string }) => h.status)).toEqual(['request', 'quoted']);
  });

  it('raises a failed create as its own error class, and stores nothing of it', async () => {
    const before = (await database().all<{ n: number }>(countLeads, [ctx.brandId]))[0]!.n;
    const failing = createLead(
      database(),
      { brandId: 'brd_00000000000000000000000000', source: 'api', keyId: null, keyName: null },
      { ...validLead(), priority: 'medium' } as never,
    );
    // The creates beside it in the same group are kept.
    const kept = Promise.all([ctx.createLead(), ctx.createLead()]);
    await expect(failing).rejects.toBeInstanceOf(NotFoundError);
    await kept;
    const after = (await database().all<{ n: number }>(countLeads, [ctx.brandId]))[0]!.n;
    expect(after).toBe(before + 2);
  });

  it("keeps SQLite's error code on a statement refused on the thread", async () => {
    const lead = await ctx.createLead();
    const duplicate = database().write((tx) =>
      tx.run(statement('insert into lead_status_history (lead_id, seq, status, at) values (?, 1, ?, ?)'), [
        lead.id,
        'request',
        Date.now(),
      ]),
    );
    const error = await duplicate.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SQLite.SqliteError);
    expect((error as { code: string }).code).toMatch(/^SQLITE_CONSTRAINT/);
  });

  it('never shows a write to readers before its group has committed', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const marker = `ongezien-${Date.now()}`;
    const inserted = statement('update leads set title = ? where id = ?');
    const lead = await ctx.createLead({ title: 'Zichtbaar' });
    const writing = database().write(async (tx) => {
      await tx.run(inserted, [marker, lead.id]);
      await gate;
    });
    // The write has run its statement on the thread and waits, its transaction open.
    for (let n = 0; n < 50 && thread().sent.remote === 0; n++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50));
    const during = await ctx.api.get(`/v1/leads/${lead.id}`);
    expect(during.json().title).toBe('Zichtbaar');
    release();
    await writing;
    expect((await ctx.api.get(`/v1/leads/${lead.id}`)).json().title).toBe(marker);
  });

  it('lets a write through the outer handle wait on the event loop for a group that needs the event loop', async () => {
    const held = await ctx.createLead({ title: 'Vastgehouden' });
    const other = await ctx.createLead({ title: 'Daarnaast' });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // A write whose callback runs here holds the thread's group, and so the write lock, until the gate opens.
    const writing = database().write(async (tx) => {
      await tx.run(statement('update leads set title = ? where id = ?'), ['Vrijgegeven', held.id]);
      await gate;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Only the event loop can open the gate: a write through the outer handle that waited in SQLite's busy
    // handler would hold it shut, and fail with "database is locked" after the busy timeout.
    setTimeout(release, 100);
    await database()
      .db.updateTable('leads')
      .set({ title: 'Ook gewijzigd' })
      .where('id', '=', String(other.id))
      .execute();
    await writing;
    expect((await ctx.api.get(`/v1/leads/${held.id}`)).json().title).toBe('Vrijgegeven');
    expect((await ctx.api.get(`/v1/leads/${other.id}`)).json().title).toBe('Ook gewijzigd');
  });

  it("keeps a group's savepoint journal in memory, in files for a group with a large write", async () => {
    const before = thread().sent.remote;
    expect(await journalHeavyWrite(database())).toEqual([]);
    expect(thread().sent.remote).toBeGreaterThan(before);
    expect(await journalHeavyWrite(database(), { large: true })).toEqual([
      expect.stringContaining('etilqs_'),
    ]);
    // And back in memory for the next group.
    expect(await journalHeavyWrite(database())).toEqual([]);
  });

  it('answers a write only once its group is on disk: committed and readable before, answered after the sync', async () => {
    const lead = await ctx.createLead({ title: 'Nog niet gesynct' });
    const resume = thread().pauseSyncs();
    let answered = false;
    const writing = database()
      .write((tx) => tx.run(statement('update leads set title = ? where id = ?'), ['Gesynct', lead.id]))
      .then(() => {
        answered = true;
      });
    try {
      // Another connection sees the group committed (the writer's COMMIT has returned)...
      const other = new SQLite(file, { readonly: true });
      const title = other.prepare('select title from leads where id = ?').pluck();
      try {
        for (let n = 0; n < 200 && title.get(lead.id) !== 'Gesynct'; n++)
          await new Promise((r) => setTimeout(r, 10));
        expect(title.get(lead.id)).toBe('Gesynct');
      } finally {
        other.close();
      }
      // ...and its write is not answered while the WAL is not synced.
      await new Promise((r) => setTimeout(r, 100));
      expect(answered).toBe(false);
    } finally {
      resume();
    }
    await writing;
    expect(answered).toBe(true);
    // Later groups are answered as before.
    await ctx.createLead({ title: 'Daarna' });
  });

  it('syncs a group of creates once, and answers each create with its own lead', async () => {
    const resume = thread().pauseSyncs();
    const creating = Promise.all(
      Array.from({ length: 8 }, (_, n) => ctx.api.post('/v1/leads', validLead({ title: `Samen ${n}` }))),
    );
    await new Promise((r) => setTimeout(r, 100));
    resume();
    const responses = await creating;
    expect(responses.map((r) => r.statusCode)).toEqual(Array(8).fill(201));
    expect(responses.map((r) => r.json().title)).toEqual(Array.from({ length: 8 }, (_, n) => `Samen ${n}`));
  });

  it('empties the WAL between groups when asked (an erasure)', async () => {
    await ctx.createLead();
    expect(await database().forgetOverwritten()).toBe(true);
    expect(fs.statSync(`${file}-wal`).size).toBe(0);
    // And goes on writing afterwards.
    await ctx.createLead();
  });
});

describe('SQLITE_SYNCHRONOUS=NORMAL with the write thread (SQLite, a database file)', () => {
  const normalFile = path.join(dir, 'normal.sqlite');
  const ctx = useTestContext('sqlite', {
    database: { dialect: 'sqlite', file: normalFile },
    sqliteSynchronous: 'NORMAL',
  });

  it('answers once the COMMIT has returned, with no sync thread', async () => {
    const thread = ctx.app.deps.database.writeThread;
    expect(thread).toBeDefined();
    expect(() => thread?.pauseSyncs()).toThrow(/NORMAL/);
    const lead = await ctx.createLead({ title: 'Normaal' });
    expect((await ctx.api.get(`/v1/leads/${lead.id}`)).json().title).toBe('Normaal');
  });
});

describe('SQLITE_WRITE_THREAD=off (SQLite, a database file)', () => {
  const offFile = path.join(dir, 'off.sqlite');
  const ctx = useTestContext('sqlite', {
    database: { dialect: 'sqlite', file: offFile, writeThread: false },
  });

  it('writes on the event loop, with the same results', async () => {
    expect(ctx.app.deps.database.writeThread).toBeUndefined();
    const lead = await ctx.createLead({ title: 'Zonder draad' });
    expect((await ctx.api.get(`/v1/leads/${lead.id}`)).json().title).toBe('Zonder draad');
  });

  it("keeps a group's savepoint journal in memory here too, in files for a large write", async () => {
    expect(await journalHeavyWrite(ctx.app.deps.database)).toEqual([]);
    expect(await journalHeavyWrite(ctx.app.deps.database, { large: true })).toEqual([
      expect.stringContaining('etilqs_'),
    ]);
    expect(await journalHeavyWrite(ctx.app.deps.database)).toEqual([]);
  });
});
