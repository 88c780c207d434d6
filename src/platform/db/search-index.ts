// SQLite: the search documents of new leads, written together at most every SEARCH_INDEX_INTERVAL_MS, and before
// any search of a brand that has some waiting (issue 33; migration 2026120201).
//
// The insert trigger on leads only numbers a new lead in its brand's range of the FTS5 index and marks it pending
// (lead_search_pending, committed with the lead); its document is written here, for every pending lead at once,
// after the last savepoint of a group. FTS5 writes one index segment each time, and a segment's own pages (its
// leaves, its doclist index, the structure record) cost a group about as much as the documents in it. So the group
// commit (write-batch.ts) writes them in the first group that commits once the interval is up since it last did,
// or in a group of its own when no write comes (creates ×1.09 and ×1.33 in two quick pairs against writing them at
// every commit; bench/README.md, issue 33).
//
// No search sees the lag: a search first reads whether its brand has pending leads and, if so, has them written
// (a write that commits before the search reads; search.ts), so it finds every lead committed before it began,
// as when every commit wrote them. Only what reads the index's own tables directly (a test, a tool) sees a lead
// pending for up to the interval. A crash leaves the marks, which the next open indexes.
//
// THE RULE: whatever inserts leads must leave them pending, and something must write them: writes through
// database.write() do (the group commit, within the interval; overKysely's write, before its commit); migrate()
// calls it after the migrations; anything else that inserts leads with its own SQL (bench/seed.ts,
// test/bulk-leads.ts) calls indexPendingLeads itself. PostgreSQL indexes in its own trigger: a no-op there.
import type SQLite from 'better-sqlite3';
import { type Runner, statement } from './sql.js';

// The documents come from the migration's view (the same document the update triggers write), in rowid order: FTS5
// also writes out a segment whenever a rowid is not above the last one it was given in the transaction, and a group's
// leads of several brands arrive in no order across their brands' ranges.
const INDEX_TEXT =
  'insert into lead_search (rowid, body) select id, body from lead_search_pending_documents order by id';
const CLEAR_TEXT = 'delete from lead_search_pending';
const ANY_TEXT = 'select 1 from lead_search_pending limit 1';
// Before migration 2026120201 (or on a database that is not lead-intake's: the group commit's own tests) there is
// nothing to index.
const TABLE_TEXT = "select 1 from sqlite_master where type = 'table' and name = 'lead_search_pending'";

/**
 * The longest a committed lead waits for its search document (a search never waits for it: it has the documents
 * written first). 100 ms at 4,000 creates/s is 400 documents a segment.
 */
export const SEARCH_INDEX_INTERVAL_MS = 100;

const INDEX = statement(INDEX_TEXT);
const CLEAR = statement(CLEAR_TEXT);
const ANY = statement(ANY_TEXT);
const TABLE = statement(TABLE_TEXT);

/**
 * Writes the documents of the pending leads into the search index and clears their marks, in the transaction `r`
 * runs in (a Tx, or a Kysely transaction's runner). Returns how many it indexed. No-op on PostgreSQL.
 */
export async function indexPendingLeads(r: Runner): Promise<number> {
  if (r.dialect !== 'sqlite') return 0;
  if (!(await r.all(TABLE, [])).length || !(await r.all(ANY, [])).length) return 0;
  const indexed = await r.run(INDEX, []);
  await r.run(CLEAR, []);
  return indexed;
}

/**
 * The same on a better-sqlite3 handle, synchronous, for the group commit: its statements are prepared once the
 * table exists (the batcher is made before the migrations run). With nothing pending it is one read of an empty
 * table (about a microsecond).
 */
export function pendingLeadIndexer(handle: SQLite.Database): () => number {
  let statements: { any: SQLite.Statement; index: SQLite.Statement; clear: SQLite.Statement } | undefined;
  const table = handle.prepare(TABLE_TEXT).pluck();
  return () => {
    if (!statements) {
      if (table.get() === undefined) return 0;
      statements = {
        any: handle.prepare(ANY_TEXT).pluck(),
        index: handle.prepare(INDEX_TEXT),
        clear: handle.prepare(CLEAR_TEXT),
      };
    }
    if (statements.any.get() === undefined) return 0;
    const indexed = statements.index.run().changes;
    statements.clear.run();
    return indexed;
  };
}
