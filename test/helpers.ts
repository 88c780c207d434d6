// Builds the app against real databases: SQLite in memory always, PostgreSQL when TEST_DATABASE_URL is set.
// Under CI=true a missing TEST_DATABASE_URL fails the run instead of skipping PostgreSQL. The quick loop
// (`npm run test:quick`, TEST_QUICK=1) is SQLite only whatever is set, and CI=true asks nothing of it.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { createApiKey, revokeApiKey, type Scope } from '../src/accounts/api-keys.js';
import { createBrand } from '../src/accounts/brands.js';
import { type App, type BuildOptions, buildApp } from '../src/app.js';
import { type Config, type DatabaseConfig, loadConfig } from '../src/platform/config.js';
import { type Database, type DB, MIGRATION_LOCK_KEY, openDatabase } from '../src/platform/db/database.js';
import { WINDOW_MS } from '../src/platform/rate-limit/limiter.js';
import { type ApiClient, apiClient } from './api.js';
import { CI, QUICK } from './quick.js';

export { CI, QUICK, quickRuns } from './quick.js';

export type TestDialect = 'sqlite' | 'postgres';

export function dialects(): TestDialect[] {
  if (QUICK) return ['sqlite'];
  if (!process.env.TEST_DATABASE_URL) {
    if (CI) throw new Error('CI=true but TEST_DATABASE_URL is not set: PostgreSQL tests must run in CI');
    return ['sqlite'];
  }
  return ['sqlite', 'postgres'];
}

export function testSchemaName(): string {
  return `t_${randomBytes(6).toString('hex')}`;
}

export function testDatabaseConfig(dialect: TestDialect, schema = testSchemaName()): DatabaseConfig {
  return dialect === 'sqlite'
    ? { dialect: 'sqlite', file: ':memory:' }
    : { dialect: 'postgres', url: process.env.TEST_DATABASE_URL!, schema, poolMax: 10 };
}

/**
 * A database the app cannot reach: SQLite that `cut()` closes (call it after app.ready()), or PostgreSQL on a
 * port where nothing listens. `dispose()` once the app is closed.
 */
export function unreachableDatabase(dialect: TestDialect): {
  database: Database;
  cut(): Promise<void>;
  dispose(): Promise<void>;
} {
  const database =
    dialect === 'sqlite'
      ? openDatabase({ dialect: 'sqlite', file: ':memory:' })
      : openDatabase({
          dialect: 'postgres',
          url: 'postgres://postgres@127.0.0.1:1/test',
          schema: testSchemaName(),
          poolMax: 2,
        });
  return {
    database,
    async cut() {
      if (dialect !== 'sqlite') return;
      // Kysely opens the SQLite handle on first use; only then does close() shut it.
      await sql`select 1`.execute(database.db);
      await database.close();
    },
    async dispose() {
      if (dialect === 'postgres') await database.close();
    },
  };
}

/** Where test apps keep attachments' bytes, one folder each (removed by TestContext.close). */
const TEST_FILES = 'lead-intake-test-files';

/** The rate limits of testConfig: as good as none. */
const UNLIMITED = { readsPerMinute: 1_000_000, writesPerMinute: 1_000_000, failedAuthPerMinute: 1_000_000 };

/** testConfig's rate limits, with website form posts limited to `formPostsPerMinute` a minute (by default none). */
export function formRateLimit(formPostsPerMinute = 1_000_000): Config['rateLimit'] {
  return { ...UNLIMITED, formPostsPerMinute };
}

export function testConfig(dialect: TestDialect, overrides: Partial<Config> = {}): Config {
  const base = loadConfig({});
  return {
    ...base,
    // Each app its own folder for attachments' bytes: never the working tree's ./data, never another test's.
    attachments: {
      ...base.attachments,
      storage: {
        kind: 'disk',
        dir: path.join(os.tmpdir(), 'lead-intake-test-files', randomBytes(6).toString('hex')),
      },
    },
    database: testDatabaseConfig(dialect),
    keyCacheTtlMs: 0,
    logLevel: 'silent',
    sqliteSynchronous: 'NORMAL',
    // Suites send hundreds of requests with one key; rate-limit tests set their own budgets.
    rateLimit: { ...UNLIMITED },
    ...overrides,
  };
}

/** Drops a test's PostgreSQL schema (no-op on SQLite). */
export async function dropSchema(app: App): Promise<void> {
  const database = app.deps.config.database;
  if (database.dialect === 'postgres') await dropSchemaNamed(app.deps.database.db, database.schema);
}

/**
 * Drops a schema while holding the migration lock: migrating introspects every schema of the database, and a
 * schema dropped in the middle of that (by a test file running in parallel) makes it fail.
 */
export async function dropSchemaNamed(db: DB, schema: string): Promise<void> {
  await db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(connection);
    try {
      // A DROP ... CASCADE takes a lock on every object of the schema; a connection of the closing app still
      // ending its work can make PostgreSQL pick the drop as a deadlock's victim (40P01). The drop is then
      // simply tried again: nothing of it was done.
      for (let attempt = 1; ; attempt++) {
        try {
          await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(connection);
          break;
        } catch (error) {
          if ((error as { code?: string }).code !== '40P01' || attempt === 5) throw error;
          await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
        }
      }
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(connection);
    }
  });
}

export const ALL_SCOPES: Scope[] = ['leads:read', 'leads:write', 'work-items:read', 'customers:read', 'full'];

export interface TestContext {
  app: App;
  dialect: TestDialect;
  brandId: string;
  otherBrandId: string;
  /** One key per scope, plus `all` (every scope) and `other` (full, of the other brand). */
  keys: Record<Scope | 'other' | 'revoked' | 'expired', string>;
  keyIds: Record<string, string>;
  /** Requests to the app with the full key (test/api.ts); `ctx.api.as(key)` for another. */
  api: ApiClient;
  close(): Promise<void>;
  /** POST /v1/leads with the full key (unless another is given) and a valid body merged with `fields`. */
  createLead(fields?: Record<string, unknown>, key?: string): Promise<Record<string, unknown>>;
  setStatus(id: string, status: string): Promise<void>;
}

let counter = 0;
export function validLead(fields: Record<string, unknown> = {}): Record<string, unknown> {
  counter++;
  return {
    street: 'Keizersgracht',
    streetNumber: '123',
    postalCode: '1015 CJ',
    city: 'Amsterdam',
    customerName: `Customer ${counter}`,
    email: `customer${counter}-${randomBytes(3).toString('hex')}@example.com`,
    title: `Leaking tap ${counter}`,
    ...fields,
  };
}

/**
 * People who send a website form: each call gives the next one's fields (`${name} ${n}` and the email address
 * `email(n)` for n = 1, 2, …), all with the same address in Amsterdam and the same job, then `extra`.
 */
export function formPeople<V = string>(name: string, email: (n: number) => string) {
  let n = 0;
  return (extra: Record<string, V> = {}) => {
    n++;
    return {
      customerName: `${name} ${n}`,
      email: email(n),
      street: 'Damrak',
      streetNumber: '1',
      postalCode: '1012 LG',
      city: 'Amsterdam',
      title: 'Boiler broken',
      ...extra,
    };
  };
}

export async function createTestContext(
  dialect: TestDialect,
  overrides: Partial<Config> = {},
  options: BuildOptions = {},
): Promise<TestContext> {
  const app = await buildApp(testConfig(dialect, overrides), {
    logger: false,
    defaultMetrics: false,
    ...options,
  });
  await app.ready();
  const database = app.deps.database;
  const db = database.db;
  const brand = await createBrand(database, { language: 'en', name: 'Acme Plumbing', country: 'NL' });
  const other = await createBrand(database, { language: 'en', name: 'Other Builders', country: 'BE' });
  const keys = {} as TestContext['keys'];
  const keyIds: Record<string, string> = {};
  for (const scope of ALL_SCOPES) {
    const created = await createApiKey(database, {
      brandId: brand.id,
      name: `key ${scope}`,
      scopes: [scope],
    });
    keys[scope] = created.key;
    keyIds[scope] = created.id;
  }
  const otherKey = await createApiKey(database, { brandId: other.id, name: 'other', scopes: ['full'] });
  keys.other = otherKey.key;
  const revoked = await createApiKey(database, { brandId: brand.id, name: 'revoked', scopes: ['full'] });
  await revokeApiKey(database, revoked.id);
  keys.revoked = revoked.key;
  const expiring = await createApiKey(database, {
    brandId: brand.id,
    name: 'expired',
    scopes: ['full'],
    expiresAt: new Date(Date.now() + 1000),
  });
  await db
    .updateTable('api_keys')
    .set({ expires_at: Date.now() - 1000 })
    .where('id', '=', expiring.id)
    .execute();
  keys.expired = expiring.key;

  const api = apiClient(app, keys.full);
  const ctx: TestContext = {
    app,
    api,
    dialect,
    brandId: brand.id,
    otherBrandId: other.id,
    keys,
    keyIds,
    async close() {
      await dropSchema(app);
      await app.close();
      const files = app.deps.config.attachments.storage;
      if (files.kind === 'disk' && files.dir.includes(TEST_FILES))
        await fs.rm(files.dir, { recursive: true, force: true });
    },
    async createLead(fields = {}, key = keys.full) {
      const res = await api.post('/v1/leads', validLead(fields), { key });
      if (res.statusCode !== 201) throw new Error(`createLead failed: ${res.statusCode} ${res.body}`);
      return res.json();
    },
    async setStatus(id, status) {
      const res = await api.patch(`/v1/leads/${id}`, { status });
      if (res.statusCode !== 200) throw new Error(`setStatus failed: ${res.statusCode} ${res.body}`);
    },
  };
  return ctx;
}

/**
 * TEST_REDIS_URL, or undefined when Redis tests should be skipped (always in the quick loop). Under CI=true a
 * missing URL fails the run.
 */
export function testRedisUrl(): string | undefined {
  if (QUICK) return undefined;
  if (!process.env.TEST_REDIS_URL && CI) {
    throw new Error('CI=true but TEST_REDIS_URL is not set: Redis tests must run in CI');
  }
  return process.env.TEST_REDIS_URL || undefined;
}

/**
 * Webhook settings for tests: local receivers allowed, short retry delays. The timeout stays generous so a busy
 * machine does not turn a slow in-process receiver into a retry (tests of timeouts set their own).
 */
export const TEST_WEBHOOKS: Config['webhooks'] = {
  allowHttp: true,
  allowPrivate: true,
  timeoutMs: 5000,
  retryBaseMs: 20,
  retryWindowMs: 24 * 60 * 60 * 1000,
  pollIntervalMs: 50,
};

type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/** Polls `check` until it returns something truthy; fails with `what` after timeoutMs. */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  what: string,
  timeoutMs = 10_000,
  intervalMs = 25,
): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as Truthy<T>;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Resolves once Date.now() has moved past the millisecond it was called in: for a test whose rows are ordered
 * by their time, so two made one after the other never share it (a fast machine makes several in one
 * millisecond, and ties fall to random ids).
 */
export async function nextMillisecond(): Promise<void> {
  const start = Date.now();
  while (Date.now() === start) await new Promise((resolve) => setTimeout(resolve, 1));
}

/** Rate-limit counts restart each minute: start a burst early enough in a window that it ends in the same one. */
export async function awayFromWindowEdge(needMs = 5000): Promise<void> {
  const left = WINDOW_MS - (Date.now() % WINDOW_MS);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/**
 * Migrates a test database up to and including the named migration, as the service would (on PostgreSQL under the
 * lock every migration takes, in the test's own schema): the state a migration test starts from.
 */
export async function migrateUpTo(
  database: import('../src/platform/db/database.js').Database,
  dialect: TestDialect,
  schema: string,
  name: string,
): Promise<void> {
  const { Migrator, sql } = await import('kysely');
  const { MIGRATION_LOCK_KEY } = await import('../src/platform/db/database.js');
  const { migrations } = await import('../src/platform/db/migration-files.js');
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: () => migrations(dialect) },
    ...(dialect === 'postgres' ? { migrationTableSchema: schema } : {}),
  });
  const run = async () => {
    const { error } = await migrator.migrateTo(name);
    if (error) throw error;
  };
  if (dialect === 'sqlite') return run();
  await database.db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(connection);
    try {
      await sql`create schema if not exists ${sql.id(schema)}`.execute(connection);
      await run();
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(connection);
    }
  });
}

/** A free port on 127.0.0.1, for a server a test starts (its PUBLIC_URL must name the real port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
