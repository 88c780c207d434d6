// npm run bench:personal-data: what erasing a person costs (issue 28), in one run:
//   1. erase: for each database (SQLite, PostgreSQL) and each size, a fresh database is seeded with N leads (and a
//      lead.created event each, bench/seed.ts plus the events below), the service runs as a child process, and
//      M customers each get 10 leads through POST /v1/leads and a photo on every lead (POST
//      /v1/leads/{id}/attachments, a ~130 KB JPEG). Each customer is then erased through
//      POST /v1/customers/{id}/erase, one after another, and every erase's wall time is recorded; as baselines
//      from the same run: the creates of those leads (one at a time), and each customer's 10 GET /v1/leads/{id}.
//   2. secure_delete: the cost of `pragma secure_delete = ON` (what the product opens SQLite with) on creates:
//      the app (bench/secure-delete-server.ts) on a fresh SQLite DATA_DIR with the pragma on, then off, on,
//      off…, each under the same autocannon load of POST /v1/leads (distinct customers).
//
//   npm run bench:personal-data                                     sizes 1000,100000; SQLite, and PostgreSQL
//                                                                   when BENCH_DATABASE_URL or TEST_DATABASE_URL is set
//   npm run bench:personal-data -- --sizes 1000 --db sqlite --customers 3 --secure-delete-seconds 5
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import sharp from 'sharp';
import { openDatabase } from '../src/platform/db/database.js';
import { measure } from './load.js';
import { cli, freePort, ROOT, Server, type Storage, serviceEnv } from './processes.js';
import { databaseConfig, seedLeads } from './seed.js';

const postgresUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
const { values: flags } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,100000' },
    db: { type: 'string', default: postgresUrl ? 'sqlite,postgres' : 'sqlite' },
    customers: { type: 'string', default: '10' },
    'secure-delete-pairs': { type: 'string', default: '2' },
    'secure-delete-seconds': { type: 'string', default: '15' },
    connections: { type: 'string', default: '32' },
    out: { type: 'string', default: path.join(ROOT, 'bench/results') },
    label: { type: 'string', default: '' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (flags.help) {
  console.log(`Usage: npm run bench:personal-data -- [--sizes 1000,100000] [--db sqlite,postgres] [--customers 10]
       [--secure-delete-pairs 2] [--secure-delete-seconds 15] [--connections 32] [--out DIR] [--label NAME]
  --sizes                  seeded leads (with one lead.created event each), a fresh database each
  --db                     databases for the erase part (PostgreSQL: BENCH_DATABASE_URL or TEST_DATABASE_URL,
                           a fresh schema each)
  --customers              customers erased per size, each with 10 leads and 10 photos
  --secure-delete-pairs    ON/OFF pairs of the create load on SQLite (0: skip that part)
  --secure-delete-seconds  measured seconds of each arm (after 3 s of warm-up)
  --connections            concurrent connections of the create load
  --out                    where the results JSON goes (DATE-personal-data-<sizes>[-LABEL].json)`);
  process.exit(0);
}

const sizes = flags.sizes.split(',').map(Number);
const dialects = flags.db.split(',') as ('sqlite' | 'postgres')[];
const CUSTOMERS = Number(flags.customers);
const LEADS_PER_CUSTOMER = 10;
const RUN_TAG = randomBytes(3).toString('hex');

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : Number.NaN);
const loadavg = () => os.loadavg().map((n) => round(n, 2));
const mib = (bytes: number) => round(bytes / 1024 / 1024);
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
const summary = (values: number[]) => ({
  n: values.length,
  p50Ms: round(percentile(values, 50)),
  maxMs: round(Math.max(...values)),
  minMs: round(Math.min(...values)),
});

/** A phone photo's stand-in: an 800 × 600 JPEG of about 130 KB (noise keeps it from compressing away). */
const PHOTO = await sharp({
  create: {
    width: 800,
    height: 600,
    channels: 3,
    background: '#808080',
    noise: { type: 'gaussian', mean: 128, sigma: 30 },
  },
})
  .jpeg({ quality: 70 })
  .toBuffer();

// ---- storage and seeding -------------------------------------------------------------------------------------

function newStorage(dialect: 'sqlite' | 'postgres', size: number): Storage {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `lead-intake-bench-personal-${size}-`));
  if (dialect === 'sqlite') return { dialect, dataDir };
  if (!postgresUrl) throw new Error('PostgreSQL needs BENCH_DATABASE_URL or TEST_DATABASE_URL');
  return { dialect, dataDir, databaseUrl: postgresUrl, schema: `bench_${randomBytes(5).toString('hex')}` };
}

async function dropStorage(storage: Storage): Promise<void> {
  fs.rmSync(storage.dataDir, { recursive: true, force: true });
  if (storage.dialect !== 'postgres') return;
  const database = openDatabase(databaseConfig(storage));
  try {
    await sql`drop schema if exists ${sql.id(storage.schema!)} cascade`.execute(database.db);
  } finally {
    await database.close();
  }
}

/**
 * A lead.created event for every seeded lead, as the service stores one per create: the lead's list item (its
 * ready list JSON, with the customer's name, email, phone and address) as `{"lead": …}`, at the lead's time. The
 * erase's scan of the brand's events reads all of them. Real lead.created data is the full lead (a little larger).
 */
async function seedEvents(storage: Storage, brandId: string): Promise<{ events: number; avgBytes: number }> {
  const database = openDatabase(databaseConfig(storage), 'NORMAL');
  const pg = storage.dialect === 'postgres';
  try {
    return await database.db.connection().execute(async (db) => {
      if (pg) await sql`set statement_timeout = 0`.execute(db);
      const id = pg ? `'evt_' || substr(id, 5)` : `'evt_' || substr(id, 5)`;
      await sql`insert into events (id, brand_id, type, created_at, data)
          select ${sql.raw(id)}, brand_id, 'lead.created', created_at, '{"lead":' || list_json || '}'
          from leads where brand_id = ${brandId} and list_json is not null`.execute(db);
      if (pg) await sql`vacuum (analyze) events`.execute(db);
      const { rows } = await sql<{ n: number | string; bytes: number | string | null }>`
          select count(*) as n, avg(length(data)) as bytes from events where brand_id = ${brandId}`.execute(
        db,
      );
      return { events: Number(rows[0]!.n), avgBytes: Math.round(Number(rows[0]!.bytes ?? 0)) };
    });
  } finally {
    await database.close();
  }
}

const sqliteFile = (storage: Storage) => path.join(storage.dataDir, 'lead-intake.sqlite');
const fileSize = (file: string) => fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;

// ---- requests ------------------------------------------------------------------------------------------------

function leadBody(customer: string, n: number): string {
  return JSON.stringify({
    street: 'Prinsengracht',
    streetNumber: String(n + 1),
    postalCode: '1016 GV',
    city: 'Amsterdam',
    customerName: `Erase Me ${customer}`,
    email: `erase-${RUN_TAG}-${customer}@example.com`,
    phone: '+31 6 12345678',
    title: `Bathroom renovation ${n}`,
    description: `Customer ${customer} wants the bathroom redone, request ${n}; call after 17:00.`,
    category: 'plumbing',
    priority: 'medium',
    budgetQuote: 'EUR 8000-12000',
  });
}

async function timed<T>(what: string, request: () => Promise<Response>, expect: number) {
  const t0 = performance.now();
  const res = await request();
  const body = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== expect) throw new Error(`${what}: ${res.status} ${body.slice(0, 500)}`);
  return { ms, json: JSON.parse(body) as T };
}

function photoPost(n: number): { body: Buffer; contentType: string } {
  const boundary = `----benchphoto${n}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="attachments"; filename="bathroom-${n}.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
    ),
    PHOTO,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The overload guard's refusals so far, by reason, from /metrics (as bench/backup.ts). */
async function shedCounts(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^lead_intake_shed_requests_total\{reason="([^"]+)"\} (\d+)/gm)) {
    counts[match[1]!] = Number(match[2]);
  }
  return counts;
}

const since = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(after)
      .map(([reason, n]) => [reason, n - (before[reason] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );

/** GET /v1/leads/{id} every 100 ms, whether or not the last has answered, while `going()`. */
async function probeReads(url: string, key: string, leadId: string, going: () => boolean) {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const inFlight: Promise<void>[] = [];
  let next = performance.now();
  while (going()) {
    const t0 = performance.now();
    inFlight.push(
      fetch(`${url}/v1/leads/${leadId}`, { headers: { 'x-api-key': key } })
        .then(async (res) => {
          await res.arrayBuffer();
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          latencies.push(performance.now() - t0);
        })
        .catch(() => {
          statuses.fetch = (statuses.fetch ?? 0) + 1;
        }),
    );
    next += 100;
    const wait = next - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  await Promise.all(inFlight);
  return {
    requests: latencies.length,
    statuses,
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
    maxMs: round(Math.max(0, ...latencies)),
  };
}

interface Person {
  customerId: string;
  leadIds: string[];
}

// ---- part 1: erasing -----------------------------------------------------------------------------------------

async function measureErase(dialect: 'sqlite' | 'postgres', size: number) {
  const storage = newStorage(dialect, size);
  try {
    const brand = cli(storage, ['brands', 'create', '--name', 'Bench Personal Data']) as { id: string };
    const { key } = cli(storage, [
      ...['keys', 'create', '--name', 'bench', '--scopes', 'full'],
      ...['--reads-per-minute', '1000000', '--writes-per-minute', '1000000'],
    ]) as { key: string };
    const loadavgBefore = loadavg();
    const t = performance.now();
    await seedLeads(storage, brand.id, 0, size);
    const events = await seedEvents(storage, brand.id);
    const seedSeconds = round((performance.now() - t) / 1000);
    if (dialect === 'sqlite') {
      // The seed leaves its writes in the WAL; folded in now, so no erase pays for checkpointing them.
      const db = new SQLite(sqliteFile(storage));
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    }
    console.log(
      `${dialect}, ${size} leads and ${events.events} events (${events.avgBytes} B each) seeded in ${seedSeconds} s` +
        (dialect === 'sqlite' ? `; database ${mib(fileSize(sqliteFile(storage)))} MiB` : ''),
    );

    const server = await Server.service(storage, await freePort(), [], { BACKUP_INTERVAL_MINUTES: '0' });
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    try {
      const url = server.url;
      const createLead = (customer: string, n: number) =>
        timed<{ id: string; customerId: string }>(
          'create',
          () => fetch(`${url}/v1/leads`, { method: 'POST', headers, body: leadBody(customer, n) }),
          201,
        );
      // Warm-up: the first requests of each kind compile and fill caches.
      let probeId = '';
      for (let i = 0; i < 20; i++) probeId = (await createLead(`warm-${i}`, i)).json.id;
      // What a real lead.created event weighs, to set against the seeded ones.
      const latest = (await (
        await fetch(`${url}/v1/events?type=lead.created&limit=1`, { headers: { 'x-api-key': key } })
      ).json()) as { data: { data: unknown }[] };
      const realEventBytes = JSON.stringify(latest.data[0]?.data ?? null).length;

      const createMs: number[] = [];
      const uploadMs: number[] = [];
      const people: Person[] = [];
      for (let c = 0; c < CUSTOMERS; c++) {
        const person: Person = { customerId: '', leadIds: [] };
        for (let n = 0; n < LEADS_PER_CUSTOMER; n++) {
          const { ms, json } = await createLead(`c${c}`, n);
          createMs.push(ms);
          person.customerId ||= json.customerId;
          if (json.customerId !== person.customerId)
            throw new Error('the leads did not link to one customer');
          person.leadIds.push(json.id);
          const photo = photoPost(c * 100 + n);
          const upload = await timed(
            'upload',
            () =>
              fetch(`${url}/v1/leads/${json.id}/attachments`, {
                method: 'POST',
                headers: { 'x-api-key': key, 'content-type': photo.contentType },
                body: photo.body,
              }),
            201,
          );
          uploadMs.push(upload.ms);
        }
        people.push(person);
      }

      const readsMs: number[] = [];
      for (const person of people) {
        let total = 0;
        for (const id of person.leadIds) {
          total += (
            await timed('read', () => fetch(`${url}/v1/leads/${id}`, { headers: { 'x-api-key': key } }), 200)
          ).ms;
        }
        readsMs.push(total);
      }

      // Other requests during the erases: a read of a lead (created through the API: seeded leads have no
      // submitted contact, which the single-lead read requires) every 100 ms (open loop), as the dashboard's
      // other users would send; their longest wait and statuses show how long an erase holds the service up.
      const eraseMs: number[] = [];
      const refusals: { attempt: number; retryAfter: string | null }[] = [];
      const shedBefore = await shedCounts(url);
      const sizeBefore = dialect === 'sqlite' ? fileSize(sqliteFile(storage)) : 0;
      let erasing = true;
      const probe = probeReads(url, key, probeId, () => erasing);
      for (const person of people) {
        // An admin erases one person at a time: a second's pause, so each erase starts on a quiet service.
        await new Promise((r) => setTimeout(r, 1000));
        for (let attempt = 1; ; attempt++) {
          const t0 = performance.now();
          const res = await fetch(`${url}/v1/customers/${person.customerId}/erase`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ reason: 'bench' }),
          });
          const body = await res.text();
          const ms = performance.now() - t0;
          if (res.status === 503 && attempt < 20) {
            refusals.push({ attempt, retryAfter: res.headers.get('retry-after') });
            await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)));
            continue;
          }
          if (res.status !== 200) throw new Error(`erase: ${res.status} ${body.slice(0, 500)}`);
          const json = JSON.parse(body) as { leads: number; attachments: number };
          if (json.leads !== LEADS_PER_CUSTOMER || json.attachments !== LEADS_PER_CUSTOMER)
            throw new Error(`erase covered ${body}`);
          eraseMs.push(ms);
          break;
        }
      }
      erasing = false;
      const during = await probe;
      const shed = since(shedBefore, await shedCounts(url));
      const erase = summary(eraseMs);
      const create = summary(createMs);
      const reads = summary(readsMs);
      const result = {
        db: dialect,
        leads: size,
        seededEvents: events.events,
        seededEventBytes: events.avgBytes,
        realLeadCreatedEventBytes: realEventBytes,
        seedSeconds,
        databaseMiB: dialect === 'sqlite' ? mib(sizeBefore) : undefined,
        customers: CUSTOMERS,
        loadavgBefore,
        loadavgAfter: loadavg(),
        eraseMs: eraseMs.map((ms) => round(ms)),
        erase,
        create,
        upload: summary(uploadMs),
        tenReads: reads,
        eraseP50PerCreateP50: ratio(erase.p50Ms, create.p50Ms),
        eraseMaxPerCreateP50: ratio(erase.maxMs, create.p50Ms),
        eraseP50PerTenReadsP50: ratio(erase.p50Ms, reads.p50Ms),
        /** Erases refused with 503 (and retried after Retry-After), and the overload guard's refusals by reason. */
        eraseRefusals: refusals,
        shed,
        readsDuringErases: during,
      };
      console.log(
        `  reads during the erases: ${during.requests}, longest ${during.maxMs} ms, p99 ${during.p99Ms} ms; ${JSON.stringify(during.statuses)}; erases refused ${refusals.length}; shed ${JSON.stringify(shed)}`,
      );
      console.log(
        `  erase p50 ${erase.p50Ms} ms, max ${erase.maxMs} ms (x${result.eraseP50PerCreateP50} / x${result.eraseMaxPerCreateP50} a create's p50 of ${create.p50Ms} ms; 10 reads p50 ${reads.p50Ms} ms)`,
      );
      return result;
    } finally {
      await server.stop();
    }
  } finally {
    await dropStorage(storage);
  }
}

// ---- part 2: secure_delete on creates ------------------------------------------------------------------------

let createSequence = 0;
async function secureDeleteArm(mode: 'on' | 'off') {
  const storage: Storage = {
    dialect: 'sqlite',
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), `lead-intake-bench-secure-delete-${mode}-`)),
  };
  try {
    cli(storage, ['brands', 'create', '--name', 'Bench Secure Delete']);
    const { key } = cli(storage, [
      ...['keys', 'create', '--name', 'bench', '--scopes', 'full'],
      ...['--reads-per-minute', '1000000', '--writes-per-minute', '1000000'],
    ]) as { key: string };
    const port = await freePort();
    const server = await Server.start(
      ['--import', 'tsx', path.join(ROOT, 'bench/secure-delete-server.ts')],
      serviceEnv(storage, { BACKUP_INTERVAL_MINUTES: '0', BENCH_SECURE_DELETE: mode }),
      port,
    );
    try {
      const loadavgBefore = loadavg();
      const m = await measure(
        server.url,
        {
          method: 'POST',
          path: '/v1/leads',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: leadBody('x', 0),
          setupRequest: (request) => {
            const n = createSequence++;
            return { ...request, body: leadBody(`sd${n}`, n) };
          },
        },
        {
          connections: Number(flags.connections),
          warmupSeconds: 3,
          seconds: Number(flags['secure-delete-seconds']),
          pid: server.pid,
        },
      );
      await server.stop();
      const db = new SQLite(sqliteFile(storage), { readonly: true });
      const leads = (db.prepare('select count(*) as n from leads').get() as { n: number }).n;
      db.close();
      const file = sqliteFile(storage);
      const bytes = fileSize(file) + fileSize(`${file}-wal`);
      const arm = {
        secureDelete: mode,
        loadavgBefore,
        loadavgAfter: loadavg(),
        ...m,
        leadsInDatabase: leads,
        databaseMiB: mib(bytes),
        bytesPerLead: Math.round(bytes / Math.max(1, leads)),
      };
      console.log(
        `  secure_delete ${mode.padEnd(3)}: ${m.rps} creates/s, p50 ${m.p50} ms, p99 ${m.p99} ms, ${m.non2xx} non-2xx, ${m.errors} errors; ${leads} leads in ${arm.databaseMiB} MiB (${arm.bytesPerLead} B/lead)`,
      );
      return arm;
    } finally {
      await server.stop();
    }
  } finally {
    fs.rmSync(storage.dataDir, { recursive: true, force: true });
  }
}

// ---- the run -------------------------------------------------------------------------------------------------

const started = { when: new Date().toISOString(), loadavg: loadavg() };
const erase: Awaited<ReturnType<typeof measureErase>>[] = [];
for (const dialect of dialects) for (const size of sizes) erase.push(await measureErase(dialect, size));

const arms: Awaited<ReturnType<typeof secureDeleteArm>>[] = [];
const pairs = Number(flags['secure-delete-pairs']);
if (pairs > 0) console.log(`secure_delete, ${flags.connections} connections, SQLite:`);
for (let i = 0; i < pairs; i++) {
  arms.push(await secureDeleteArm('on'));
  arms.push(await secureDeleteArm('off'));
}
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
const of = (mode: string, field: 'rps' | 'p50' | 'p99' | 'bytesPerLead') =>
  mean(arms.filter((a) => a.secureDelete === mode).map((a) => a[field]));
const secureDelete = arms.length
  ? {
      connections: Number(flags.connections),
      seconds: Number(flags['secure-delete-seconds']),
      arms,
      // OFF ÷ ON of the arms' means: above 1 for creates/s means OFF is faster; below 1 for latency means OFF is faster.
      offPerOn: {
        rps: ratio(of('off', 'rps'), of('on', 'rps')),
        p50: ratio(of('off', 'p50'), of('on', 'p50')),
        p99: ratio(of('off', 'p99'), of('on', 'p99')),
        bytesPerLead: ratio(of('off', 'bytesPerLead'), of('on', 'bytesPerLead')),
      },
      perPair: Array.from({ length: pairs }, (_, i) => ({
        rps: ratio(arms[2 * i + 1]!.rps, arms[2 * i]!.rps),
        p50: ratio(arms[2 * i + 1]!.p50, arms[2 * i]!.p50),
        p99: ratio(arms[2 * i + 1]!.p99, arms[2 * i]!.p99),
      })),
    }
  : null;

const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
const report = {
  when: started.when,
  commit,
  node: process.version,
  machine: { cores: os.cpus().length, model: os.cpus()[0]?.model },
  loadavgBefore: started.loadavg,
  loadavgAfter: loadavg(),
  photoBytes: PHOTO.length,
  leadsPerCustomer: LEADS_PER_CUSTOMER,
  erase,
  secureDelete,
};
fs.mkdirSync(flags.out, { recursive: true });
const label = sizes.map((n) => (n >= 1e6 ? `${n / 1e6}m` : n >= 1e3 ? `${n / 1e3}k` : String(n))).join('-');
const out = path.join(
  flags.out,
  `${started.when.slice(0, 10)}-personal-data-${label}${flags.label ? `-${flags.label}` : ''}.json`,
);
fs.writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(
  `\nwritten to ${out} (load average ${report.loadavgBefore.join(' ')} before, ${report.loadavgAfter.join(' ')} after)`,
);
for (const r of erase) {
  console.log(
    `${r.db} ${r.leads} leads: erase p50 ${r.erase.p50Ms} ms, max ${r.erase.maxMs} ms; create p50 ${r.create.p50Ms} ms (erase x${r.eraseP50PerCreateP50}, max x${r.eraseMaxPerCreateP50}); 10 reads p50 ${r.tenReads.p50Ms} ms`,
  );
}
if (secureDelete)
  console.log(
    `secure_delete OFF/ON: creates/s x${secureDelete.offPerOn.rps}, p50 x${secureDelete.offPerOn.p50}, p99 x${secureDelete.offPerOn.p99}, bytes/lead x${secureDelete.offPerOn.bytesPerLead}`,
  );
