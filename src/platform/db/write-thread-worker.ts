// The write thread's side (write-thread.ts tells why there is one): it owns the connection every write of the
// process goes through, group-commits as write-batch.ts does, and answers when a group is on disk.
//
// Two kinds of write arrive:
//   - procedures: named writes the thread runs whole (a create), given their arguments. Nothing of their SQL
//     touches the event loop. Their commit hooks run here; what they signal and count is sent back with the
//     commit and replayed on the event loop.
//   - remote writes: any other write. Its callback runs on the event loop, which sends each statement here; the
//     thread runs them in the write's savepoint, in the open transaction, and answers each.
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { Kysely, SqliteDialect } from 'kysely';
import { groupCommitter } from './database.js';
import type { Tables } from './schema.js';
import { StatementCache } from './sql.js';
import { openSqliteConnection, truncateWal } from './sqlite-connection.js';
import { type MailSettings, MeteredTx, type Topic, Topics, type Tx, type WriteMetrics } from './store.js';
import type {
  FromThread,
  MetricCall,
  SerializedError,
  StatementMode,
  ToThread,
} from './write-thread-protocol.js';

/** A write the thread can run whole, by name. Its arguments and value cross threads (structured clone). */
// biome-ignore lint/suspicious/noExplicitAny: each procedure types its own arguments
export type Procedure = (tx: Tx, args: any) => Promise<unknown>;

export interface WriteThreadData {
  file: string;
  synchronous: 'FULL' | 'NORMAL';
  mail: MailSettings | null;
  /** The connection's wal_autocheckpoint (sqlite-connection.ts); SQLite's own when absent. */
  autocheckpoint?: number;
  /**
   * The WAL sync thread's port (wal-sync-thread.ts), at FULL: the connection then commits without syncing
   * (synchronous=NORMAL) and posts each group's number there once committed; the event loop answers the group's
   * writes once that thread has synced the WAL.
   */
  syncPort?: MessagePort;
  /** How long new leads' search documents may wait (search-index.ts); SEARCH_INDEX_INTERVAL_MS when absent. */
  searchIndexIntervalMs?: number | undefined;
}

export function serialize(error: unknown): SerializedError {
  const e = error as { message?: unknown; code?: unknown; name?: unknown };
  return {
    message: typeof e?.message === 'string' ? e.message : String(error),
    code: typeof e?.code === 'string' ? e.code : undefined,
    name: typeof e?.name === 'string' ? e.name : undefined,
  };
}

/** Records signals instead of calling listeners: the listeners are on the event loop. */
class RecordedTopics extends Topics {
  readonly signalled = new Set<Topic>();
  override signal(topic: Topic): void {
    this.signalled.add(topic);
  }
}

/** Runs the thread: call once from the worker's entry module with the procedures it knows. */
export function serveWrites(procedures: Record<string, Procedure>): void {
  const port = parentPort;
  if (!port) throw new Error('serveWrites runs on a worker thread');
  const data = workerData as WriteThreadData;
  const syncPort = data.syncPort;
  const sqlite = openSqliteConnection(data.file, syncPort ? 'NORMAL' : data.synchronous, data.autocheckpoint);
  const cache = new StatementCache(sqlite);
  const db = new Kysely<Tables>({
    dialect: new SqliteDialect({
      database: { close: () => sqlite.close(), prepare: (text) => cache.prepare(text) },
    }),
  });
  const topics = new RecordedTopics();
  const batcher = groupCommitter(db, cache, topics, data.mail, false, data.searchIndexIntervalMs);
  if (syncPort) batcher.afterCommit = (group) => syncPort.postMessage(group);
  const post = (message: FromThread) => port.postMessage(message);

  /** Metrics that record what a write's commit hooks count, for the event loop to count. */
  const recorder = (calls: MetricCall[]): WriteMetrics => ({
    leadCreated: (source, spam) => void calls.push(['leadCreated', source, spam]),
    leadStatusChanged: (from, to) => void calls.push(['leadStatusChanged', from, to]),
  });

  // What has settled since the last report: sent together once the current turn's settlements are in (one
  // message a group, not one a write).
  let committed: { id: number; value?: unknown; metrics?: MetricCall[] }[] = [];
  let failed: { id: number; error: SerializedError }[] = [];
  let fallback: number[] = [];
  /** The group the writes in `committed` were committed in (the last, if several). */
  let group = 0;
  let reportQueued = false;
  const report = () => {
    if (reportQueued) return;
    reportQueued = true;
    setImmediate(() => {
      reportQueued = false;
      post({
        t: 'settled',
        committed,
        group,
        failed,
        fallback,
        signals: [...topics.signalled],
      });
      committed = [];
      failed = [];
      fallback = [];
      topics.signalled.clear();
    });
  };

  /** The remote write whose callback runs on the event loop now, and how to end it. */
  let running: { id: number; resolve: () => void; reject: (error: Error) => void } | undefined;

  const remote = (id: number, large: boolean) =>
    batcher
      .run(
        () =>
          new Promise<void>((resolve, reject) => {
            running = { id, resolve, reject };
            post({ t: 'start', id });
          }),
        { large },
      )
      .then(
        () => {
          committed.push({ id });
          // Settled right after its group's COMMIT, before any other group runs.
          group = batcher.groups;
          report();
        },
        (error: unknown) => {
          failed.push({ id, error: serialize(error) });
          report();
        },
      );

  const statement = (seq: number, text: string, params: unknown[], mode: StatementMode) => {
    const prepared = cache.prepare(text);
    if (mode === 'all' || (mode === 'exec' && prepared.reader)) {
      post({ t: 'sql', seq, rows: prepared.all(...params) });
      return;
    }
    const result = prepared.run(...params);
    post({ t: 'sql', seq, changes: result.changes, lastInsertRowid: result.lastInsertRowid });
  };

  port.on('message', (message: ToThread) => {
    switch (message.t) {
      case 'job': {
        const { id, name } = message;
        if (name === undefined) {
          void remote(id, message.large === true);
          return;
        }
        const procedure = procedures[name];
        if (!procedure) {
          failed.push({ id, error: { message: `no write procedure named ${name}` } });
          report();
          return;
        }
        const calls: MetricCall[] = [];
        batcher
          .run((tx) => procedure(new MeteredTx(tx, recorder(calls)), message.args))
          .then(
            (value) => {
              committed.push(calls.length ? { id, value, metrics: calls } : { id, value });
              group = batcher.groups;
              report();
            },
            // Undone on its own (its savepoint) or with its group: the event loop runs it again as a remote write,
            // so the error a caller sees is the one its own code raises, with its class.
            () => {
              fallback.push(id);
              report();
            },
          );
        return;
      }
      case 'sql': {
        if (running?.id !== message.id) {
          post({
            t: 'sql',
            seq: message.seq,
            error: { message: 'tx.db was used after its write had ended.' },
          });
          return;
        }
        try {
          statement(message.seq, message.text, message.params, message.mode);
        } catch (error) {
          post({ t: 'sql', seq: message.seq, error: serialize(error) });
        }
        return;
      }
      case 'end': {
        const current = running;
        if (current?.id !== message.id) return;
        running = undefined;
        if (message.ok) current.resolve();
        else current.reject(new Error('the write failed on the event loop'));
        return;
      }
      case 'checkpoint': {
        // Under the connection lock: no group has a transaction open meanwhile.
        db.connection()
          .execute(() => truncateWal(sqlite))
          .then(
            (ok) => post({ t: 'checkpointed', id: message.id, ok }),
            (error: unknown) =>
              post({ t: 'checkpointed', id: message.id, ok: false, error: serialize(error) }),
          );
        return;
      }
      case 'close': {
        // Every write sent before this one has been queued: once this empty group has committed (writing the
        // search documents still pending), they all have.
        void batcher
          .close()
          .finally(() => db.destroy())
          .then(() => post({ t: 'closed' }));
        return;
      }
    }
  });
  post({ t: 'ready' });
}
