// SQLite: the search documents of new leads, written once per commit (issue 33; migration 2026120201).
//
// The insert trigger on leads only numbers a new lead in its brand's range of the FTS5 index and marks it pending;
// its document is written here, for every pending lead at once, in the transaction that made them and after the
// last of its savepoints. FTS5 then writes one index segment per commit instead of one per create (it flushes at
// every savepoint release it took part in).
//
// THE RULE: whatever inserts leads must call this before its transaction commits, or the leads stay unsearchable
// until the next database open. Writes through database.write() do (the group commit, write-batch.ts, and
// overKysely's write); migrate() calls it after the migrations; anything else that inserts leads with its own SQL
// (bench/seed.ts, test/bulk-leads.ts) calls indexPendingLeads itself. PostgreSQL indexes in its own trigger: a
// no-op there.
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
