// Webhook delivery latency: from the commit of a new lead to its event arriving at a receiver, over many events.
//
//   npx tsx bench/webhook-latency.ts [--events 1000] [--concurrency 1]
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/webhook-latency.ts
//
// The service listens on a real port with its delivery worker, on SQLite (a temporary file; SQLITE_SYNCHRONOUS as
// configured, FULL by default) or
// PostgreSQL (a temporary schema). Leads are created over HTTP; a receiver on 127.0.0.1 answers 200. The commit
// time of each lead is taken where the route learns its transaction committed (the hook that wakes the worker);
// the arrival time when the receiver has read the whole request. Both clocks are this process's.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { createApiKey } from '../src/accounts/api-keys.js';
import { createBrand } from '../src/accounts/brands.js';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/platform/config.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '1' },
  },
});
const total = Number(values.events);
const concurrency = Number(values.concurrency);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-bench-'));
  const postgres = process.env.BENCH_DATABASE_URL;
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    PORT: '0',
    WEBHOOKS_ALLOW_HTTP: '1',
    WEBHOOKS_ALLOW_PRIVATE: '1',
    RATE_LIMIT_WRITES_PER_MINUTE: '1000000',
    SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS,
    ...(postgres ? { DATABASE_URL: postgres, DATABASE_SCHEMA: schema } : {}),
  });

  const latencies: number[] = [];
  let resolveAll: () => void = () => {};
  const allArrived = new Promise<void>((resolve) => {
    resolveAll = resolve;
  });
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      res.writeHead(200).end();
      // The event's createdAt is taken in the transaction that writes it, just before its commit (ms resolution).
      const event = JSON.parse(Buffer.concat(chunks).toString()) as { createdAt: string };
      latencies.push(at - Date.parse(event.createdAt));
      if (latencies.length === total) resolveAll();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverPort = (receiver.address() as { port: number }).port;

  const app = await buildApp(config, { defaultMetrics: false });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const brand = await createBrand(app.deps.database, { name: 'Bench' });
  const { key } = await createApiKey(app.deps.database, {
    brandId: brand.id,
    name: 'bench',
    scopes: ['full'],
  });
  const post = async (url: string, body: unknown) => {
    const res = await fetch(`${base}${url}`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    return res.json();
  };

  try {
    await post('/v1/webhook-endpoints', {
      url: `http://127.0.0.1:${receiverPort}/hook`,
      events: ['lead.created'],
    });
    const requestTimes: number[] = [];
    let next = 0;
    const started = performance.now();
    const client = async () => {
      while (next < total) {
        const i = next++;
        const sent = performance.now();
        await post('/v1/leads', {
          street: 'Keizersgracht',
          postalCode: '1015 CJ',
          city: 'Amsterdam',
          customerName: `Bench ${i}`,
          email: `bench${i}@example.com`,
          title: `Bench lead ${i}`,
        });
        requestTimes.push(performance.now() - sent);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, client));
    await allArrived;
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    requestTimes.sort((a, b) => a - b);
    const storage = postgres ? 'PostgreSQL' : `SQLite file (synchronous=${config.sqliteSynchronous})`;
    console.log(`${total} events, ${concurrency} concurrent client(s), ${storage}, node ${process.version}`);
    console.log(
      `  event written -> receiver: median ${ms(percentile(latencies, 50))}, p90 ${ms(percentile(latencies, 90))}, p99 ${ms(percentile(latencies, 99))}, max ${ms(latencies[latencies.length - 1]!)}`,
    );
    console.log(
      `  POST /v1/leads:     median ${ms(percentile(requestTimes, 50))}, p99 ${ms(percentile(requestTimes, 99))}; ${(total / seconds).toFixed(0)} leads/s`,
    );
  } finally {
    await app.deliveryWorker?.stop();
    if (postgres) await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(app.deps.database.db);
    await app.close();
    receiver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
