// The messages between the event loop and SQLite's write thread (write-thread.ts, write-thread-worker.ts).

import type { Topic } from './store.js';

/** How the thread runs a statement: rows (Runner.all), changes (Runner.run), or as Kysely asks (either). */
export type StatementMode = 'all' | 'run' | 'exec';

/** What a write's metrics reported on the thread, replayed on the event loop once it has committed. */
export type MetricCall = ['leadCreated', string, boolean] | ['leadStatusChanged', string, string];

/** Event loop → thread. */
export type ToThread =
  /**
   * A write: a named procedure the thread runs itself, or (no name) one whose statements the event loop sends.
   * `large`: WriteOptions.large.
   */
  | { t: 'job'; id: number; name?: string; args?: unknown; large?: boolean }
  /** A statement of the remote write `id`, which is running. */
  | { t: 'sql'; id: number; seq: number; text: string; params: unknown[]; mode: StatementMode }
  /** The remote write `id` has finished: kept (its savepoint released) or undone. */
  | { t: 'end'; id: number; ok: boolean }
  /** Copy the WAL into the database file and truncate it (Database.forgetOverwritten). */
  | { t: 'checkpoint'; id: number }
  | { t: 'close' };

export interface SerializedError {
  message: string;
  code?: string | undefined;
  name?: string | undefined;
}

/** Thread → event loop. */
export type FromThread =
  | { t: 'ready' }
  /** Every write sent before `close` has settled and the connection is closed. */
  | { t: 'closed' }
  /** The remote write `id` may run now: its statements go into the open transaction. */
  | { t: 'start'; id: number }
  | {
      t: 'sql';
      seq: number;
      rows?: unknown[];
      changes?: number;
      lastInsertRowid?: number | bigint;
      error?: SerializedError;
    }
  /**
   * A group has committed: each write's value (procedures) or nothing (remote writes), and what their commit hooks
   * signalled and counted. `group`: the number of the (last) group they were committed in; with a WAL sync thread
   * they are answered once it has synced that group. `fallback`: procedures that failed on the thread; the event
   * loop runs them as remote writes, so their errors are raised where the caller waits.
   */
  | {
      t: 'settled';
      committed: { id: number; value?: unknown; metrics?: MetricCall[] }[];
      group: number;
      failed: { id: number; error: SerializedError }[];
      fallback: number[];
      signals: Topic[];
    }
  | { t: 'checkpointed'; id: number; ok: boolean; error?: SerializedError };
