// Which index each query uses: every statement the service runs for the API's lists, a create and a status
// change, captured as sent to the database and explained there (EXPLAIN QUERY PLAN on SQLite, EXPLAIN on
// PostgreSQL after ANALYZE), on a brand of 20,000 seeded leads with some work items. Ends with every index of the
// tables a create writes to, and the requests whose plans use it: an index no plan names costs every create
// something and buys nothing.
//
//   npx tsx bench/index-plans.ts [--db sqlite,postgres] [--leads 20000] [--out bench/results/<date>-index-plans.md]
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { createApiKey } from '../src/accounts/api-keys.js';
import { createBrand } from '../src/accounts/brands.js';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/platform/config.js';
import { openDatabase } from '../src/platform/db/database.js';
import { encodeCursor } from '../src/shared/paging.js';
import type { Storage } from './processes.js';
import { databaseConfig, seededLeadId, seededReceivedAt, seedLeads } from './seed.js';

const { values: flags } = parseArgs({
  options: { db: { type: 'string' }, leads: { type: 'string' }, out: { type: 'string' } },
});
const postgresUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
const databases = (flags.db ?? (postgresUrl ? 'sqlite,postgres' : 'sqlite')).split(',') as (
  | 'sqlite'
  | 'postgres'
)[];
const LEADS = Number(flags.leads ?? 20_000);
const out =
  flags.out ?? path.join('bench/results', `${new Date().toISOString().slice(0, 10)}-index-plans.md`);

/** The tables a create writes to: their indexes are what every create pays for. */
const WRITE_PATH_TABLES = [
  'leads',
  'customers',
  'addresses',
  'lead_status_history',
  'events',
  'webhook_deliveries',
  'email_outbox',
];

interface Captured {
  sql: string;
  params: unknown[];
}

// ---- capturing what the service sends to the database -----------------------------------------------------

let capturing: Captured[] | null = null;

const pgQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0] as string | { text?: string; values?: unknown[] };
  if (capturing) {
    const text = typeof first === 'string' ? first : first?.text;
    const values = typeof first === 'string' ? (args[1] as unknown[]) : first?.values;
    if (text) capturing.push({ sql: text, params: values ?? [] });
  }
  return (pgQuery as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;

const prepare = BetterSqlite3.prototype.prepare;
BetterSqlite3.prototype.prepare = function (this: BetterSqlite3.Database, source: string) {
  const statement = prepare.call(this, source) as BetterSqlite3.Statement;
  for (const method of ['all', 'get', 'run', 'iterate'] as const) {
    const original = statement[method] as (...a: unknown[]) => unknown;
    (statement as unknown as Record<string, unknown>)[method] = (...params: unknown[]) => {
      capturing?.push({ sql: source, params: params.flat() });
      return original.apply(statement, params);
    };
  }
  return statement;
} as typeof BetterSqlite3.prototype.prepare;

// ---- the requests -----------------------------------------------------------------------------------------

function requests(customerId: string, assigneeId: string): [string, string, string, unknown?][] {
  const middle = Math.floor(LEADS / 2);
  const cursor = encodeCursor({ time: seededReceivedAt(middle), id: seededLeadId(middle) }, 'desc');
  const after = new Date(seededReceivedAt(middle)).toISOString();
  return [
    ['leads: first page', 'GET', '/v1/leads?limit=100'],
    ['leads: deep cursor', 'GET', `/v1/leads?limit=100&cursor=${cursor}`],
    ['leads: receivedAfter, asc', 'GET', `/v1/leads?limit=100&order=asc&receivedAfter=${after}`],
    ['leads: updatedAfter', 'GET', `/v1/leads?limit=100&updatedAfter=${after}`],
    ['leads: status=quoted', 'GET', '/v1/leads?limit=100&status=quoted'],
    ['leads: priority=high', 'GET', '/v1/leads?limit=100&priority=high'],
    ['leads: source=form', 'GET', '/v1/leads?limit=100&source=form'],
    ['leads: customerId', 'GET', `/v1/leads?limit=100&customerId=${customerId}`],
    ['leads: q (search)', 'GET', '/v1/leads?limit=25&q=Jansen'],
    ['work items: first page', 'GET', '/v1/work-items?limit=100'],
    [
      'work items: scheduledFrom/To',
      'GET',
      '/v1/work-items?limit=100&scheduledFrom=2020-01-01T00:00:00Z&scheduledTo=2030-01-01T00:00:00Z',
    ],
    ['work items: assigneeId', 'GET', `/v1/work-items?limit=100&assigneeId=${assigneeId}`],
    ['one lead', 'GET', `/v1/leads/${seededLeadId(middle)}`],
    ['customers', 'GET', '/v1/customers?limit=100'],
    ['addresses', 'GET', '/v1/addresses?limit=100'],
    ['events', 'GET', '/v1/events?limit=100'],
    ['events: type', 'GET', '/v1/events?limit=100&type=lead.created'],
    [
      'create (new customer)',
      'POST',
      '/v1/leads',
      {
        street: 'Keizersgracht',
        streetNumber: '9',
        postalCode: '1015 CJ',
        city: 'Amsterdam',
        customerName: 'Plan Pieters',
        email: `plan-${randomBytes(3).toString('hex')}@example.com`,
        title: 'Leaking tap',
      },
    ],
    ['status change', 'PATCH', `/v1/leads/${seededLeadId(middle + 1)}`, { status: 'quoted' }],
  ];
}

/** A PostgreSQL statement with its $n parameters written in as quoted literals (for EXPLAIN). */
function inline(statement: Captured): string {
  return statement.sql.replace(/\$(\d+)/g, (_, n: string) => {
    const value = statement.params[Number(n) - 1];
    if (value === null || value === undefined) return 'null';
    if (typeof value === 'number' || typeof value === 'bigint') return String(value);
    if (Array.isArray(value)) return `'{${value.map((v) => String(v).replace(/'/g, "''")).join(',')}}'`;
    return `'${String(value).replace(/'/g, "''")}'`;
  });
}

/** A statement's plan, as the database explains it with the parameters it was sent with. */
async function explain(
  explainer: { sqlite?: BetterSqlite3.Database; db: ReturnType<typeof openDatabase> },
  captured: Captured,
): Promise<string[]> {
  if (explainer.sqlite) {
    const rows = explainer.sqlite.prepare(`explain query plan ${captured.sql}`).all(...captured.params) as {
      detail: string;
    }[];
    return rows.map((r) => r.detail);
  }
  const { rows } = await sql<{
    'QUERY PLAN': string;
  }>`${sql.raw('explain (costs off) ')}${sql.raw(captured.sql)}`
    .execute(explainer.db.db)
    .catch(() => ({ rows: [] as { 'QUERY PLAN': string }[] }));
  return rows.map((r) => r['QUERY PLAN']);
}

async function plansFor(dialect: 'sqlite' | 'postgres'): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-plans-'));
  const schema = `plans_${randomBytes(4).toString('hex')}`;
  const storage: Storage =
    dialect === 'sqlite' ? { dialect, dataDir } : { dialect, dataDir, databaseUrl: postgresUrl, schema };
  const env: Record<string, string> = { DATA_DIR: dataDir };
  if (dialect === 'postgres') Object.assign(env, { DATABASE_URL: postgresUrl!, DATABASE_SCHEMA: schema });
  const config = loadConfig(env);
  const app = await buildApp(
    { ...config, responseCacheBytes: 0 },
    {
      logger: false,
      defaultMetrics: false,
      webhookWorker: false,
      mailWorker: false,
    },
  );
  const lines: string[] = [];
  try {
    await app.ready();
    const brandId = (await createBrand(app.deps.database, { name: 'Plans Plumbing', country: 'NL' })).id;
    const { key } = await createApiKey(app.deps.database, {
      brandId,
      name: 'plans',
      scopes: ['full'],
      readsPerMinute: 1_000_000,
      writesPerMinute: 1_000_000,
    });
    await seedLeads(storage, brandId, 0, LEADS);
    const headers = { 'x-api-key': key };
    // Some work items, so the work-item queries have rows to plan for.
    for (let n = 0; n < 50; n++) {
      await app.inject({
        method: 'PATCH',
        url: `/v1/leads/${seededLeadId(n * 7)}`,
        headers,
        payload: { status: 'scheduled', scheduledFor: new Date(Date.UTC(2026, 0, 1 + n)).toISOString() },
      });
    }
    const explainer = openDatabase(databaseConfig(storage), 'NORMAL');
    const config = databaseConfig(storage);
    const raw = config.dialect === 'sqlite' ? new BetterSqlite3(config.file) : undefined;
    try {
      // As autovacuum would on PostgreSQL; SQLite keeps the planner defaults the service runs with.
      if (dialect === 'postgres') await sql`analyze`.execute(explainer.db);
      const customerId = String(
        (await app.inject({ method: 'GET', url: '/v1/customers?limit=1', headers })).json().data[0].id,
      );
      const assigneeId = 'usr_00000000000000000000000000';
      const used = new Map<string, Set<string>>();
      for (const [name, method, url, payload] of requests(customerId, assigneeId)) {
        capturing = [];
        const res = await app.inject({ method: method as 'GET', url, headers, payload: payload as never });
        const captured = capturing;
        capturing = null;
        lines.push(
          `### ${name}: \`${method} ${url.length > 90 ? `${url.slice(0, 90)}…` : url}\` → ${res.statusCode}`,
          '',
        );
        for (const statement of captured) {
          const text = statement.sql.replace(/\s+/g, ' ').trim();
          if (!/^(select|insert|update|delete|with)\b/i.test(text) || /pg_advisory|^select 1$/i.test(text))
            continue;
          // PostgreSQL's $n placeholders: explained with the values inlined as literals of unknown type.
          const plan = await explain(
            { sqlite: raw, db: explainer },
            dialect === 'postgres' ? { sql: inline(statement), params: [] } : statement,
          );
          lines.push(`- \`${text.length > 160 ? `${text.slice(0, 160)}…` : text}\``);
          for (const step of plan) lines.push(`  - ${step}`);
          for (const step of plan) {
            for (const match of step.matchAll(
              /(?:USING (?:COVERING )?INDEX|Index (?:Only )?Scan(?: Backward)? using|Bitmap Index Scan on) ([a-z_0-9]+)/g,
            )) {
              const index = match[1]!;
              if (!used.has(index)) used.set(index, new Set());
              used.get(index)!.add(name);
            }
          }
        }
        lines.push('');
      }
      // Every index of the write-path tables, and which of the requests above use it.
      const indexes =
        dialect === 'sqlite'
          ? (
              await sql<{
                name: string;
                tbl_name: string;
              }>`select name, tbl_name from sqlite_master where type = 'index' and sql is not null`.execute(
                explainer.db,
              )
            ).rows
          : (
              await sql<{
                name: string;
                tbl_name: string;
              }>`select indexname as name, tablename as tbl_name from pg_indexes where schemaname = ${schema} and indexname not like '%_pkey'`.execute(
                explainer.db,
              )
            ).rows;
      const table = ['| table | index | used by |', '|---|---|---|'];
      for (const index of indexes
        .filter((i) => WRITE_PATH_TABLES.includes(i.tbl_name))
        .sort((a, b) => `${a.tbl_name}.${a.name}`.localeCompare(`${b.tbl_name}.${b.name}`))) {
        const by = used.get(index.name);
        table.push(
          `| ${index.tbl_name} | ${index.name} | ${by ? [...by].join('; ') : '**none of these requests**'} |`,
        );
      }
      return [`## ${dialect}`, '', ...table, '', ...lines].join('\n');
    } finally {
      raw?.close();
      await explainer.close();
    }
  } finally {
    if (dialect === 'postgres')
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(app.deps.database.db);
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const sections: string[] = [];
for (const dialect of databases) sections.push(await plansFor(dialect));
const text = `# Query plans and indexes (${LEADS.toLocaleString('en')} seeded leads)\n\nGenerated by \`npx tsx bench/index-plans.ts\`.\n\n${sections.join('\n\n')}\n`;
fs.writeFileSync(out, text);
console.log(`written to ${out}`);
