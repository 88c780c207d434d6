// SQLite: new leads enter the search index together, at most SEARCH_INDEX_INTERVAL_MS after their commit and
// before any search of their brand (issue 33, migrations 2026120201, src/platform/db/search-index.ts). A search
// finds every lead committed before it began, never one that was not committed, and never one twice; a lead
// updated or deleted before its document is written is indexed as it is then, or not at all.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database, migrate, openSqlite, overKysely } from '../../src/platform/db/database.js';
import { brandSearch } from '../../src/platform/db/search.js';
import { indexPendingLeads } from '../../src/platform/db/search-index.js';
import { kyselyRunner, type Runner, statement } from '../../src/platform/db/sql.js';

const BRAND_A = 'brd_a';
const BRAND_B = 'brd_b';

const INSERT_CUSTOMER = statement(`insert into customers (id, brand_id, type, name, email, email_normalized,
  created_at, updated_at) values (?, ?, 'person', ?, ?, ?, 1, 1)`);
const INSERT_ADDRESS = statement(`insert into addresses (id, brand_id, customer_id, street, postal_code, city,
  country, match_key, created_at, updated_at) values (?, ?, ?, ?, '1015 CJ', 'Amsterdam', 'NL', ?, 1, 1)`);
const INSERT_LEAD =
  statement(`insert into leads (id, brand_id, customer_id, address_id, title, priority, status,
  stage, source, received_at, created_at, updated_at) values (?, ?, ?, ?, ?, 'medium', 'request', 'lead',
  'website', 1, 1, 1)`);
const RENAME_CUSTOMER = statement('update customers set name = ? where id = ?');
const RENAME_STREET = statement('update addresses set street = ? where id = ?');
const RETITLE = statement('update leads set title = ? where id = ?');
const DELETE_LEAD = statement('delete from leads where id = ?');
const PENDING = statement('select count(*) as n from lead_search_pending');
const FAILS = new Error('this write fails');
/**
 * The interval the database is opened with here: long enough that no group of a test but the first after it
 * writes documents unasked, however slow the machine (the service's is SEARCH_INDEX_INTERVAL_MS).
 */
const INTERVAL_MS = 1500;

/** A lead `id` of `brand` with a customer of that name, an address on that street, and that title. */
async function insertLead(
  r: Runner,
  brand: string,
  id: string,
  words: { name: string; street?: string; title?: string },
) {
  await r.run(INSERT_CUSTOMER, [`cus_${id}`, brand, words.name, `${id}@example.com`, `${id}@example.com`]);
  await r.run(INSERT_ADDRESS, [`adr_${id}`, brand, `cus_${id}`, words.street ?? 'Hoofdstraat', `k|${id}`]);
  await r.run(INSERT_LEAD, [`wrk_${id}`, brand, `cus_${id}`, `adr_${id}`, words.title ?? 'Lekkage']);
}

/** FTS5's count of documents ever inserted (its averages record, a varint at the start of lead_search_data 1). */
function documentsInserted(db: SQLite.Database): number {
  const block = db.prepare('select block from lead_search_data where id = 1').pluck().get() as
    | Buffer
    | undefined;
  if (!block) return 0;
  let value = 0;
  for (const byte of block) {
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) break;
  }
  return value;
}

describe('search index per commit (SQLite, a database file)', () => {
  let dir: string;
  let file: string;
  let database: Database;
  /** A second connection: it sees only what has been committed. */
  let observer: SQLite.Database;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-search-commit-'));
    file = path.join(dir, 'test.db');
    database = openSqlite(file, 'NORMAL', null, undefined, { searchIndexIntervalMs: INTERVAL_MS });
    await migrate(database);
    await sql`insert into brands (id, name, default_country, created_at)
      values (${BRAND_A}, 'A', 'NL', 1), (${BRAND_B}, 'B', 'NL', 1)`.execute(database.db);
    observer = new SQLite(file);
  });
  afterEach(async () => {
    observer.close();
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The brand's leads a search finds, by the service's own search (on a search thread), sorted. */
  async function search(brand: string, query: string): Promise<string[]> {
    const { parts } = await brandSearch(database, brand, query);
    let text = '';
    const values: unknown[] = [];
    for (const part of parts) {
      if (typeof part === 'string') text += part;
      else {
        text += '?';
        values.push(part.value);
      }
    }
    return (
      observer
        .prepare(text)
        .pluck()
        .all(...values) as string[]
    ).sort();
  }

  // (Inside a write the service's search cannot run: the outer handle is refused there.)
  const committedMatches = (term: string) =>
    observer.prepare('select rowid from lead_search where lead_search match ?').pluck().all(term) as number[];
  const pending = () => observer.prepare('select count(*) from lead_search_pending').pluck().get() as number;
  const segments = () => observer.prepare('select count(distinct segid) from lead_search_idx').pluck().get();
  const searchRows = () => observer.prepare('select count(*) from lead_search_rows').pluck().get();
  // FTS5's own check of its index (for a contentless table: that its structure is consistent).
  const integrityCheck = () =>
    observer.exec(`insert into lead_search (lead_search, rank) values ('integrity-check', 0)`);

  it('writes the pending documents of a group in one segment when a search asks, and it finds them all', async () => {
    const seenDuring: { pending: number; found: number[] }[] = [];
    const names = ['Anneke', 'Bartholomeus', 'Cornelis', 'Dirkje', 'Evertje', 'Fokeltje'];
    await Promise.all(
      names.map((name, n) =>
        database.write(async (tx) => {
          await insertLead(tx, BRAND_A, `a${n}`, { name: `${name} Zonnebloem` });
          // Still one transaction, and nothing indexed yet: each lead waits for the group's commit.
          const [row] = await tx.all<{ n: number }>(PENDING, []);
          seenDuring.push({ pending: row!.n, found: committedMatches('zonnebloem') });
        }),
      ),
    );
    expect(seenDuring).toEqual(names.map((_, n) => ({ pending: n + 1, found: [] })));
    // Committed, and waiting for the interval: the index's own tables do not have them yet (the group was the
    // first since the database opened, whose migration wrote the documents pending then).
    expect(pending()).toBe(names.length);
    expect(committedMatches('zonnebloem')).toEqual([]);
    // The search has them written first.
    expect(await search(BRAND_A, 'zonnebloem')).toEqual(names.map((_, n) => `wrk_a${n}`));
    expect(committedMatches('zonnebloem')).toHaveLength(names.length);
    expect(await search(BRAND_A, 'cornelis')).toEqual(['wrk_a2']);
    expect(pending()).toBe(0);
    expect(documentsInserted(observer)).toBe(names.length);
    // One FTS5 flush for the group: all six documents in one segment (a flush per savepoint made one each).
    expect(segments()).toBe(1);
    integrityCheck();
  });

  it('writes them within the interval when nothing searches and nothing else is written', async () => {
    await Promise.all(
      ['Wolter', 'Xandra', 'Ynske'].map((name, n) =>
        database.write((tx) => insertLead(tx, BRAND_A, `i${n}`, { name: `${name} Tussenpoos` })),
      ),
    );
    expect(pending()).toBe(3);
    const began = performance.now();
    while (pending() > 0 && performance.now() - began < 5000) await new Promise((r) => setTimeout(r, 10));
    expect(pending()).toBe(0);
    expect(committedMatches('tussenpoos')).toHaveLength(3);
    expect(segments()).toBe(1);
    // A write within the next interval waits for its end, not for the one after.
    await database.write((tx) => insertLead(tx, BRAND_A, 'i3', { name: 'Zeger Tussenpoos' }));
    const written = performance.now();
    expect(pending()).toBe(1);
    while (pending() > 0 && performance.now() - written < 5000) await new Promise((r) => setTimeout(r, 10));
    expect(pending()).toBe(0);
    expect(committedMatches('tussenpoos')).toHaveLength(4);
    integrityCheck();
  });

  it('leaves nothing pending when it closes', async () => {
    await database.write((tx) => insertLead(tx, BRAND_A, 'c1', { name: 'Bauke Sluiter' }));
    expect(pending()).toBe(1);
    await database.close();
    expect(pending()).toBe(0);
    expect(committedMatches('sluiter')).toHaveLength(1);
    database = openSqlite(file, 'NORMAL', null, undefined, { searchIndexIntervalMs: INTERVAL_MS });
  });

  it('keeps the brand ranges, and one brand never finds the leads of another', async () => {
    await Promise.all([
      database.write((tx) => insertLead(tx, BRAND_A, 'a1', { name: 'Gerritje Molenaar' })),
      database.write((tx) => insertLead(tx, BRAND_B, 'b1', { name: 'Hendrikje Molenaar' })),
      database.write((tx) => insertLead(tx, BRAND_A, 'a2', { name: 'Ida Molenaar' })),
    ]);
    expect(await search(BRAND_A, 'molenaar')).toEqual(['wrk_a1', 'wrk_a2']);
    expect(await search(BRAND_B, 'molenaar')).toEqual(['wrk_b1']);
    expect(await search(BRAND_B, 'gerritje')).toEqual([]);
    const rows = observer
      .prepare(`select r.lead_id, r.id - (b.search_key << 32) as n from lead_search_rows r
        join leads l on l.id = r.lead_id join brands b on b.id = l.brand_id order by r.lead_id`)
      .all();
    expect(rows).toEqual([
      { lead_id: 'wrk_a1', n: 0 },
      { lead_id: 'wrk_a2', n: 1 },
      { lead_id: 'wrk_b1', n: 0 },
    ]);
    // Written in rowid order, brand A's two then B's: one segment (B's rowid before A's second would flush).
    expect(segments()).toBe(1);
  });

  it('leaves nothing pending or indexed of a write that failed in its group', async () => {
    const results = await Promise.allSettled([
      database.write((tx) => insertLead(tx, BRAND_A, 'a1', { name: 'Jacobus Visser' })),
      database.write(async (tx) => {
        await insertLead(tx, BRAND_A, 'x1', { name: 'Klaasje Verloren' });
        throw FAILS;
      }),
      database.write((tx) => insertLead(tx, BRAND_A, 'a2', { name: 'Lambertus Visser' })),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await search(BRAND_A, 'visser')).toEqual(['wrk_a1', 'wrk_a2']);
    expect(await search(BRAND_A, 'verloren')).toEqual([]);
    expect(pending()).toBe(0);
    expect(searchRows()).toBe(2);
    expect(documentsInserted(observer)).toBe(2);
    integrityCheck();
  });

  it('indexes a lead changed in its own group once, as the commit leaves it', async () => {
    await Promise.all([
      database.write((tx) => insertLead(tx, BRAND_A, 'a1', { name: 'Maartje Oud', title: 'Kraan' })),
      database.write((tx) => insertLead(tx, BRAND_A, 'a2', { name: 'Nelis Oud', street: 'Oudestraat' })),
      database.write((tx) => insertLead(tx, BRAND_A, 'a3', { name: 'Otto Oud', title: 'Oudedak' })),
      // Later in the same group: the customer, the address and the lead itself change.
      database.write((tx) => tx.run(RENAME_CUSTOMER, ['Maartje Nieuwenhuis', 'cus_a1'])),
      database.write((tx) => tx.run(RENAME_STREET, ['Nieuwstraat', 'adr_a2'])),
      // Created and changed in one write.
      database.write(async (tx) => {
        await insertLead(tx, BRAND_A, 'a4', { name: 'Pieternella Oud' });
        await tx.run(RENAME_CUSTOMER, ['Pieternella Nieuwland', 'cus_a4']);
      }),
      database.write((tx) => tx.run(RETITLE, ['Nieuwdak', 'wrk_a3'])),
    ]);
    expect(await search(BRAND_A, 'nieuw')).toEqual(['wrk_a1', 'wrk_a2', 'wrk_a3', 'wrk_a4']);
    expect(await search(BRAND_A, 'maartje oud')).toEqual([]);
    expect(await search(BRAND_A, 'oudestraat')).toEqual([]);
    expect(await search(BRAND_A, 'oudedak')).toEqual([]);
    expect(await search(BRAND_A, 'pieternella oud')).toEqual([]);
    // Four documents, each written once: the update triggers left the pending leads to the flush.
    expect(documentsInserted(observer)).toBe(4);
    expect(pending()).toBe(0);
    integrityCheck();

    // Once indexed, a change is written by the update triggers in its own write, as before.
    await database.write((tx) => tx.run(RENAME_CUSTOMER, ['Maartje Zeeman', 'cus_a1']));
    await database.write((tx) => tx.run(RENAME_STREET, ['Zeestraat', 'adr_a2']));
    await database.write((tx) => tx.run(RETITLE, ['Zeedak', 'wrk_a3']));
    expect(await search(BRAND_A, 'zee')).toEqual(['wrk_a1', 'wrk_a2', 'wrk_a3']);
    expect(await search(BRAND_A, 'nieuwenhuis')).toEqual([]);
    expect(await search(BRAND_A, 'nieuwstraat')).toEqual([]);
    expect(await search(BRAND_A, 'nieuwdak')).toEqual([]);
    integrityCheck();
  });

  it('never indexes a lead deleted before its group commits', async () => {
    await Promise.all([
      database.write((tx) => insertLead(tx, BRAND_A, 'a1', { name: 'Quirina Weg' })),
      database.write((tx) => insertLead(tx, BRAND_A, 'a2', { name: 'Reinier Blijft' })),
      database.write((tx) => tx.run(DELETE_LEAD, ['wrk_a1'])),
      // Created and deleted in one write.
      database.write(async (tx) => {
        await insertLead(tx, BRAND_A, 'a3', { name: 'Sjoukje Weg' });
        await tx.run(DELETE_LEAD, ['wrk_a3']);
      }),
      // Takes the rowid the last one freed (the brand's highest + 1): its mark must have gone with that lead.
      database.write((tx) => insertLead(tx, BRAND_A, 'a4', { name: 'Tjitske Komt' })),
    ]);
    expect(await search(BRAND_A, 'weg')).toEqual([]);
    expect(await search(BRAND_A, 'blijft')).toEqual(['wrk_a2']);
    expect(await search(BRAND_A, 'komt')).toEqual(['wrk_a4']);
    expect(pending()).toBe(0);
    expect(searchRows()).toBe(2);
    expect(documentsInserted(observer)).toBe(2);
    // An indexed lead deleted later leaves the index as before.
    await database.write((tx) => tx.run(DELETE_LEAD, ['wrk_a2']));
    expect(await search(BRAND_A, 'blijft')).toEqual([]);
    expect(searchRows()).toBe(1);
    integrityCheck();
  });

  it('indexes leads inserted outside write() when a search, indexPendingLeads or the next open runs', async () => {
    // A seeding script's own SQL: the trigger numbers and marks the lead, nothing indexes it yet.
    await sql`insert into customers (id, brand_id, type, name, created_at, updated_at)
      values ('cus_s1', ${BRAND_A}, 'person', 'Teunis Zaaier', 1, 1)`.execute(database.db);
    await sql`insert into addresses (id, brand_id, customer_id, street, postal_code, city, country, match_key,
      created_at, updated_at) values ('adr_s1', ${BRAND_A}, 'cus_s1', 'Akker', '1015 CJ', 'Amsterdam', 'NL', 'k|s1', 1, 1)`.execute(
      database.db,
    );
    const seed = (
      id: string,
    ) => sql`insert into leads (id, brand_id, customer_id, address_id, title, priority,
      status, stage, source, received_at, created_at, updated_at)
      values (${id}, ${BRAND_A}, 'cus_s1', 'adr_s1', 'Zaaien', 'medium', 'request', 'lead', 'website', 1, 1, 1)`;
    await seed('wrk_s1').execute(database.db);
    expect(pending()).toBe(1);
    // What the seeders do: index in their own transaction.
    await database.db.transaction().execute(async (trx) => {
      expect(await indexPendingLeads(kyselyRunner(trx, 'sqlite'))).toBe(1);
    });
    expect(pending()).toBe(0);
    expect(await search(BRAND_A, 'zaaier')).toEqual(['wrk_s1']);

    // Left pending, a search has it written first.
    await seed('wrk_s2').execute(database.db);
    expect(pending()).toBe(1);
    expect(await search(BRAND_A, 'zaaier')).toEqual(['wrk_s1', 'wrk_s2']);
    expect(pending()).toBe(0);

    // Left pending by another process (closing the service writes what it left), it is indexed when the
    // database is opened and migrated again.
    await database.close();
    observer.exec(`insert into leads (id, brand_id, customer_id, address_id, title, priority, status, stage, source,
      received_at, created_at, updated_at) values ('wrk_s3', '${BRAND_A}', 'cus_s1', 'adr_s1', 'Zaaien', 'medium',
      'request', 'lead', 'website', 1, 1, 1)`);
    expect(pending()).toBe(1);
    database = openSqlite(file, 'NORMAL', null, undefined, { searchIndexIntervalMs: INTERVAL_MS });
    await migrate(database);
    expect(pending()).toBe(0);
    expect(await search(BRAND_A, 'zaaier')).toEqual(['wrk_s1', 'wrk_s2', 'wrk_s3']);
    expect(documentsInserted(observer)).toBe(3);
    integrityCheck();
  });

  it("indexes a write's leads before it commits on a Database over Kysely (overKysely)", async () => {
    const over = overKysely(database.db, 'sqlite');
    await over.write((tx) => insertLead(tx, BRAND_A, 'k1', { name: 'Ulbe Kysely' }));
    expect(pending()).toBe(0);
    expect(await search(BRAND_A, 'ulbe')).toEqual(['wrk_k1']);
  });
});
