// A SQLite connection as the service uses it, on the event loop or on the write thread: the same settings on both.
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';

/**
 * `autocheckpoint`: the connection's wal_autocheckpoint in pages; SQLite's 1,000 unless a checkpoint thread runs
 * beside it (checkpoint-thread.ts). `writer`: the connection the process writes through (the write thread's, or
 * the event loop's when there is no write thread).
 */
export function openSqliteConnection(
  file: string,
  synchronous: 'FULL' | 'NORMAL',
  autocheckpoint?: number,
  writer = false,
): SQLite.Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(`synchronous = ${synchronous}`);
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Deleted and overwritten content is zeroed in the pages, so an erasure leaves no readable bytes behind
  // (issue 28; its cost on a create: bench/README.md "Personal data").
  sqlite.pragma('secure_delete = ON');
  // The writer keeps its statement journal in memory. Each write of a group commit runs in a savepoint
  // (write-batch.ts), and a page the group had already changed is copied to that journal before a later write
  // changes it again: about 50 KB a create. Past 64 KiB SQLite spills the journal to a file of its own in the
  // temporary directory, made and deleted for every group, and wrote it there with two system calls a page: a
  // quarter of the write thread's time under creates (issue 33; bench/README.md). The journal only undoes a
  // savepoint within a transaction (a crash discards an uncommitted transaction from the WAL whatever it holds),
  // so durability is unchanged; it lives as long as the transaction, its size bounded by the pages the
  // transaction changes. Temporary tables and indexes of this connection's statements are in memory too; the
  // event loop's reading connection keeps SQLite's default when a write thread writes.
  if (writer) sqlite.pragma('temp_store = MEMORY');
  if (autocheckpoint !== undefined) sqlite.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
  return sqlite;
}
