// What the dashboard's "1–25 of 312" costs: countLeads against the listLeads page it goes with, on 100,000 leads,
// for the filters people use. Median of repeated runs, straight on the domain functions (no HTTP, no cache).
//
//   npx tsx bench/list-count.ts                     # SQLite (a file in a temporary directory)
//   npx tsx bench/list-count.ts --db postgres       # TEST_DATABASE_URL or BENCH_DATABASE_URL, own schema
//   npx tsx bench/list-count.ts --leads 1000000 --runs 10
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { createBrand } from '../src/accounts/brands.js';
import { countLeads, type ExportQuery, listLeads } from '../src/leads/index.js';
import { migrate, openDatabase } from '../src/platform/db/database.js';
import { decodeCursor } from '../src/shared/paging.js';
import { insertBulkLeads } from '../test/bulk-leads.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const dialect = (arg('db') ?? 'sqlite') as 'sqlite' | 'postgres';
const leads = Number(arg('leads') ?? 100_000);
const runs = Number(arg('runs') ?? 30);

async function median(fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'list-count-'));
const schema = `bench_count_${randomBytes(4).toString('hex')}`;
const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const database = openDatabase(
  dialect === 'sqlite'
    ? { dialect: 'sqlite', file: path.join(dir, 'bench.sqlite') }
    : { dialect: 'postgres', url: url!, schema, poolMax: 2 },
  'NORMAL',
);
try {
  await migrate(database, dialect === 'postgres' ? schema : undefined);
  const brand = await createBrand(database, { name: 'Bench', country: 'NL' });
  // Most leads in request, some quoted, and another brand of the same size in the same tables.
  await insertBulkLeads(database, brand.id, { tag: 'r', count: Math.round(leads * 0.9) });
  await insertBulkLeads(database, brand.id, { tag: 'q', count: Math.round(leads * 0.1), status: 'quoted' });
  const other = await createBrand(database, { name: 'Other', country: 'NL' });
  await insertBulkLeads(database, other.id, { tag: 'o', count: leads });
  if (dialect === 'postgres') await sql`analyze`.execute(database.db);

  const middle = await listLeads(database, brand.id, 'lead', {
    limit: Math.round(leads / 2),
    order: 'desc',
  });
  const cases: { name: string; query: ExportQuery; cursor?: string }[] = [
    { name: 'all leads', query: { order: 'desc' } },
    { name: 'all leads, page in the middle', query: { order: 'desc' }, cursor: middle.nextCursor! },
    { name: 'status=quoted', query: { order: 'desc', status: 'quoted' } },
    {
      name: 'priority=medium, source=website',
      query: { order: 'desc', priority: 'medium', source: ['website'] },
    },
    { name: 'search "job 4242"', query: { order: 'desc', search: 'job 4242' } },
  ];
  console.log(
    `${dialect}, ${leads.toLocaleString('en')} leads in the brand (and as many in another), median of ${runs}`,
  );
  console.log('| filter | list page (25) ms | count ms | count / list |');
  console.log('|---|---:|---:|---:|');
  for (const c of cases) {
    const listMs = await median(() =>
      listLeads(database, brand.id, 'lead', { ...c.query, limit: 25, cursor: c.cursor }),
    );
    const position = c.cursor ? decodeCursor(c.cursor) : undefined;
    const countMs = await median(() => countLeads(database, brand.id, 'lead', c.query, position));
    const { total, before } = await countLeads(database, brand.id, 'lead', c.query, position);
    console.log(
      `| ${c.name} (${total.toLocaleString('en')}${position ? `, ${before.toLocaleString('en')} before` : ''}) | ${listMs.toFixed(2)} | ${countMs.toFixed(2)} | ${(countMs / listMs).toFixed(1)} |`,
    );
  }
} finally {
  if (dialect === 'postgres') await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(database.db);
  await database.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
