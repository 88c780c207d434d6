// The one handle domain code works on: the database outside any transaction, or one write's transaction.
//
// A write's callback receives a Tx: prepared statements (all/run), a Kysely instance bound to the same
// connection and transaction (tx.db), and onCommit for side effects that must wait for the commit (waking a
// worker). Calling write() on a Tx joins its transaction, so domain functions compose: createLead(tx, …) inside
// another write is part of that write. Using the outer handle (its db, all/run or write) inside a write throws at
// once: on SQLite it would wait forever for the connection the write holds, on PostgreSQL it would run outside
// the transaction.

import { AsyncLocalStorage } from 'node:async_hooks';
import type {
  CompiledQuery,
  DatabaseConnection,
  DatabaseIntrospector,
  DialectAdapter,
  Driver,
  Kysely,
  Dialect as KyselyDialect,
  QueryCompiler,
  QueryResult,
} from 'kysely';
import type { CheckpointThread } from './checkpoint-thread.js';
import type { Tables } from './schema.js';
import type { SearchThreads } from './search-threads.js';
import { combinedInserts, type Runner, type Statement } from './sql.js';
import type { SqliteWriteThread } from './write-thread.js';

export type Dialect = 'sqlite' | 'postgres';
export type DB = Kysely<Tables>;

/** Things that happen after a commit, which other parts of the process wait for. */
export type Topic = 'webhook-deliveries' | 'email-outbox';

/**
 * Email as the app configured it (SMTP_URL and MAIL_FROM), for domain code that queues mail in a write. Given when
 * the database is opened; the database and each of its transactions carry the same. null: email is off.
 */
export interface MailSettings {
  /** Base of the links in mails (PUBLIC_URL). */
  publicUrl: string;
  /** MAIL_FROM as given: a visit notice's invitation names its address as the organizer. */
  from?: string | undefined;
}

/**
 * What committed writes report for an app's metrics (src/platform/http/plugins/metrics.ts counts them). Domain code calls
 * it from tx.onCommit, so only committed work is counted.
 */
export interface WriteMetrics {
  leadCreated(source: string, spam: boolean): void;
  leadStatusChanged(from: string, to: string): void;
}

/** What domain functions receive: reads outside a transaction, or a write's transaction. */
export interface Store extends Runner {
  readonly dialect: Dialect;
  /** Email settings; null when email is off, so nothing is queued. */
  readonly mail: MailSettings | null;
  /** How long one search may run (SEARCH_BUDGET_MS; see search.ts); absent: the default. */
  readonly searchBudgetMs?: number | undefined;
  /** SQLite with a database file: the threads its searches run on (search-threads.ts); absent elsewhere. */
  readonly searchThreads?: SearchThreads | undefined;
  /** The app's metrics, on a handle from withWriteMetrics and its transactions; absent elsewhere. */
  readonly metrics?: WriteMetrics;
  /** Kysely on this handle's connection (outside a write: the pool; in a write: its transaction). */
  readonly db: DB;
  /** True on a write's transaction. */
  readonly inTransaction: boolean;
  /**
   * Runs `work` in a transaction and resolves once it has committed; on a Tx, runs it in that transaction. On
   * SQLite, writes that arrive together share one commit (see write-batch.ts).
   */
  write<T>(work: (tx: Tx) => Promise<T>, options?: WriteOptions): Promise<T>;
  /** Calls `fn` on every signal of `topic` (after the commit that raised it). Returns an unsubscribe function. */
  listen(topic: Topic, fn: () => void): () => void;
}

/** How a write is run; none of it changes what the write does. */
export interface WriteOptions {
  /**
   * The write may change a large part of the database (an erasure compacting the search index, a retention
   * sweep). On SQLite its group keeps its statement journal in files, not in memory (write-batch.ts).
   */
  large?: boolean;
}

export interface Tx extends Store {
  readonly inTransaction: true;
  /**
   * An insert of a new row whose result nobody needs now. On PostgreSQL it waits, and all that wait go to the
   * server as one statement (combinedInserts) before the transaction's next statement or its commit: a create's
   * inserts cost one round trip, not one each. SQLite runs it at once. Its errors come from that later
   * statement or the commit, so it is only for inserts that cannot fail but by a bug or a lost server (fresh ids,
   * no unique key a caller would handle).
   */
  defer(s: Statement, params: readonly unknown[]): Promise<void>;
  /**
   * Statements none of which needs another's answer, run in order: each one's rows. On PostgreSQL they go to the
   * server in one round trip (after the deferred inserts, in the same one), yet each is a statement of its own with
   * its own snapshot, so one sent after a statement that waited for a lock sees what was committed under that
   * lock; none runs after one that failed. Elsewhere they run one by one.
   */
  pipeline(statements: readonly SentStatement[]): Promise<unknown[][]>;
  /** Runs `fn` after this transaction commits; never when it rolls back. */
  onCommit(fn: () => void): void;
  /** Signals `topic` to its listeners once this transaction has committed. */
  signalAfterCommit(topic: Topic): void;
}

/** A statement with its parameters. */
export interface SentStatement {
  s: Statement;
  params: readonly unknown[];
}

/** A runner that can send statements without waiting for each one's answer (pg-transaction.ts). */
interface PipeliningRunner extends Runner {
  pipeline(statements: readonly SentStatement[]): Promise<unknown[][]>;
}

const pipelines = (runner: Runner): runner is PipeliningRunner =>
  typeof (runner as Partial<PipeliningRunner>).pipeline === 'function';

/** The opened database: a Store plus its life cycle. */
export interface Database extends Store {
  /** SQLite with a database file: the thread its writes run on (write-thread.ts); absent elsewhere. */
  readonly writeThread?: SqliteWriteThread | undefined;
  /** With the write thread: the thread that checkpoints the WAL beside it (checkpoint-thread.ts). */
  readonly checkpoints?: CheckpointThread | undefined;
  /**
   * A write the database may run whole elsewhere, by name (SQLite's write thread runs these procedures itself:
   * write-thread-worker.ts); `work` is the same write as a callback, which every other database runs as write()
   * does. `metrics`: what its commit hooks count goes there. Absent: write(work). Call through writeProcedure.
   */
  procedure?<T>(
    name: string,
    args: unknown,
    work: (tx: Tx) => Promise<T>,
    metrics?: WriteMetrics,
  ): Promise<T>;
  /**
   * A token that changes whenever committed data may have changed, by this process or any other; undefined when
   * that cannot be known cheaply (PostgreSQL, where other instances write unseen; SQLite while a transaction is
   * open on this connection). Lets responses built from the data be reused while it is unchanged.
   */
  version(): string | undefined;
  /** Resolves when the database answers a trivial query within the timeout. */
  ping(timeoutMs?: number): Promise<void>;
  /**
   * Makes what was deleted or overwritten unreadable from the database's files, for an erasure: on SQLite
   * (secure_delete is on, so freed content is zeroed in the pages) it copies the WAL into the database file and
   * truncates it, so no older page image remains. Resolves false when a reader (a running backup) kept the WAL
   * from being emptied within the busy timeout. PostgreSQL: true; its dead row versions go with VACUUM.
   */
  forgetOverwritten(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Set while a write's callback runs, so the outer handle can refuse to be used inside it. An enabled
 * AsyncLocalStorage makes Node 20 run a hook on every promise (measured: 10-20% of a create's CPU when always on),
 * so it is enabled only while writes are running and disabled again when the last one ends.
 */
const writeScope = new AsyncLocalStorage<true>();
let runningWrites = 0;

export class OuterHandleInWriteError extends Error {
  constructor(what: string) {
    super(
      `${what} of the database was used inside database.write(): use the transaction handle the callback ` +
        'receives (tx.db, tx.all, tx.run, tx.write) instead. On SQLite the outer handle waits for the ' +
        'connection this write holds, so it would never return.',
    );
    this.name = 'OuterHandleInWriteError';
  }
}

export function assertOutsideWrite(what: string): void {
  if (writeScope.getStore()) throw new OuterHandleInWriteError(what);
}

/** Runs a write's callback in the write scope. */
export async function inWriteScope<T>(fn: () => Promise<T>): Promise<T> {
  enterWrites();
  try {
    return await writeScope.run(true, fn);
  } finally {
    leaveWrites();
  }
}

/** Keeps the write scope enabled across several writes (a SQLite batch), so it is not switched per write. */
export function enterWrites(): void {
  runningWrites++;
}

export function leaveWrites(): void {
  runningWrites--;
  if (runningWrites === 0) writeScope.disable();
}

/** A Kysely driver whose connections refuse to be taken inside a write (the outer handle's). */
export function guardDriver(driver: Driver): Driver {
  const acquire = driver.acquireConnection.bind(driver);
  driver.acquireConnection = () => {
    assertOutsideWrite('The outer Kysely instance (database.db)');
    return acquire();
  };
  return driver;
}

/** The outer runner: the same statements, refused inside a write. */
export function guardRunner(runner: Runner): Runner {
  return {
    dialect: runner.dialect,
    all(s, params) {
      assertOutsideWrite('database.all');
      return runner.all(s, params);
    },
    run(s, params) {
      assertOutsideWrite('database.run');
      return runner.run(s, params);
    },
  };
}

/** Listeners per topic, shared by a database and its transactions. */
export class Topics {
  private readonly listeners = new Map<Topic, Set<() => void>>();

  listen(topic: Topic, fn: () => void): () => void {
    let set = this.listeners.get(topic);
    if (!set) {
      set = new Set();
      this.listeners.set(topic, set);
    }
    set.add(fn);
    return () => set.delete(fn);
  }

  signal(topic: Topic): void {
    for (const fn of this.listeners.get(topic) ?? []) {
      try {
        fn();
      } catch {
        // A listener's failure is its own (listeners are wake-ups); the commit has happened regardless.
      }
    }
  }
}

/**
 * A transaction handle: statements and Kysely on one connection, commit hooks collected for the caller to run.
 * `makeDb` is called at most once, on first use of tx.db (the hot paths use statements only).
 */
export class Transaction implements Tx {
  readonly inTransaction = true as const;
  readonly dialect: Dialect;
  private readonly hooks: (() => void)[] = [];
  private kysely: DB | undefined;
  /** Deferred inserts not yet sent (see defer). */
  private pending: { s: Statement; params: readonly unknown[] }[] = [];

  constructor(
    private readonly runner: Runner,
    /** Kysely on the transaction's connection; it must call `flush` before each query it sends. */
    private readonly makeDb: (flush: () => Promise<void>) => DB,
    private readonly topics: Topics,
    readonly mail: MailSettings | null,
    /** Deferred inserts wait to be sent together (PostgreSQL); otherwise they run at once. */
    private readonly combines = false,
  ) {
    this.dialect = runner.dialect;
  }

  get db(): DB {
    this.kysely ??= this.makeDb(() => this.flush());
    return this.kysely;
  }

  all<R>(s: Parameters<Runner['all']>[0], params: readonly unknown[]): Promise<R[]> {
    if (this.pending.length) return this.flush().then(() => this.runner.all<R>(s, params));
    return this.runner.all<R>(s, params);
  }

  run(s: Parameters<Runner['run']>[0], params: readonly unknown[]): Promise<number> {
    if (this.pending.length) return this.flush().then(() => this.runner.run(s, params));
    return this.runner.run(s, params);
  }

  async defer(s: Statement, params: readonly unknown[]): Promise<void> {
    if (!this.combines) {
      await this.runner.run(s, params);
      return;
    }
    this.pending.push({ s, params });
  }

  async pipeline(statements: readonly SentStatement[]): Promise<unknown[][]> {
    if (!pipelines(this.runner)) {
      const rows: unknown[][] = [];
      for (const { s, params } of statements) rows.push(await this.all(s, params));
      return rows;
    }
    const deferred = this.takeDeferred();
    if (!deferred) return this.runner.pipeline(statements);
    return (await this.runner.pipeline([deferred, ...statements])).slice(1);
  }

  /** Sends the deferred inserts, as one statement. */
  async flush(): Promise<void> {
    const last = this.takeDeferred();
    if (last) await this.runner.run(last.s, last.params);
  }

  /** The deferred inserts not yet sent, as one statement, for the owner to send with its COMMIT. */
  takeDeferred(): { s: Statement; params: unknown[] } | undefined {
    if (!this.pending.length) return undefined;
    const batch = this.pending;
    this.pending = [];
    return combinedInserts(batch);
  }

  write<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return work(this);
  }

  listen(topic: Topic, fn: () => void): () => void {
    return this.topics.listen(topic, fn);
  }

  onCommit(fn: () => void): void {
    this.hooks.push(fn);
  }

  signalAfterCommit(topic: Topic): void {
    this.onCommit(() => this.topics.signal(topic));
  }

  /** Called once the transaction has committed. */
  committed(): void {
    for (const fn of this.hooks) {
      try {
        fn();
      } catch {
        // Hooks are notifications; the data is committed whatever they do.
      }
    }
  }
}

/** A write's transaction as seen through withWriteMetrics: the same transaction, carrying the app's metrics. */
export class MeteredTx implements Tx {
  readonly inTransaction = true as const;

  constructor(
    private readonly tx: Tx,
    readonly metrics: WriteMetrics,
  ) {}

  get dialect() {
    return this.tx.dialect;
  }
  get mail() {
    return this.tx.mail;
  }
  get db() {
    return this.tx.db;
  }
  all<R>(s: Parameters<Runner['all']>[0], params: readonly unknown[]): Promise<R[]> {
    return this.tx.all<R>(s, params);
  }
  run(s: Parameters<Runner['run']>[0], params: readonly unknown[]): Promise<number> {
    return this.tx.run(s, params);
  }
  defer(s: Statement, params: readonly unknown[]): Promise<void> {
    return this.tx.defer(s, params);
  }
  pipeline(statements: readonly SentStatement[]): Promise<unknown[][]> {
    return this.tx.pipeline(statements);
  }
  write<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return work(this);
  }
  listen(topic: Topic, fn: () => void): () => void {
    return this.tx.listen(topic, fn);
  }
  onCommit(fn: () => void): void {
    this.tx.onCommit(fn);
  }
  signalAfterCommit(topic: Topic): void {
    this.tx.signalAfterCommit(topic);
  }
}

/**
 * The same database, whose writes' transactions carry `metrics` (tx.metrics). Each app wraps the database it
 * uses, so apps sharing one database (tests, embedding) each count only the writes made through their own handle.
 */
export function withWriteMetrics(database: Database, metrics: WriteMetrics): Database {
  return {
    get db() {
      return database.db;
    },
    dialect: database.dialect,
    mail: database.mail,
    // SEARCH_BUDGET_MS and SQLite's search threads reach search.ts through the app's handle too.
    searchBudgetMs: database.searchBudgetMs,
    searchThreads: database.searchThreads,
    writeThread: database.writeThread,
    checkpoints: database.checkpoints,
    inTransaction: false,
    metrics,
    all: (s, params) => database.all(s, params),
    run: (s, params) => database.run(s, params),
    write: (work, options) => database.write((tx) => work(new MeteredTx(tx, metrics)), options),
    procedure: (name, args, work) =>
      writeProcedure(database, name, args, (tx) => work(new MeteredTx(tx, metrics)), metrics),
    listen: (topic, fn) => database.listen(topic, fn),
    version: () => database.version(),
    ping: (timeoutMs) => database.ping(timeoutMs),
    forgetOverwritten: () => database.forgetOverwritten(),
    close: () => database.close(),
  };
}

/**
 * Runs a named write (Database.procedure) on a database that can run it elsewhere, else `work` as store.write
 * does (on a Tx: in that transaction). `args` must survive a structured clone (plain data).
 */
export function writeProcedure<T>(
  store: Store,
  name: string,
  args: unknown,
  work: (tx: Tx) => Promise<T>,
  metrics?: WriteMetrics,
): Promise<T> {
  const database = store as Partial<Database>;
  if (store.inTransaction || !database.procedure) return store.write(work);
  return database.procedure(name, args, work, metrics);
}

const NESTED =
  'A transaction cannot be started inside database.write(): the callback already runs in one; use its tx.';

/**
 * A Kysely dialect over one connection that is already inside a transaction: the connection a write holds.
 * `check` runs before each query (e.g. to refuse use after the write ended).
 */
export class HeldConnectionDialect implements KyselyDialect {
  constructor(
    private readonly connection: DatabaseConnection,
    private readonly parts: {
      adapter: () => DialectAdapter;
      compiler: () => QueryCompiler;
      introspector: (db: Kysely<unknown>) => DatabaseIntrospector;
    },
    private readonly check: () => void = () => {},
  ) {}

  createAdapter() {
    return this.parts.adapter();
  }
  createQueryCompiler() {
    return this.parts.compiler();
  }
  createIntrospector(db: Kysely<unknown>) {
    return this.parts.introspector(db);
  }
  createDriver(): Driver {
    const { connection, check } = this;
    const refuse = async () => {
      throw new Error(NESTED);
    };
    return {
      async init() {},
      async acquireConnection() {
        check();
        return connection;
      },
      beginTransaction: refuse,
      commitTransaction: refuse,
      rollbackTransaction: refuse,
      async releaseConnection() {},
      async destroy() {},
    };
  }
}

/** A DatabaseConnection that only executes (no streaming), for held connections. */
export function executingConnection(
  execute: (query: CompiledQuery) => Promise<QueryResult<unknown>>,
): DatabaseConnection {
  return {
    executeQuery: execute as DatabaseConnection['executeQuery'],
    // biome-ignore lint/correctness/useYield: refuses before yielding anything
    async *streamQuery() {
      throw new Error('Streaming queries are not supported inside database.write().');
    },
  };
}
