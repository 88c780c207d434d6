// Where a create's SQLite time goes, statement by statement: times every better-sqlite3 run/all/get in process
// (app.inject, one request at a time) and prints the share of each SQL text. `npx tsx bench/statement-costs.ts`
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createApiKey } from '../src/domain/api-keys.js';
import { createBrand } from '../src/domain/brands.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-statements-'));
const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'warn', RATE_LIMIT_WRITES_PER_MINUTE: '1000000' });
const app = await buildApp(config, { logger: false });
await app.ready();
const brand = await createBrand(app.deps.database, { name: 'Bench', country: 'NL' });
const { key } = await createApiKey(app.deps.database, { brandId: brand.id, name: 'bench', scopes: ['full'] });

const probe = new SQLite(':memory:');
const proto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, unknown>;
const totals = new Map<string, { ns: bigint; calls: number }>();
for (const method of ['run', 'all', 'get']) {
  const original = proto[method] as (...args: unknown[]) => unknown;
  proto[method] = function (this: { source: string }, ...args: unknown[]) {
    const start = process.hrtime.bigint();
    try {
      return original.apply(this, args);
    } finally {
      const t = totals.get(this.source) ?? { ns: 0n, calls: 0 };
      t.ns += process.hrtime.bigint() - start;
      t.calls++;
      totals.set(this.source, t);
    }
  };
}

const n = Number(process.argv[2] ?? 2000);
const started = process.hrtime.bigint();
for (let i = 0; i < n; i++) {
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
}
const wall = Number(process.hrtime.bigint() - started) / 1e6;
const rows = [...totals].sort((a, b) => Number(b[1].ns - a[1].ns));
const sum = rows.reduce((s, [, t]) => s + Number(t.ns), 0) / 1e6;
console.log(
  `${n} creates one at a time: ${(wall / n).toFixed(3)} ms each; SQLite statements ${(sum / n).toFixed(3)} ms each`,
);
for (const [text, t] of rows.slice(0, 20)) {
  console.log(
    `${((Number(t.ns) / 1e6 / n) * 1000).toFixed(1).padStart(7)} µs/create ${String(t.calls).padStart(6)} calls  ${text.replace(/\s+/g, ' ').slice(0, 110)}`,
  );
}
await app.close();
fs.rmSync(dir, { recursive: true, force: true });
