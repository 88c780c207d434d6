// A SQLite connection as the service uses it, on the event loop or on the write thread: the same settings on both.
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';

/**
 * `autocheckpoint`: the connection's wal_autocheckpoint in pages; SQLite's 1,000 unless a checkpoint thread runs
 * beside it (checkpoint-thread.ts).
 */
export function openSqliteConnection(
  file: string,
  synchronous: 'FULL' | 'NORMAL',
  autocheckpoint?: number,
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
  if (autocheckpoint !== undefined) sqlite.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
  return sqlite;
}

/** How long truncateWal tries before it gives up (the connections' busy_timeout, for readers, is as long). */
export const TRUNCATE_WAL_MS = 5000;

/**
 * Copies the whole WAL into the database file and truncates it to nothing (an erasure: no old version of a page is
 * left in it). True once done; false if a reader kept it from being done within TRUNCATE_WAL_MS. SQLite waits for
 * readers in the connection's busy handler, but answers busy at once while another connection runs a checkpoint
 * (the checkpoint thread's PASSIVE ones, checkpoint-thread.ts): those take milliseconds, so this tries again.
 */
export async function truncateWal(sqlite: SQLite.Database): Promise<boolean> {
  const deadline = Date.now() + TRUNCATE_WAL_MS;
  for (;;) {
    const [result] = sqlite.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    if (result?.busy === 0) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
