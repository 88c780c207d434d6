// Opens the configured database (SQLite file or PostgreSQL pool) behind one Kysely interface, and migrates it.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type Migration,
  type MigrationProvider,
  Migrator,
  PostgresAdapter,
  PostgresDialect,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteDialect,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from 'kysely';
import type pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import { CheckpointThread, WRITER_AUTOCHECKPOINT } from './checkpoint-thread.js';
import { migrations } from './migration-files.js';
import { PostgresTransactionRunner } from './pg-transaction.js';
import type { Tables } from './schema.js';
import { indexPendingLeads } from './search-index.js';
import { SearchThreads } from './search-threads.js';
import { kyselyRunner, postgresRunner, type Runner, StatementCache, sqliteRunner } from './sql.js';
import { openSqliteConnection, truncateWal } from './sqlite-connection.js';
import {
  assertOutsideWrite,
  type Database,
  type DB,
  type Dialect,
  executingConnection,
  guardDriver,
  guardRunner,
  HeldConnectionDialect,
  inWriteScope,
  type MailSettings,
  type Topic,
  Topics,
  Transaction,
} from './store.js';
import { SqliteWriteBatcher } from './write-batch.js';
import { SqliteWriteThread } from './write-thread.js';

export type { Database, DB, Dialect, MailSettings, Store, Tx } from './store.js';

let pgModule: typeof pg | undefined;

/** node-postgres, loaded when a PostgreSQL database is opened: a SQLite server never needs its ~8 MiB. */
function loadPg(): typeof pg {
  if (!pgModule) {
    pgModule = createRequire(import.meta.url)('pg') as typeof pg;
    // int8 (bigint) columns hold epoch milliseconds: well within Number's exact range.
    pgModule.types.setTypeParser(20, (value) => Number.parseInt(value, 10));
  }
  return pgModule;
}

/**
 * `mail`: the email settings the database and its transactions carry for domain code (null: email is off).
 * `writeThread`: on SQLite with a database file, the module of the thread the writes run on (the app's
 * write-worker; write-thread.ts), unless the config turns it off; without it, writes run on the event loop.
 */
export function openDatabase(
  config: DatabaseConfig,
  sqliteSynchronous: 'FULL' | 'NORMAL' = 'FULL',
  mail: MailSettings | null = null,
  writeThread?: URL,
): Database {
  const database =
    config.dialect === 'sqlite'
      ? openSqlite(
          config.file,
          sqliteSynchronous,
          mail,
          config.writeThread === false ? undefined : writeThread,
          // A served database (the app gives the thread's module) checkpoints beside its writes either way.
          { checkpointThread: writeThread !== undefined },
        )
      : openPostgres(config, mail);
  // Read by search.ts from whichever handle a search is given (the database or a transaction made from it).
  return config.searchBudgetMs === undefined
    ? database
    : Object.assign(database, { searchBudgetMs: config.searchBudgetMs });
}

/** The outer Kysely's SQLite dialect: refuses to be used inside a write instead of waiting for its lock. */
class GuardedSqliteDialect extends SqliteDialect {
  /** With a write thread: SQLITE_BUSY is waited out on the event loop (waitOutBusy). */
  busyWaits = false;
  override createDriver() {
    const driver = guardDriver(super.createDriver());
    return this.busyWaits ? waitOutBusy(driver) : driver;
  }
}

const BUSY_WAIT_MS = 5000;

/**
 * A statement on the event loop's connection that finds the database locked (a write through the outer handle
 * while the write thread holds the lock) is tried again a few milliseconds later, up to BUSY_WAIT_MS, instead of
 * SQLite's busy handler sleeping on the event loop: the thread's group may be waiting for the event loop itself
 * (a write whose callback runs here), and a blocked event loop would never let it finish.
 */
function waitOutBusy(driver: Driver): Driver {
  const acquire = driver.acquireConnection.bind(driver);
  const patched = new WeakSet<DatabaseConnection>();
  driver.acquireConnection = async () => {
    const connection = await acquire();
    if (!patched.has(connection)) {
      patched.add(connection);
      const execute = connection.executeQuery.bind(connection);
      connection.executeQuery = (async (query: CompiledQuery) => {
        for (let waited = 0; ; waited += 5) {
          try {
            return await execute(query);
          } catch (error) {
            const code = (error as { code?: unknown }).code;
            if (code !== 'SQLITE_BUSY' || waited >= BUSY_WAIT_MS) throw error;
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
        }
      }) as DatabaseConnection['executeQuery'];
    }
    return connection;
  };
  return driver;
}

class GuardedPostgresDialect extends PostgresDialect {
  override createDriver() {
    return guardDriver(super.createDriver());
  }
}

export function openSqlite(
  file: string,
  synchronous: 'FULL' | 'NORMAL' = 'FULL',
  mail: MailSettings | null = null,
  writeThread?: URL,
  /**
   * searchIndexIntervalMs: how long new leads' search documents may wait (search-index.ts); its default else.
   * checkpointThread: checkpoints on a thread of their own with the writes on the event loop too (always with the
   * write thread).
   */
  options: { searchIndexIntervalMs?: number; checkpointThread?: boolean } = {},
): Database {
  const threaded = writeThread !== undefined && file !== ':memory:';
  // Checkpoints run on a thread of their own (checkpoint-thread.ts); each connection's own is only the WAL's
  // bound. With the writes on the event loop (one core), a checkpoint in a COMMIT would stop every request while
  // it copies and syncs, longer the larger the database.
  const besideCheckpoints = file !== ':memory:' && (threaded || options.checkpointThread === true);
  const autocheckpoint = besideCheckpoints ? WRITER_AUTOCHECKPOINT : undefined;
  const sqlite = openSqliteConnection(file, synchronous, autocheckpoint);
  // The write thread holds the write lock; this connection waits for it on the event loop, never in SQLite's
  // busy handler (waitOutBusy).
  if (threaded) sqlite.pragma('busy_timeout = 0');
  const cache = new StatementCache(sqlite);
  const dialect = new GuardedSqliteDialect({
    database: { close: () => sqlite.close(), prepare: (text) => cache.prepare(text) },
  });
  dialect.busyWaits = threaded;
  const db = new Kysely<Tables>({ dialect });
  const topics = new Topics();
  // An in-memory database cannot be opened twice: its writes stay on the event loop.
  const thread =
    threaded && writeThread
      ? new SqliteWriteThread(
          writeThread,
          { file, synchronous, mail, autocheckpoint, searchIndexIntervalMs: options.searchIndexIntervalMs },
          topics,
          mail,
        )
      : undefined;
  const checkpoints = besideCheckpoints ? new CheckpointThread(file, synchronous) : undefined;
  const theBatcher = thread
    ? undefined
    : groupCommitter(db, cache, topics, mail, true, options.searchIndexIntervalMs);
  // total_changes(): rows this connection has changed (committed or not, so only read outside a transaction);
  // data_version: changes when any other connection or process commits. Two statements: the table-valued
  // pragma_data_version costs more than both together.
  const searchThreads = file === ':memory:' ? undefined : new SearchThreads(file);
  const totalChanges = sqlite.prepare('select total_changes()').pluck();
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  return {
    ...outerHandle(db, 'sqlite', kyselyRunner(db, 'sqlite'), topics, mail),
    searchThreads,
    writeThread: thread,
    checkpoints,
    write: (work, options) => {
      assertOutsideWrite('database.write');
      return thread ? thread.write(work, undefined, options) : theBatcher!.run(work, options);
    },
    procedure: (name, args, work, metrics) => {
      assertOutsideWrite('database.write');
      return thread ? thread.procedure(name, args, work, metrics) : theBatcher!.run(work);
    },
    version() {
      if (sqlite.inTransaction) return undefined;
      return `${totalChanges.get() as number}.${dataVersion.get() as number}`;
    },
    async ping() {
      sqlite.prepare('select 1').get();
    },
    // Under the writing connection's lock, so no write batch has a transaction open on it meanwhile.
    forgetOverwritten: () =>
      thread
        ? thread.checkpoint()
        : db.connection().execute(async () => {
            if (file === ':memory:') return true;
            return truncateWal(sqlite);
          }),
    async close() {
      await searchThreads?.close();
      await checkpoints?.close();
      await thread?.close();
      await theBatcher?.close();
      await db.destroy();
    },
  };
}

/**
 * Group commit on a SQLite connection (write-batch.ts). `db` is Kysely on the same connection: the batch holds its
 * connection lock while it runs.
 */
export function groupCommitter(
  db: DB,
  cache: StatementCache,
  topics: Topics,
  mail: MailSettings | null,
  /** SqliteWriteBatcher's `scoped`: false on the write thread. */
  scoped = true,
  /** How long new leads' search documents may wait: SEARCH_INDEX_INTERVAL_MS unless given (search-index.ts). */
  searchIndexIntervalMs?: number,
): SqliteWriteBatcher {
  // The Kysely instance a write's tx.db is: the same better-sqlite3 handle, without the connection lock the
  // batch already holds. Built once; it refuses to run while no batch holds the lock.
  let batcher: SqliteWriteBatcher | undefined;
  const held = new Kysely<Tables>({
    dialect: new HeldConnectionDialect(
      executingConnection(async (query) => {
        const statement = cache.prepare(query.sql);
        const params = query.parameters as unknown[];
        if (statement.reader) return { rows: statement.all(...params) };
        const result = statement.run(...params);
        return {
          rows: [],
          numAffectedRows: BigInt(result.changes),
          insertId: BigInt(result.lastInsertRowid),
        };
      }),
      {
        adapter: () => new SqliteAdapter(),
        compiler: () => new SqliteQueryCompiler(),
        introspector: (k) => new SqliteIntrospector(k),
      },
      () => {
        if (!batcher?.holding) throw new Error('tx.db was used after its write had ended.');
      },
    ),
  });
  const runner = sqliteRunner(cache);
  batcher = new SqliteWriteBatcher(
    db,
    cache,
    () => new Transaction(runner, () => held, topics, mail),
    scoped,
    searchIndexIntervalMs,
  );
  return batcher;
}

/** The parts of the outer handle every dialect shares: Kysely, statements and topics, refused inside a write. */
function outerHandle(db: DB, dialect: Dialect, runner: Runner, topics: Topics, mail: MailSettings | null) {
  const guarded = guardRunner(runner);
  return {
    db,
    dialect,
    mail,
    inTransaction: false as const,
    all: guarded.all,
    run: guarded.run,
    listen: (topic: Topic, fn: () => void) => topics.listen(topic, fn),
  };
}

function openPostgres(
  config: Extract<DatabaseConfig, { dialect: 'postgres' }>,
  mail: MailSettings | null,
): Database {
  const pool = new (loadPg().Pool)({
    connectionString: config.url,
    max: config.poolMax,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    // Every session works inside the configured schema; statements that hang are cut off. Hot statements are
    // named prepared statements (sql.ts), parsed once per connection; PostgreSQL keeps one plan for all calls
    // where that plan is as good as one made for the call's values (plan_cache_mode=auto, the default, set here
    // whatever the server's own setting). Planning the single-lead read (five tables) for every call cost
    // PostgreSQL 0.4 ms of its 0.5 ms of CPU per read. Statements whose plan depends on the values (a list's
    // filters, a search) are sent unnamed, and so planned per call (Statement.planPerCall).
    options: `-c search_path=${config.schema} -c statement_timeout=15000 -c idle_in_transaction_session_timeout=30000 -c plan_cache_mode=auto`,
  });
  // An idle client losing its connection must not crash the process; the next query reports the error.
  pool.on('error', () => {});
  // The pool listens only to idle clients. A checked-out client (say, between two statements of a transaction)
  // that loses its server emits 'error' with no listener, which would kill the process: the statement in
  // flight fails on its own, and the pool discards the broken client when it is released.
  pool.on('connect', (client) => {
    client.on('error', () => {});
    sendQueriesWhole(client);
  });
  const db = new Kysely<Tables>({ dialect: new GuardedPostgresDialect({ pool }) });
  const topics = new Topics();
  return {
    ...outerHandle(db, 'postgres', postgresRunner(pool), topics, mail),
    async write(work) {
      assertOutsideWrite('database.write');
      const client = await pool.connect();
      let broken: Error | undefined;
      // BEGIN goes with the first statement and COMMIT with the deferred inserts (pg-transaction.ts).
      const runner = new PostgresTransactionRunner(client, loadPg());
      try {
        const tx = new Transaction(
          runner,
          (flush) =>
            heldPostgres(client, async () => {
              await flush();
              await runner.begin();
            }),
          topics,
          mail,
          true,
        );
        const result = await inWriteScope(() => work(tx));
        await runner.commit(tx.takeDeferred());
        tx.committed();
        return result;
      } catch (error) {
        if (runner.begun)
          await client.query('rollback').catch((rollbackError: Error) => {
            // The connection is gone or unusable: the pool must not hand it out again.
            broken = rollbackError;
          });
        throw error;
      } finally {
        client.release(broken);
      }
    },
    version: () => undefined,
    async ping(timeoutMs = 2000) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('database ping timed out')), timeoutMs);
      });
      try {
        await Promise.race([sql`select 1`.execute(db), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    forgetOverwritten: async () => true,
    async close() {
      await db.destroy();
    },
  };
}

/** Kysely on the client a PostgreSQL write holds (its transaction). */
function heldPostgres(client: pg.PoolClient, flush: () => Promise<void>): DB {
  return new Kysely<Tables>({
    dialect: new HeldConnectionDialect(
      executingConnection(async (query) => {
        await flush();
        const result = await client.query(query.sql, query.parameters as unknown[]);
        const changes = ['INSERT', 'UPDATE', 'DELETE', 'MERGE'].includes(result.command);
        return {
          rows: result.rows,
          ...(changes ? { numAffectedRows: BigInt(result.rowCount ?? 0) } : {}),
        };
      }),
      {
        adapter: () => new PostgresAdapter(),
        compiler: () => new PostgresQueryCompiler(),
        introspector: (k) => new PostgresIntrospector(k),
      },
    ),
  });
}

/**
 * node-postgres writes each message of a parameterised query (parse, bind, describe, execute, sync) to the
 * socket on its own: five system calls and, with Nagle off, five packets per statement, which the profile of a
 * create put at 40% of the service's CPU. Corking the socket while a query is handed over sends them as one.
 */
function sendQueriesWhole(client: pg.PoolClient) {
  const stream = (
    client as unknown as {
      connection?: { stream?: NodeJS.WritableStream & { cork?(): void; uncork?(): void } };
    }
  ).connection?.stream;
  if (!stream?.cork || !stream.uncork) return;
  const query = client.query;
  client.query = function (this: pg.PoolClient, ...args: unknown[]) {
    stream.cork!();
    try {
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } finally {
      stream.uncork!();
    }
  } as typeof client.query;
}

/**
 * A Database over any Kysely instance, each write its own Kysely transaction (no group commit, no guard): tools
 * and tests that bring their own Kysely.
 */
export function overKysely(db: DB, dialect: Dialect, mail: MailSettings | null = null): Database {
  const topics = new Topics();
  return {
    db,
    mail,
    inTransaction: false,
    ...kyselyRunner(db, dialect),
    listen: (topic, fn) => topics.listen(topic, fn),
    async write(work) {
      let tx: Transaction | undefined;
      const result = await db.transaction().execute(async (trx) => {
        tx = new Transaction(kyselyRunner(trx, dialect), () => trx, topics, mail);
        const value = await work(tx);
        // SQLite: this write's new leads into the search index before it commits (search-index.ts).
        await indexPendingLeads(tx);
        return value;
      });
      tx?.committed();
      return result;
    },
    version: () => undefined,
    async ping() {
      await sql`select 1`.execute(db);
    },
    async forgetOverwritten() {
      if (dialect === 'postgres') return true;
      const { rows } = await sql<{ busy: number }>`pragma wal_checkpoint(TRUNCATE)`.execute(db);
      return rows[0]?.busy === 0;
    },
    async close() {
      await db.destroy();
    },
  };
}

class FolderProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  getMigrations(): Promise<Record<string, Migration>> {
    return migrations(this.dialect);
  }
}

/** The migrations the schema has had (Kysely's kysely_migration table); none before the first. */
async function appliedMigrations(database: Database, schema?: string): Promise<string[]> {
  const table =
    database.dialect === 'postgres' && schema
      ? sql`${sql.id(schema)}.kysely_migration`
      : sql`kysely_migration`;
  try {
    const { rows } = await sql<{ name: string }>`select name from ${table}`.execute(database.db);
    return rows.map((r) => r.name);
  } catch {
    // No table yet: a new database.
    return [];
  }
}

// Arbitrary constant: the session-level advisory lock every instance takes before migrating.
export const MIGRATION_LOCK_KEY = 7_310_512_026;

/**
 * Brings the schema up to date. On PostgreSQL several instances may call this at once: they queue on an
 * advisory lock, and all but the first find nothing left to do.
 */
export async function migrate(database: Database, schema?: string): Promise<string[]> {
  const { db, dialect } = database;
  const run = async (): Promise<string[]> => {
    // A schema a newer release has migrated (a rolling deploy: expand first, so this release still runs on it;
    // docs/operations.md, "Migrations during a rolling deploy"): nothing to do here, and nothing to refuse.
    const known = Object.keys(await new FolderProvider(dialect).getMigrations());
    const newest = known[known.length - 1] ?? '';
    const applied = await appliedMigrations(database, schema);
    if (applied.some((name) => name > newest)) return [];
    const migrator = new Migrator({
      db,
      provider: new FolderProvider(dialect),
      ...(dialect === 'postgres' && schema ? { migrationTableSchema: schema } : {}),
    });
    const { error, results } = await migrator.migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  };
  if (dialect === 'sqlite') {
    const applied = await run();
    // Leads a migration, or an earlier run that inserted them with its own SQL, left unindexed (search-index.ts).
    await database.write((tx) => indexPendingLeads(tx));
    return applied;
  }

  return db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(connection);
    try {
      if (schema) await sql`create schema if not exists ${sql.id(schema)}`.execute(connection);
      return await run();
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(connection);
    }
  });
}
