// Group commit on SQLite: writes that arrive together share one transaction, so one fsync instead of one each.
//
// At synchronous=FULL every commit waits for the WAL to reach the disk (about 0.3 ms on a quiet disk here, far
// more on a busy one), and better-sqlite3 waits with the event loop blocked. Requests that arrive while one
// commit runs queue up in the socket buffers; they are all read in the next turn of the event loop, and this
// commits them in one transaction. Each write runs in its own savepoint, so one that fails (a refused state
// change, a conflict) is undone alone and rejected, while the others go on. No promise resolves before COMMIT
// returns; on the write thread at FULL the COMMIT does not sync, and the event loop answers a write only once the
// WAL sync thread has (wal-sync-thread.ts). Either way a caller acknowledges a write only once it is on disk.
//
// A savepoint's statement journal is kept in memory for a group of ordinary writes. SQLite copies each page a
// write changes, of those there when its savepoint began, to that journal first (to undo the write alone): about
// 50 KB a create. With SQLite's default it keeps 64 KiB in memory and spills the rest to a file of its own in
// the temporary directory, made and deleted for every group and written with two system calls a page: a quarter
// of the write thread's time under creates (issue 33; bench/README.md). The journal only undoes a savepoint within
// a transaction (a crash discards an uncommitted transaction from the WAL whatever it held), so durability is the
// same either way. A group with a write that may change a large part of the database (WriteOptions.large: an
// erasure rewrites the whole search index) keeps the journal in files instead, so its size is the disk's, not
// the process's memory.
import type SQLite from 'better-sqlite3';
import { pendingLeadIndexer, SEARCH_INDEX_INTERVAL_MS } from './search-index.js';
import type { StatementCache } from './sql.js';
import {
  type DB,
  enterWrites,
  inWriteScope,
  leaveWrites,
  type Transaction,
  type Tx,
  type WriteOptions,
} from './store.js';

interface Job {
  work: (tx: Tx) => Promise<unknown>;
  large: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** More than this many writes wait for the next commit, so one commit's latency stays bounded. */
export const MAX_BATCH = 64;

export class SqliteWriteBatcher {
  private queue: Job[] = [];
  private scheduled = false;
  private readonly handle: SQLite.Database;
  /** True while a batch holds Kysely's connection lock: the only time a write's tx may run statements. */
  holding = false;
  // Prepared once: exec() would compile these texts on every write.
  private readonly control: Record<
    'begin' | 'savepoint' | 'release' | 'rollbackTo' | 'commit',
    SQLite.Statement
  >;
  /** Where the connection keeps temporary data now (temp_store): set before each group's BEGIN. */
  private journalInMemory = false;
  private readonly indexPendingLeads: () => number;
  /** Groups committed so far: the number of the last one. */
  groups = 0;
  /**
   * When the next group writes the pending search documents (performance.now()): at most once every
   * SEARCH_INDEX_INTERVAL_MS, or at once when indexNow asks (search-index.ts tells why).
   */
  private nextIndexAt = 0;
  /** SEARCH_INDEX_INTERVAL_MS, unless the database was opened with another (a test that must see the wait). */
  private readonly searchIndexIntervalMs: number;
  private indexWanted = false;
  /** Runs an empty group when the interval is up, so pending documents never wait for the next write. */
  private indexTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /**
   * Called with a group's number as soon as its COMMIT has returned, before its writes are settled (the write
   * thread tells the WAL sync thread: wal-sync-thread.ts).
   */
  afterCommit: ((group: number) => void) | undefined;

  constructor(
    private readonly db: DB,
    cache: StatementCache,
    /** A transaction handle for one write: its own commit hooks, the batch's connection. */
    private readonly newTransaction: () => Transaction,
    /**
     * Whether writes run in the write scope, so the outer handle refuses to be used inside them. On the write
     * thread there is no outer handle, and the scope's promise hooks would only cost time.
     */
    private readonly scoped = true,
    searchIndexIntervalMs = SEARCH_INDEX_INTERVAL_MS,
  ) {
    this.searchIndexIntervalMs = searchIndexIntervalMs;
    this.handle = cache.handle;
    const prepare = (text: string) => this.handle.prepare(text);
    this.control = {
      begin: prepare('BEGIN IMMEDIATE'),
      savepoint: prepare('SAVEPOINT write'),
      release: prepare('RELEASE write'),
      rollbackTo: prepare('ROLLBACK TO write'),
      commit: prepare('COMMIT'),
    };
    this.indexPendingLeads = pendingLeadIndexer(this.handle);
  }

  /**
   * Writes the pending search documents now, in a group of their own or the next one: resolves once that group
   * has committed. Close calls it last (a search writes them with a write of its own: search.ts).
   */
  indexNow(): Promise<void> {
    this.indexWanted = true;
    return this.run(async () => {});
  }

  /**
   * Stops the interval's timer and writes what is pending: the connection is about to close. Resolves once every
   * write queued before it has committed. The documents are the one thing it may fail to write (its disk full):
   * they stay marked, and the next open writes them (migrate()).
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.indexTimer) clearTimeout(this.indexTimer);
    this.indexTimer = undefined;
    await this.indexNow().catch(() => undefined);
  }

  /** After a group that left its search documents for later: a group then, unless a write comes first. */
  private indexLater() {
    if (this.indexTimer || this.closed) return;
    const wait = Math.max(0, this.nextIndexAt - performance.now());
    this.indexTimer = setTimeout(() => {
      this.indexTimer = undefined;
      if (this.closed) return;
      // A group with writes has indexed since: its own commit armed the timer again if it had to.
      if (performance.now() < this.nextIndexAt) return;
      this.indexWanted = true;
      this.run(async () => {}).catch(() => {});
    }, wait + 1);
    this.indexTimer.unref();
  }

  run<T>(work: (tx: Tx) => Promise<T>, options?: WriteOptions): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const large = options?.large === true;
      this.queue.push({ work, large, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate runs after the current poll phase: every request already read this turn has queued by then.
    setImmediate(() => {
      this.scheduled = false;
      const jobs = this.queue.splice(0, MAX_BATCH);
      if (this.queue.length) this.schedule();
      // Kysely's connection lock: no Kysely transaction can be open on this connection while the batch runs,
      // and none starts until it has committed.
      this.db
        .connection()
        .execute(async () => {
          this.holding = true;
          if (this.scoped) enterWrites();
          try {
            await this.commit(jobs);
          } finally {
            if (this.scoped) leaveWrites();
            this.holding = false;
          }
        })
        .catch((error: unknown) => {
          for (const job of jobs) job.reject(error);
        });
    });
  }

  private async commit(jobs: Job[]): Promise<void> {
    const h = this.handle;
    const c = this.control;
    const done: { job: Job; value: unknown; tx: Transaction }[] = [];
    // Jobs from `next` on have not been settled yet.
    let next = 0;
    try {
      // SQLite takes the setting for the journal at BEGIN.
      const inMemory = !jobs.some((job) => job.large);
      if (inMemory !== this.journalInMemory) {
        // Not a prepared statement: SQLite applies this pragma when it compiles it, not when it runs.
        h.pragma(`temp_store = ${inMemory ? 'MEMORY' : 'FILE'}`);
        this.journalInMemory = inMemory;
      }
      c.begin.run();
      for (; next < jobs.length; next++) {
        const job = jobs[next]!;
        c.savepoint.run();
        const tx = this.newTransaction();
        try {
          const value = await (this.scoped ? inWriteScope(() => job.work(tx)) : job.work(tx));
          c.release.run();
          done.push({ job, value, tx });
        } catch (error) {
          // Undo this write alone. If SQLite already ended the transaction (I/O error, disk full), the whole
          // batch fails below.
          if (!h.inTransaction) throw error;
          c.rollbackTo.run();
          c.release.run();
          job.reject(error);
        }
      }
      // The new leads of this group and of the groups before it into the search index, outside every savepoint
      // (one FTS5 segment), once the interval since it was last written is up (search-index.ts); else later.
      const now = performance.now();
      const indexing = this.indexWanted || now >= this.nextIndexAt;
      if (indexing) {
        this.indexWanted = false;
        this.nextIndexAt = now + this.searchIndexIntervalMs;
        this.indexPendingLeads();
      }
      c.commit.run();
      if (!indexing && done.length) this.indexLater();
      this.groups++;
      this.afterCommit?.(this.groups);
    } catch (error) {
      if (h.inTransaction) h.exec('ROLLBACK');
      for (const { job } of done) job.reject(error);
      for (const job of jobs.slice(next)) job.reject(error);
      return;
    }
    for (const { job, value, tx } of done) {
      tx.committed();
      job.resolve(value);
    }
  }
}
