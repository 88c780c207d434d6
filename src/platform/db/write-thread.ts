// SQLite's writes on a thread of their own (issue 33). better-sqlite3 runs every statement, and the COMMIT with its
// fsync, synchronously: with the writes on the event loop, about half of a create's time there was SQLite's, and
// while a group's COMMIT waited for the disk no request could even be read. The write thread owns the connection
// every write goes through and group-commits as write-batch.ts does; the event loop keeps a connection of its own
// for reads, which (WAL) sees every committed group and nothing uncommitted.
//
// The thread runs a create whole (a procedure: write-thread-worker.ts), so the event loop only parses, validates
// and answers; every other write runs its callback here and sends its statements there, one message each. A
// promise of either resolves only once its group is on disk: at SQLITE_SYNCHRONOUS=FULL the thread commits without
// syncing and a thread of its own syncs the WAL (wal-sync-thread.ts) while the next group runs; at NORMAL, once
// the COMMIT has returned. A 201 still means the lead is on disk.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type MessagePort, Worker } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import type { Tables } from './schema.js';
import type { Statement } from './sql.js';
import {
  type DB,
  executingConnection,
  HeldConnectionDialect,
  inWriteScope,
  type MailSettings,
  type Topics,
  Transaction,
  type Tx,
  type WriteMetrics,
  type WriteOptions,
} from './store.js';
import { WalSyncThread } from './wal-sync-thread.js';
import type { FromThread, SerializedError, StatementMode, ToThread } from './write-thread-protocol.js';
import type { WriteThreadData } from './write-thread-worker.js';

interface Job {
  work: (tx: Tx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  metrics?: WriteMetrics | undefined;
  /** A remote write: its transaction handle (its commit hooks run here) and its callback's value. */
  tx?: Transaction;
  value?: unknown;
  /** True while its callback runs (its statements are accepted). */
  running?: boolean;
}

interface SqlReply {
  rows?: unknown[];
  changes?: number;
  lastInsertRowid?: number | bigint;
}

/** An error from the thread, as the same kind of error here: SQLite's keep their code (errors.ts reads it). */
function revive(error: SerializedError): Error {
  if (error.code?.startsWith('SQLITE_')) return new SQLite.SqliteError(error.message, error.code);
  const revived = new Error(error.message);
  if (error.name) revived.name = error.name;
  return revived;
}

/** Blobs cross threads as Uint8Array; the callers of better-sqlite3 get Buffers. */
function asBuffers(rows: unknown[]): unknown[] {
  const fix = (v: unknown) => (v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v) : v);
  return rows.map((row) => {
    if (row === null || typeof row !== 'object') return fix(row);
    const record = row as Record<string, unknown>;
    for (const key in record) record[key] = fix(record[key]);
    return record;
  });
}

/**
 * The worker for the entry module as built (dist/…/x.js); from the sources (tests, tsx), the .ts beside it, loaded
 * through tsx's loader registered in the thread first.
 */
interface TsxPackage {
  exports: { './esm/api': { import: { default: string } } };
}

function startWorker(entry: URL, data: WriteThreadData, transferList: MessagePort[]): Worker {
  if (fs.existsSync(fileURLToPath(entry))) return new Worker(entry, { workerData: data, transferList });
  const source = new URL(entry.href.replace(/\.js$/, '.ts'));
  if (!fs.existsSync(fileURLToPath(source))) throw new Error(`no write thread module at ${entry.href}`);
  // tsx's ESM API, as its package exports it (a data: URL module cannot resolve a bare name).
  const require = createRequire(fileURLToPath(source));
  const tsxPackage = require.resolve('tsx/package.json');
  const api = (JSON.parse(fs.readFileSync(tsxPackage, 'utf8')) as TsxPackage).exports['./esm/api'].import
    .default;
  const boot = `const { register } = await import(${JSON.stringify(pathToFileURL(path.join(path.dirname(tsxPackage), api)).href)});
register();
await import(${JSON.stringify(source.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), {
    workerData: data,
    transferList,
  });
}

export class SqliteWriteThread {
  private readonly worker: Worker;
  private nextId = 1;
  private nextSeq = 1;
  private readonly jobs = new Map<number, Job>();
  private readonly statements = new Map<
    number,
    { resolve: (r: SqlReply) => void; reject: (e: Error) => void }
  >();
  private readonly checkpoints = new Map<
    number,
    { resolve: (ok: boolean) => void; reject: (e: Error) => void }
  >();
  private broken: Error | undefined;
  private readonly exited: Promise<void>;
  /** At FULL: the thread that syncs the WAL, and the groups committed but not yet on disk, oldest first. */
  private readonly sync: WalSyncThread | undefined;
  private readonly unsynced: Extract<FromThread, { t: 'settled' }>[] = [];
  private onSynced: (() => void) | undefined;
  private referenced = false;
  /** Writes sent so far: run whole on the thread, and run from here statement by statement. */
  readonly sent = { procedures: 0, remote: 0 };

  constructor(
    entry: URL,
    data: WriteThreadData,
    private readonly topics: Topics,
    private readonly mail: MailSettings | null,
  ) {
    this.sync =
      data.synchronous === 'FULL' && data.file !== ':memory:'
        ? new WalSyncThread(
            data.file,
            (group) => this.synced(group),
            (error) => this.fail(error),
          )
        : undefined;
    this.worker = this.sync
      ? startWorker(entry, { ...data, syncPort: this.sync.port }, [this.sync.port])
      : startWorker(entry, data, []);
    this.worker.unref();
    this.worker.on('message', (message: FromThread) => this.receive(message));
    this.worker.on('error', (error) => this.fail(error));
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', () => {
        this.fail(new Error('the SQLite write thread has stopped'));
        resolve();
      }),
    );
  }

  /** Any write: its callback runs here, its statements on the thread. */
  write<T>(work: (tx: Tx) => Promise<T>, metrics?: WriteMetrics, options?: WriteOptions): Promise<T> {
    return this.enqueue(work, metrics, undefined, undefined, options?.large === true);
  }

  /**
   * A write the thread runs whole (write-thread-worker.ts's procedures), given its arguments; `work` is the same
   * write as a callback, run as a remote write when the procedure fails on the thread (so its error is raised
   * here, as its own class).
   */
  procedure<T>(
    name: string,
    args: unknown,
    work: (tx: Tx) => Promise<T>,
    metrics?: WriteMetrics,
  ): Promise<T> {
    return this.enqueue(work, metrics, name, args);
  }

  /** Copies the WAL into the database file and truncates it, between groups. */
  checkpoint(): Promise<boolean> {
    if (this.broken) return Promise.reject(this.broken);
    const id = this.nextId++;
    return new Promise<boolean>((resolve, reject) => {
      this.checkpoints.set(id, { resolve, reject });
      this.hold();
      this.send({ t: 'checkpoint', id });
    });
  }

  /** Lets every write sent so far settle, closes the thread's connection, and stops the thread. */
  async close(): Promise<void> {
    if (!this.broken) {
      const closed = new Promise<void>((resolve) => {
        this.onClosed = resolve;
      });
      this.hold();
      this.send({ t: 'close' });
      await Promise.race([closed, this.exited]);
      // The last groups' writes are answered once they are on disk.
      if (this.unsynced.length && !this.broken) {
        await new Promise<void>((resolve) => {
          this.onSynced = resolve;
        });
      }
    }
    await this.worker.terminate();
    await this.exited;
    await this.sync?.close();
  }

  /** Holds the WAL's syncs (tests: a group committed and readable, its writes not yet answered). */
  pauseSyncs(): () => void {
    if (!this.sync) throw new Error('no WAL sync thread (SQLITE_SYNCHRONOUS=NORMAL)');
    this.sync.pause();
    return () => this.sync?.resume();
  }

  private onClosed: (() => void) | undefined;

  private enqueue<T>(
    work: (tx: Tx) => Promise<T>,
    metrics: WriteMetrics | undefined,
    name: string | undefined,
    args: unknown,
    large = false,
  ): Promise<T> {
    if (this.broken) return Promise.reject(this.broken);
    const id = this.nextId++;
    if (name === undefined) this.sent.remote++;
    else this.sent.procedures++;
    return new Promise<T>((resolve, reject) => {
      this.jobs.set(id, { work, resolve: resolve as (value: unknown) => void, reject, metrics });
      this.hold();
      this.send(
        name !== undefined
          ? { t: 'job', id, name, args }
          : large
            ? { t: 'job', id, large }
            : { t: 'job', id },
      );
    });
  }

  private send(message: ToThread) {
    this.worker.postMessage(message);
  }

  /** The thread keeps the process alive while writes are under way, and only then. */
  private hold() {
    if (!this.referenced) {
      this.referenced = true;
      this.worker.ref();
    }
  }

  private release() {
    if (this.referenced && !this.jobs.size && !this.checkpoints.size) {
      this.referenced = false;
      this.worker.unref();
    }
  }

  private receive(message: FromThread) {
    switch (message.t) {
      case 'ready':
        return;
      case 'closed':
        this.onClosed?.();
        return;
      case 'start':
        this.start(message.id);
        return;
      case 'sql': {
        const pending = this.statements.get(message.seq);
        if (!pending) return;
        this.statements.delete(message.seq);
        if (message.error) pending.reject(revive(message.error));
        else pending.resolve(message);
        return;
      }
      case 'settled':
        this.settle(message);
        return;
      case 'checkpointed': {
        const pending = this.checkpoints.get(message.id);
        this.checkpoints.delete(message.id);
        if (message.error) pending?.reject(revive(message.error));
        else pending?.resolve(message.ok);
        this.release();
        return;
      }
    }
  }

  /** A remote write's turn: its callback runs now, its statements going into the thread's open transaction. */
  private start(id: number) {
    const job = this.jobs.get(id);
    if (!job) {
      this.send({ t: 'end', id, ok: false });
      return;
    }
    const tx = new Transaction(this.runner(id), () => this.heldKysely(id), this.topics, this.mail);
    job.tx = tx;
    job.running = true;
    inWriteScope(() => job.work(tx)).then(
      (value) => {
        job.running = false;
        job.value = value;
        this.send({ t: 'end', id, ok: true });
      },
      (error: unknown) => {
        // Undone on the thread (its savepoint); nothing of it was committed.
        job.running = false;
        this.jobs.delete(id);
        this.send({ t: 'end', id, ok: false });
        job.reject(error);
        this.release();
      },
    );
  }

  private settle(message: Extract<FromThread, { t: 'settled' }>) {
    // Undone, or to run again from here: nothing of them is in the WAL to wait for.
    for (const { id, error } of message.failed) {
      const job = this.jobs.get(id);
      if (!job) continue;
      this.jobs.delete(id);
      job.reject(revive(error));
    }
    // Procedures that failed on the thread run again from here, so the caller gets its own code's error.
    for (const id of message.fallback) {
      if (this.jobs.has(id)) this.send({ t: 'job', id });
    }
    if (this.sync && message.group > this.sync.synced) this.unsynced.push(message);
    else this.answer(message);
    this.release();
  }

  /** Every group up to `group` is on disk: its writes are answered, in the order they committed. */
  private synced(group: number) {
    let n = 0;
    while (n < this.unsynced.length && this.unsynced[n]!.group <= group) n++;
    for (const message of this.unsynced.splice(0, n)) this.answer(message);
    if (!this.unsynced.length) this.onSynced?.();
    this.release();
  }

  /** A committed group's writes, on disk: resolved, with what their commit hooks signalled and counted. */
  private answer(message: Extract<FromThread, { t: 'settled' }>) {
    for (const { id, value, metrics } of message.committed) {
      const job = this.jobs.get(id);
      if (!job) continue;
      this.jobs.delete(id);
      if (job.tx) {
        job.tx.committed();
        job.resolve(job.value);
        continue;
      }
      for (const [call, a, b] of metrics ?? []) {
        try {
          if (call === 'leadCreated') job.metrics?.leadCreated(a, b as boolean);
          else job.metrics?.leadStatusChanged(a, b as string);
        } catch {
          // Counting never fails a committed write.
        }
      }
      job.resolve(value);
    }
    for (const topic of message.signals) this.topics.signal(topic);
  }

  private call(id: number, text: string, params: readonly unknown[], mode: StatementMode): Promise<SqlReply> {
    if (!this.jobs.get(id)?.running)
      return Promise.reject(new Error('tx.db was used after its write had ended.'));
    const seq = this.nextSeq++;
    return new Promise<SqlReply>((resolve, reject) => {
      this.statements.set(seq, { resolve, reject });
      this.send({ t: 'sql', id, seq, text, params: params as unknown[], mode });
    });
  }

  private runner(id: number) {
    return {
      dialect: 'sqlite' as const,
      all: async <R>(s: Statement, params: readonly unknown[]) =>
        asBuffers((await this.call(id, s.sqlite, params, 'all')).rows ?? []) as R[],
      run: async (s: Statement, params: readonly unknown[]) =>
        (await this.call(id, s.sqlite, params, 'run')).changes ?? 0,
    };
  }

  private heldKysely(id: number): DB {
    return new Kysely<Tables>({
      dialect: new HeldConnectionDialect(
        executingConnection(async (query) => {
          const reply = await this.call(id, query.sql, query.parameters, 'exec');
          if (reply.rows) return { rows: asBuffers(reply.rows) };
          return {
            rows: [],
            numAffectedRows: BigInt(reply.changes ?? 0),
            insertId: BigInt(reply.lastInsertRowid ?? 0),
          };
        }),
        {
          adapter: () => new SqliteAdapter(),
          compiler: () => new SqliteQueryCompiler(),
          introspector: (k) => new SqliteIntrospector(k),
        },
      ),
    });
  }

  private fail(error: Error) {
    this.broken ??= error;
    this.unsynced.length = 0;
    this.onSynced?.();
    for (const job of this.jobs.values()) job.reject(error);
    this.jobs.clear();
    for (const s of this.statements.values()) s.reject(error);
    this.statements.clear();
    for (const c of this.checkpoints.values()) c.reject(error);
    this.checkpoints.clear();
  }
}
