// The DATA_DIR lock: a small SQLite file (DATA_DIR/lead-intake.lock) whose OS file lock says who works on the
// folder. A server (and a running `backup`) holds a shared lock for its lifetime: an open read transaction. A
// restore needs the exclusive lock, which the OS refuses while any shared lock is held, and holds it until it is
// done, so a server cannot start in the middle. The OS releases the locks when a process dies, however it dies:
// unlike a PID file, a stale lock cannot outlive its process or be mistaken for a live one.
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';

export const LOCK_FILE = 'lead-intake.lock';

/** Another process holds the lock in a way that excludes us. */
export class DataDirBusyError extends Error {}

export interface DataDirLock {
  readonly file: string;
  release(): void;
}

function isBusy(error: unknown): boolean {
  const code = String((error as { code?: unknown }).code ?? '');
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

function open(dataDir: string, timeoutMs: number): { lockDb: SQLite.Database; file: string } {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  const lockDb = new SQLite(file, { timeout: timeoutMs });
  try {
    // A rollback journal (not WAL): its locks are plain OS locks on the file, shared or exclusive.
    lockDb.pragma('journal_mode = DELETE');
    lockDb.exec('create table if not exists holder (note text)');
  } catch (error) {
    lockDb.close();
    throw error;
  }
  return { lockDb, file };
}

function held(lockDb: SQLite.Database, file: string): DataDirLock {
  let released = false;
  return {
    file,
    release() {
      if (released) return;
      released = true;
      try {
        if (lockDb.inTransaction) lockDb.exec('rollback');
      } finally {
        lockDb.close();
      }
    },
  };
}

/**
 * A shared lock on dataDir, held until release() or the process's end: what a server and `backup` take. Waits up
 * to timeoutMs for a restore to finish, then throws DataDirBusyError.
 */
export function lockShared(dataDir: string, timeoutMs = 2000): DataDirLock {
  let opened: { lockDb: SQLite.Database; file: string };
  try {
    opened = open(dataDir, timeoutMs);
    opened.lockDb.exec('begin');
    // The first read takes the SHARED lock; the open transaction keeps it.
    opened.lockDb.prepare('select count(*) from holder').get();
  } catch (error) {
    if (isBusy(error))
      throw new DataDirBusyError(
        `a restore is running on DATA_DIR (${dataDir}); wait for it to finish, then start again`,
      );
    throw error;
  }
  return held(opened.lockDb, opened.file);
}

/**
 * The exclusive lock on dataDir, or DataDirBusyError at once when a server (or a backup) holds it: what
 * `restore` takes.
 */
export function lockExclusive(dataDir: string): DataDirLock {
  let opened: { lockDb: SQLite.Database; file: string } | undefined;
  try {
    opened = open(dataDir, 0);
    opened.lockDb.exec('begin exclusive');
  } catch (error) {
    opened?.lockDb.close();
    if (isBusy(error))
      throw new DataDirBusyError(
        `a server is running on DATA_DIR (${dataDir}), or a backup is being made there; stop it first`,
      );
    throw error;
  }
  return held(opened.lockDb, opened.file);
}
