// Does a CSV export hold its rows in memory? Exports 10,000 and 100,000 leads over HTTP, each in a fresh process,
// and compares how far the service's RSS rises above what it was before the export. Flat memory means the two
// rises are about the same; a buffered export would rise ten times as much for ten times the rows.
//
//   npx tsx bench/export-memory.ts                      # SQLite (a file in a temporary directory)
//   npx tsx bench/export-memory.ts --db postgres        # TEST_DATABASE_URL or BENCH_DATABASE_URL, own schema
//   npx tsx bench/export-memory.ts --sizes 10000,100000,300000
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { createApiKey } from '../src/accounts/api-keys.js';
import { createBrand } from '../src/accounts/brands.js';
import { buildApp } from '../src/app.js';
import { type Config, loadConfig } from '../src/platform/config.js';
import { insertBulkLeads } from '../test/bulk-leads.js';

interface Result {
  dialect: string;
  leads: number;
  bytes: number;
  rows: number;
  seconds: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  rssRiseMb: number;
  heapPeakMb: number;
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function child(leads: number, dialect: 'sqlite' | 'postgres'): Promise<Result> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-memory-'));
  const schema = `bench_export_${randomBytes(4).toString('hex')}`;
  const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const config: Config = {
    ...loadConfig({}),
    port: 0,
    logLevel: 'silent',
    database:
      dialect === 'sqlite'
        ? { dialect: 'sqlite', file: path.join(dir, 'bench.sqlite') }
        : { dialect: 'postgres', url: url!, schema, poolMax: 4 },
    rateLimit: { readsPerMinute: 1_000_000, writesPerMinute: 1_000_000, failedAuthPerMinute: 1_000_000 },
  };
  const app = await buildApp(config, { logger: false, defaultMetrics: false, webhookWorker: false });
  try {
    const brand = await createBrand(app.deps.database, { name: 'Bench', country: 'NL' });
    const { key } = await createApiKey(app.deps.database, {
      brandId: brand.id,
      name: 'bench',
      scopes: ['leads:read'],
    });
    await insertBulkLeads(app.deps.database, brand.id, { tag: 'b', count: leads });
    if (dialect === 'postgres') await sql`analyze`.execute(app.deps.database.db);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as AddressInfo).port;
    // A warm-up export of a few rows, so code loading and statement preparation are not counted as the export's.
    await download(port, key, '?receivedBefore=2025-01-01T00:01:00.000Z');
    globalThis.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = process.memoryUsage().rss;
    let peak = before;
    let heapPeak = 0;
    const sampler = setInterval(() => {
      const usage = process.memoryUsage();
      peak = Math.max(peak, usage.rss);
      heapPeak = Math.max(heapPeak, usage.heapUsed);
    }, 5);
    const started = performance.now();
    const { bytes, rows } = await download(port, key, '');
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    if (rows !== leads + 1) throw new Error(`expected ${leads + 1} lines, got ${rows}`);
    return {
      dialect,
      leads,
      bytes,
      rows,
      seconds: Math.round(seconds * 100) / 100,
      rssBeforeMb: mb(before),
      rssPeakMb: mb(peak),
      rssRiseMb: mb(peak - before),
      heapPeakMb: mb(heapPeak),
    };
  } finally {
    if (dialect === 'postgres') {
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(app.deps.database.db);
    }
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Reads the export as a client would, keeping nothing but the counts. Records are counted by CRLF: the bulk leads'
 * description holds a bare LF, never a CRLF, so every CRLF ends a record.
 */
function download(port: number, key: string, query: string): Promise<{ bytes: number; rows: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(
        { host: '127.0.0.1', port, path: `/v1/exports/leads.csv${query}`, headers: { 'x-api-key': key } },
        (res) => {
          if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
          let bytes = 0;
          let rows = 0;
          let lastByte = 0;
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            for (let i = 0; i < chunk.length; i++) {
              if (chunk[i] === 10 && (i > 0 ? chunk[i - 1] : lastByte) === 13) rows++;
            }
            lastByte = chunk[chunk.length - 1]!;
          });
          res.on('end', () => resolve({ bytes, rows }));
          res.on('error', reject);
        },
      )
      .on('error', reject);
  });
}

async function main() {
  const self = fileURLToPath(import.meta.url);
  const childSize = arg('child');
  const dialect = (arg('db') ?? 'sqlite') as 'sqlite' | 'postgres';
  if (childSize) {
    process.stdout.write(`${JSON.stringify(await child(Number(childSize), dialect))}\n`);
    return;
  }
  const sizes = (arg('sizes') ?? '10000,100000').split(',').map(Number);
  const results: Result[] = [];
  for (const size of sizes) {
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', self, '--child', String(size), '--db', dialect],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1024 * 1024 },
    );
    const result = JSON.parse(out.trim().split('\n').at(-1)!) as Result;
    results.push(result);
    console.log(
      `${result.dialect} ${result.leads.toLocaleString('en')} leads: ${mb(result.bytes)} MB of CSV in ${result.seconds} s; ` +
        `RSS ${result.rssBeforeMb} MB before, peak ${result.rssPeakMb} MB (rise ${result.rssRiseMb} MB); heap peak ${result.heapPeakMb} MB`,
    );
  }
  const first = results[0]!;
  for (const result of results.slice(1)) {
    console.log(
      `${result.leads / first.leads}x the leads: ${Math.round((result.bytes / first.bytes) * 10) / 10}x the bytes, ` +
        `RSS rise ${Math.round((result.rssRiseMb / Math.max(first.rssRiseMb, 0.1)) * 100) / 100}x, ` +
        `heap peak ${Math.round((result.heapPeakMb / first.heapPeakMb) * 100) / 100}x`,
    );
  }
}

await main();
