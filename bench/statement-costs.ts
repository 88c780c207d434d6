// Where a create's database time goes, statement by statement: times every statement in process (app.inject,
// one create at a time, so each PostgreSQL statement is a full round trip) and prints each SQL text's time per
// create, most first. The measured floor of a create's storage work on this machine. --concurrency N sends N
// creates at once, in waves: on SQLite they share a group commit (write-batch.ts), which shows what a group's
// shared work (the COMMIT, the search index's one flush) costs per create.
//
//   npx tsx bench/statement-costs.ts [--db sqlite|postgres] [--count 2000] [--concurrency 1]
// PostgreSQL: BENCH_DATABASE_URL or TEST_DATABASE_URL (a schema of its own, dropped afterwards).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import type pg from 'pg';
import { createApiKey } from '../src/accounts/api-keys.js';
import { createBrand } from '../src/accounts/brands.js';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/platform/config.js';

const { values: flags } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    count: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '1' },
  },
});
const dialect = flags.db === 'postgres' ? 'postgres' : 'sqlite';
const n = Number(flags.count);
const concurrency = Math.max(1, Number(flags.concurrency));
const totals = new Map<string, { ns: bigint; calls: number }>();
const add = (text: string, start: bigint) => {
  const t = totals.get(text) ?? { ns: 0n, calls: 0 };
  t.ns += process.hrtime.bigint() - start;
  t.calls++;
  totals.set(text, t);
};

if (dialect === 'sqlite') {
  // better-sqlite3 is synchronous: each call's own time.
  const probe = new SQLite(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, unknown>;
  for (const method of ['run', 'all', 'get']) {
    const original = proto[method] as (...args: unknown[]) => unknown;
    proto[method] = function (this: { source: string }, ...args: unknown[]) {
      const start = process.hrtime.bigint();
      try {
        return original.apply(this, args);
      } finally {
        add(this.source, start);
      }
    };
  }
} else {
  // node-postgres: from the call to the answer (a round trip, the server's work and the client's parsing).
  const { Client } = createRequire(import.meta.url)('pg') as typeof pg;
  const original = Client.prototype.query as (...args: unknown[]) => unknown;
  Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text: string };
    const text = typeof config === 'string' ? config : config.text;
    const start = process.hrtime.bigint();
    const result = original.apply(this, args);
    if (result instanceof Promise) result.then(() => add(text, start)).catch(() => {});
    // A query object of its own (a write's statements, src/platform/db/pg-transaction.ts) is returned as it is, and
    // emits 'end' with its results.
    else if (result && typeof (result as { once?: unknown }).once === 'function') {
      (result as { once(event: string, listener: () => void): void }).once('end', () => add(text, start));
    }
    return result;
  } as typeof Client.prototype.query;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-statements-'));
const schema = `bench_statements_${randomBytes(4).toString('hex')}`;
const url = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
if (dialect === 'postgres' && !url)
  throw new Error('--db postgres needs BENCH_DATABASE_URL or TEST_DATABASE_URL');
const config = loadConfig({
  DATA_DIR: dir,
  LOG_LEVEL: 'warn',
  RATE_LIMIT_WRITES_PER_MINUTE: '1000000',
  // Statements are timed where they run: on this thread (SQLite's write thread would run them unseen).
  SQLITE_WRITE_THREAD: 'off',
  ...(dialect === 'postgres' ? { DATABASE_URL: url, DATABASE_SCHEMA: schema } : {}),
});
const app = await buildApp(config, { logger: false });
await app.ready();
try {
  const brand = await createBrand(app.deps.database, { name: 'Bench', country: 'NL' });
  const { key } = await createApiKey(app.deps.database, {
    brandId: brand.id,
    name: 'bench',
    scopes: ['full'],
  });
  totals.clear();
  const started = process.hrtime.bigint();
  const create = async (i: number) => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/leads',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: {
        street: 'Keizersgracht',
        streetNumber: String((i % 500) + 1),
        postalCode: '1015 CJ',
        city: 'Amsterdam',
        customerName: `Customer ${i}`,
        email: `c${i}@example.com`,
        phone: `+31 6 ${String(10000000 + i)}`,
        title: 'Leaking tap in the kitchen',
        description: `The kitchen tap drips constantly since last week; request ${i}.`,
        category: 'plumbing',
        priority: 'high',
        budgetQuote: 'EUR 100-250',
      },
    });
    if (res.statusCode !== 201) throw new Error(res.body);
  };
  for (let i = 0; i < n; i += concurrency) {
    await Promise.all(Array.from({ length: Math.min(concurrency, n - i) }, (_, k) => create(i + k)));
  }
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  const rows = [...totals].sort((a, b) => Number(b[1].ns - a[1].ns));
  const sum = rows.reduce((s, [, t]) => s + Number(t.ns), 0) / 1e6;
  console.log(
    `${dialect}: ${n} creates ${concurrency === 1 ? 'one' : concurrency} at a time: ${(wall / n).toFixed(3)} ms each, of which statements ${(sum / n).toFixed(3)} ms (${rows.length} texts)`,
  );
  for (const [text, t] of rows.slice(0, 20)) {
    console.log(
      `${((Number(t.ns) / 1e6 / n) * 1000).toFixed(1).padStart(7)} µs/create ${String(t.calls).padStart(6)} calls  ${text.replace(/\s+/g, ' ').slice(0, 110)}`,
    );
  }
} finally {
  if (dialect === 'postgres') await sql`drop schema ${sql.id(schema)} cascade`.execute(app.deps.database.db);
  await app.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
