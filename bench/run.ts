// npm run bench: the real service (production settings, fresh data) against the ceiling, on SQLite and
// PostgreSQL, plus list cost at 10 thousand and 1 million leads. See bench/README.md.
//
//   npm run bench                                   everything, 5 s warm-up + 20 s per measurement
//   npm run bench -- --db sqlite --duration 2 --warmup 1 --connections 1,32 --growth 1000,20000   a quick smoke run
//   npm run bench -- --profile create-distinct --db sqlite   CPU profile of the service under one scenario
//   npm run bench -- --peers strapi --db sqlite --scenarios none --growth off --conventions off   against Strapi 5
//   npm run bench -- --scenarios none --growth off --conventions off --before ../bench-before --duration 8 --warmup 2
//                                                   creates against an earlier commit, crowds, 1M leads (creates.ts)
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import sharp from 'sharp';
import { LEAD_FIELDS } from '../src/leads/input.js';
import { openDatabase } from '../src/platform/db/database.js';
import { encodeCursor } from '../src/shared/paging.js';
import { type CreatesReport, checkBefore, runCreates } from './creates.js';
import { type Measurement, measure, type RequestSpec } from './load.js';
import {
  checkStrapiList,
  ensureStrapi,
  STRAPI_LIST_PATH,
  STRAPI_VERSION,
  seedStrapi,
  startStrapi,
  strapiSpecs,
} from './peers/strapi.js';
import {
  cli,
  freePort,
  pinningDescription,
  pinSelfToLoadCore,
  ROOT,
  Server,
  type ServiceCpus,
  type Storage,
  setServiceCpus,
} from './processes.js';
import { formatProfile, summarizeProfile } from './profile.js';
import {
  databaseConfig,
  NEEDLE_LEADS,
  SEARCH_QUERIES,
  seededLeadId,
  seededReceivedAt,
  seedLeads,
} from './seed.js';

const { values: flags } = parseArgs({
  options: {
    db: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    scenarios: { type: 'string' },
    growth: { type: 'string' },
    'growth-connections': { type: 'string' },
    'growth-queries': { type: 'string' },
    conventions: { type: 'string' },
    'service-node-flags': { type: 'string' },
    profile: { type: 'string' },
    peers: { type: 'string' },
    before: { type: 'string' },
    rounds: { type: 'string' },
    'service-cpus': { type: 'string' },
    crowds: { type: 'string' },
    'creates-at': { type: 'string' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

const HELP = `Usage: npm run bench -- [options]        (each option also reads from the environment)
  --db sqlite,postgres         databases (BENCH_DB; default: sqlite, plus postgres when BENCH_DATABASE_URL
                               or TEST_DATABASE_URL is set)
  --duration 20                measured seconds per run (BENCH_DURATION)
  --warmup 5                   warm-up seconds before each run (BENCH_WARMUP)
  --connections 1,32,128       connection counts (BENCH_CONNECTIONS)
  --scenarios a,b              none, or a subset of: ${'create-distinct, create-linking, list-100, get-one, mixed, form-post, form-post-photo'}
                               (form-post is reported against create-distinct: run both)
  --growth 10000,1000000       brand sizes for the growth runs, or "off" (BENCH_GROWTH)
  --growth-connections 32      connections for the growth runs (BENCH_GROWTH_CONNECTIONS)
  --growth-queries search      only the growth queries whose names start so, comma-separated (BENCH_GROWTH_QUERIES)
  --conventions on             compressed sizes, and what compression, ETags and 304s cost, against the same
                               service without them, or "off" (BENCH_CONVENTIONS)
  --service-node-flags "..."   extra node flags for the service, e.g. "--max-semi-space-size=4"
                               (BENCH_SERVICE_NODE_FLAGS)
  --profile SCENARIO           run the service under node --cpu-prof for one scenario at 32 connections
  --peers strapi               other products against the service in the same run, or "none" (BENCH_PEERS;
                               default none). strapi: Strapi ${STRAPI_VERSION} on SQLite, installed on first use
                               into bench/.peers/strapi (npm registry only, about 700 MB); create and list of 100
                               against the service's create-distinct and list-100 with response reuse off
  --before DIR                 creates of today's service against the built checkout of an earlier commit in DIR,
                               in alternating rounds with the ceiling, at 32 connections (BENCH_BEFORE); with it,
                               --crowds and --creates-at default on. See bench/README.md "Creates against an
                               earlier commit, and crowds"
  --rounds 3                   rounds of the creates section (BENCH_ROUNDS)
  --crowds 100,100000          customers sharing one phone for the crowd creates, or "off" (BENCH_CROWDS;
                               default 100,100000 with --before, else off)
  --creates-at 1000000         leads in the brand for creates at size, or "off" (BENCH_CREATES_AT; default
                               1000000 with --before, else off)
  --service-cpus last          where the service and the ceiling run: "last" (the last core, as always) or "all"
                               (every core); the load generator stays on core 0 (BENCH_SERVICE_CPUS)
  --out DIR                    where results go (default bench/results)`;

if (flags.help) {
  console.log(HELP);
  process.exit(0);
}

const KNOWN_PEERS = ['strapi'];
const setting = (flag: string | undefined, env: string, fallback: string) =>
  flag ?? process.env[env] ?? fallback;
const numbers = (text: string) => text.split(',').map((s) => Number(s.trim()));
const postgresUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
const settings = {
  databases: setting(flags.db, 'BENCH_DB', postgresUrl ? 'sqlite,postgres' : 'sqlite').split(',') as (
    | 'sqlite'
    | 'postgres'
  )[],
  seconds: Number(setting(flags.duration, 'BENCH_DURATION', '20')),
  warmupSeconds: Number(setting(flags.warmup, 'BENCH_WARMUP', '5')),
  connections: numbers(setting(flags.connections, 'BENCH_CONNECTIONS', '1,32,128')),
  scenarios: setting(
    flags.scenarios,
    'BENCH_SCENARIOS',
    'create-distinct,create-linking,list-100,get-one,mixed,form-post',
  )
    .split(',')
    .filter((s) => s && s !== 'none'),
  growth: setting(flags.growth, 'BENCH_GROWTH', '10000,1000000'),
  conventions: setting(flags.conventions, 'BENCH_CONVENTIONS', 'on') !== 'off',
  growthConnections: Number(setting(flags['growth-connections'], 'BENCH_GROWTH_CONNECTIONS', '32')),
  /** Only the growth queries whose names start with one of these (e.g. "search"); all when unset. */
  growthQueries: setting(flags['growth-queries'], 'BENCH_GROWTH_QUERIES', '')
    ?.split(',')
    .map((q) => q.trim())
    .filter(Boolean),
  /** Extra `node` flags for the service in the scenario runs (e.g. V8 heap settings); recorded in the results. */
  serviceNodeFlags: (setting(flags['service-node-flags'], 'BENCH_SERVICE_NODE_FLAGS', '') ?? '')
    .split(' ')
    .filter(Boolean),
  /** Other products measured against the service in the same run (SQLite only): "strapi". */
  peers: setting(flags.peers, 'BENCH_PEERS', 'none')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p && p !== 'none'),
  outDir: path.resolve(flags.out ?? path.join(ROOT, 'bench/results')),
  /** The built checkout of an earlier commit whose creates today's are compared with ("" : none). */
  before: setting(flags.before, 'BENCH_BEFORE', ''),
  rounds: Number(setting(flags.rounds, 'BENCH_ROUNDS', '3')),
  serviceCpus: setting(flags['service-cpus'], 'BENCH_SERVICE_CPUS', 'last') as ServiceCpus,
};
const withBefore = settings.before !== '';
const sizesOrOff = (text: string) => (text === 'off' ? [] : numbers(text));
const createsSettings = {
  crowdSizes: sizesOrOff(setting(flags.crowds, 'BENCH_CROWDS', withBefore ? '100,100000' : 'off')),
  createsAt:
    sizesOrOff(setting(flags['creates-at'], 'BENCH_CREATES_AT', withBefore ? '1000000' : 'off'))[0] ?? 0,
};
/** The creates section runs when asked: an earlier commit to compare with, crowds, or creates at size. */
const wantCreates = withBefore || createsSettings.crowdSizes.length > 0 || createsSettings.createsAt > 0;
if (settings.serviceCpus !== 'last' && settings.serviceCpus !== 'all') {
  console.error(`--service-cpus ${settings.serviceCpus}: "last" or "all"`);
  process.exit(2);
}
setServiceCpus(settings.serviceCpus);
if (withBefore) {
  settings.before = path.resolve(settings.before);
  checkBefore(settings.before);
}
for (const peer of settings.peers) {
  if (!KNOWN_PEERS.includes(peer)) {
    console.error(`unknown peer ${peer}: known are ${KNOWN_PEERS.join(', ')}`);
    process.exit(2);
  }
}

// ---- requests ------------------------------------------------------------------------------------------

const RUN_TAG = randomBytes(3).toString('hex');
let sequence = 0;

/** What a website form sends. `customer` picks who: distinct numbers make new customers, repeats link. */
function formLead(customer: number, n: number): string {
  return JSON.stringify({
    street: 'Keizersgracht',
    streetNumber: String((customer % 500) + 1),
    postalCode: '1015 CJ',
    city: 'Amsterdam',
    customerName: `Customer ${customer}`,
    email: `customer-${RUN_TAG}-${customer}@example.com`,
    phone: `+31 6 ${String(customer % 100_000_000).padStart(8, '0')}`,
    title: 'Leaking tap in the kitchen',
    description: `The kitchen tap drips constantly since last week; request ${n}.`,
    category: 'plumbing',
    priority: 'high',
    budgetQuote: 'EUR 100-250',
  });
}

/** The origin the bench form allows and its posts come from, as a browser on the brand's site would send. */
const FORM_ORIGIN = 'https://www.bench-plumbing.example';
const FORM_CONSENT = 'I agree that Bench Plumbing contacts me about this request.';

/**
 * What the snippet's form sends when a person has filled it in (JavaScript off): every field of the snippet in
 * its order, the ones left alone empty, the phone in the national format, the empty honeypot and the consent box.
 */
function formPost(customer: number, n: number): string {
  const filled: Record<string, string> = {
    street: 'Keizersgracht',
    streetNumber: String((customer % 500) + 1),
    postalCode: '1015 CJ',
    city: 'Amsterdam',
    customerName: `Customer ${customer}`,
    email: `form-${RUN_TAG}-${customer}@example.com`,
    phone: `06 1${String(customer % 10_000_000).padStart(7, '0')}`,
    title: 'Leaking tap in the kitchen',
    description: `The kitchen tap drips constantly since last week; request ${n}.`,
  };
  const body = new URLSearchParams();
  for (const { name } of LEAD_FIELDS) if (name !== 'priority') body.append(name, filled[name] ?? '');
  body.append('_gotcha', '');
  body.append('consent', 'yes');
  return body.toString();
}

type Scenario = (ids: string[]) => RequestSpec;

/**
 * The photo a customer adds: a 2000 × 1500 JPEG of about 2 MB (noise keeps it as large as a phone photo's detail
 * does), made with sharp once per run. The service stores it byte for byte and makes its preview and thumbnail.
 */
const PHOTO = await sharp({
  create: {
    width: 2000,
    height: 1500,
    channels: 3,
    background: '#808080',
    noise: { type: 'gaussian', mean: 128, sigma: 40 },
  },
})
  .jpeg({ quality: 90 })
  .toBuffer();

/** A form post with one photo, as the snippet sends it with JavaScript off: its fields, then the file. */
function formPostWithPhoto(customer: number, n: number): { body: Buffer; contentType: string } {
  const boundary = `----bench${customer}`;
  const parts: Buffer[] = [];
  for (const [name, value] of new URLSearchParams(formPost(customer, n))) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="attachments"; filename="leak-${n}.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
    ),
    PHOTO,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

function scenarios(key: string, formId: string): Record<string, Scenario> {
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  const readHeaders = { 'x-api-key': key };
  const create = (linking: boolean): RequestSpec => ({
    method: 'POST',
    path: '/v1/leads',
    headers,
    body: formLead(0, 0),
    setupRequest: (request) => {
      const n = sequence++;
      // Linking: ten regular customers at their usual address, as a repeat client's form would send.
      return { ...request, body: formLead(linking ? n % 10 : 1_000_000 + n, n) };
    },
  });
  return {
    'create-distinct': () => create(false),
    'create-linking': () => create(true),
    'list-100': () => ({ method: 'GET', path: '/v1/leads?limit=100', headers: readHeaders }),
    'get-one': (ids) => ({
      method: 'GET',
      path: `/v1/leads/${ids[0]}`,
      headers: readHeaders,
      setupRequest: (request) => ({ ...request, path: `/v1/leads/${ids[sequence++ % ids.length]}` }),
    }),
    // A website form posted with JavaScript off: form-encoded, from the allowed origin, answered with a 303.
    'form-post': () => ({
      method: 'POST',
      path: `/f/${formId}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: FORM_ORIGIN },
      body: formPost(0, 0),
      expectStatus: 303,
      setupRequest: (request) => {
        const n = sequence++;
        return { ...request, body: formPost(4_000_000 + n, n) };
      },
    }),
    // The same post with one 2 MB photo (multipart): streamed to storage, previewed, stored with the lead.
    'form-post-photo': () => {
      const first = formPostWithPhoto(0, 0);
      return {
        method: 'POST',
        path: `/f/${formId}`,
        headers: { 'content-type': first.contentType, origin: FORM_ORIGIN },
        body: first.body,
        expectStatus: 303,
        setupRequest: (request) => {
          const n = sequence++;
          const post = formPostWithPhoto(6_000_000 + n, n);
          return {
            ...request,
            headers: { ...request.headers, 'content-type': post.contentType },
            body: post.body,
          };
        },
      };
    },
    // A sync client's day: mostly pages and single reads, one write in ten.
    mixed: (ids) => ({
      method: 'GET',
      path: '/v1/leads?limit=100',
      headers,
      setupRequest: (request) => {
        const n = sequence++;
        const dice = Math.random();
        // Fresh header objects: autocannon writes Content-Length into the one it is given, and a GET that
        // inherited a POST's Content-Length would wait for a body that never comes.
        if (dice < 0.45)
          return {
            ...request,
            method: 'GET',
            path: '/v1/leads?limit=100',
            headers: { ...readHeaders },
            body: undefined,
          };
        if (dice < 0.9)
          return {
            ...request,
            method: 'GET',
            path: `/v1/leads/${ids[n % ids.length]}`,
            headers: { ...readHeaders },
            body: undefined,
          };
        return {
          ...request,
          method: 'POST',
          path: '/v1/leads',
          headers: { ...headers },
          body: formLead(2_000_000 + n, n),
        };
      },
    }),
  };
}

/**
 * Which ceiling measurement a scenario is compared with (linking costs the ceiling what creating does). A form
 * post has none: it is compared with `POST /v1/leads` (create-distinct) in the same run instead (COMPARED_WITH).
 */
const CEILING_OF: Record<string, string | undefined> = {
  'create-distinct': 'create-distinct',
  'create-linking': 'create-distinct',
  'list-100': 'list-100',
  'get-one': 'get-one',
  mixed: 'mixed',
  'form-post': undefined,
  'form-post-photo': undefined,
};

/** Scenarios reported as a ratio to another scenario of the same run, at the same connection count. */
const COMPARED_WITH: Record<string, string> = {
  'form-post': 'create-distinct',
  'form-post-photo': 'form-post',
};

// ---- storage ---------------------------------------------------------------------------------------------

function newStorage(dialect: 'sqlite' | 'postgres'): Storage {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-bench-'));
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

/** The bench brand's website form (consent asked, no redirect), made through the API like a brand would. */
async function createForm(url: string, key: string): Promise<string> {
  const res = await fetch(`${url}/v1/forms`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Bench contact form',
      allowedOrigins: [FORM_ORIGIN],
      consentText: FORM_CONSENT,
    }),
  });
  if (res.status !== 201) throw new Error(`creating the form failed: ${res.status} ${await res.text()}`);
  const formId = ((await res.json()) as { id: string }).id;
  // One post as the load will send it, so a refusal shows here and not as a column of non-2xx.
  const check = await fetch(`${url}/f/${formId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: FORM_ORIGIN },
    body: formPost(5_000_000, 0),
    redirect: 'manual',
  });
  if (check.status !== 303) throw new Error(`a form post failed: ${check.status} ${await check.text()}`);
  return formId;
}

/** A brand and its full key, made with the CLI of the checkout at `root` (an earlier commit's, for --before). */
function brandWithKey(storage: Storage, root = ROOT): { brandId: string; key: string } {
  const brand = cli(storage, ['brands', 'create', '--name', 'Bench Plumbing'], root);
  const key = cli(
    storage,
    [
      ...['keys', 'create', '--name', 'bench', '--scopes', 'full'],
      ...['--reads-per-minute', '1000000', '--writes-per-minute', '1000000'],
    ],
    root,
  );
  return { brandId: String(brand.id), key: String(key.key) };
}

// ---- the runs ----------------------------------------------------------------------------------------------

interface Row extends Measurement {
  scenario: string;
  target: 'service' | 'ceiling';
  ceilingRps?: number;
  ratio?: number;
  /** The ceiling's CPU time per request in the same run. */
  ceilingCpuUsPerRequest?: number;
  /** The ceiling's CPU time per request ÷ the service's: the ratio without the machine's noise. */
  cpuRatio?: number;
  /** For scenarios in COMPARED_WITH: the other scenario's figures at the same connections, and the ratios. */
  comparedWith?: Comparison;
}

interface Comparison {
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  /** This scenario's requests/s ÷ the other's. */
  rpsRatio: number;
  /** This scenario's p50 ÷ the other's (above 1: slower). */
  p50Ratio: number;
  /** This scenario's p99 ÷ the other's. */
  p99Ratio: number;
}

const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 1000) / 1000 : Number.NaN);

/** Fills in `comparedWith` once every scenario has run (the order of --scenarios does not matter). */
function compareWithinRun(rows: Row[]): void {
  for (const row of rows) {
    const other = COMPARED_WITH[row.scenario];
    if (!other || row.target !== 'service') continue;
    const base = rows.find(
      (r) => r.target === 'service' && r.scenario === other && r.connections === row.connections,
    );
    if (!base) {
      console.log(
        `  (${row.scenario} at ${row.connections}: no ${other} run to compare with; add it to --scenarios)`,
      );
      continue;
    }
    row.comparedWith = {
      scenario: other,
      rps: base.rps,
      p50: base.p50,
      p99: base.p99,
      rpsRatio: ratio(row.rps, base.rps),
      p50Ratio: ratio(row.p50, base.p50),
      p99Ratio: ratio(row.p99, base.p99),
    };
    const c = row.comparedWith;
    console.log(
      `  ${row.scenario} ÷ ${other} at ${row.connections} connections: req/s ${c.rpsRatio.toFixed(2)} (${row.rps} / ${c.rps}), p50 ${c.p50Ratio.toFixed(2)} (${row.p50.toFixed(2)} / ${c.p50.toFixed(2)} ms), p99 ${c.p99Ratio.toFixed(2)} (${row.p99.toFixed(2)} / ${c.p99.toFixed(2)} ms)`,
    );
  }
}

function postLead(url: string, key: string, body: string) {
  return fetch(`${url}/v1/leads`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body,
  });
}

/** Real responses for the ceiling to send: one create, one 100-item page, one single read. */
async function captureSamples(url: string, key: string): Promise<{ file: string; ids: string[] }> {
  let create: { body: string; location: string } | undefined;
  for (let n = 0; n < 150; n++) {
    let res = await postLead(url, key, formLead(3_000_000 + n, n));
    // A starved machine can make the service shed even this trickle: wait as told, then try again.
    for (let retry = 0; res.status === 503 && retry < 10; retry++) {
      await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after') ?? 1) * 1000));
      res = await postLead(url, key, formLead(3_000_000 + n, n));
    }
    if (res.status !== 201) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
    create = { body: await res.text(), location: res.headers.get('location')! };
  }
  const list = await (await fetch(`${url}/v1/leads?limit=100`, { headers: { 'x-api-key': key } })).text();
  const ids = (JSON.parse(list) as { data: { id: string }[] }).data.map((item) => item.id);
  const one = await (await fetch(`${url}/v1/leads/${ids[0]}`, { headers: { 'x-api-key': key } })).text();
  const file = path.join(os.tmpdir(), `lead-intake-ceiling-${RUN_TAG}.json`);
  fs.writeFileSync(file, JSON.stringify({ create, list, one }));
  return { file, ids };
}

async function runScenarios(dialect: 'sqlite' | 'postgres'): Promise<Row[]> {
  if (!settings.scenarios.length) return []; // --scenarios none: the growth runs only
  const storage = newStorage(dialect);
  const rows: Row[] = [];
  try {
    const { key } = brandWithKey(storage);
    const service = await Server.service(storage, await freePort(), settings.serviceNodeFlags);
    let ceiling: Server | undefined;
    let file: string | undefined;
    try {
      const samples = await captureSamples(service.url, key);
      file = samples.file;
      const ids = samples.ids;
      ceiling = await Server.ceiling(file, await freePort());
      const specs = scenarios(key, await createForm(service.url, key));
      const ceilingRuns = new Map<string, Measurement>();
      for (const name of settings.scenarios) {
        const spec = specs[name];
        if (!spec) throw new Error(`unknown scenario ${name}`);
        for (const connections of settings.connections) {
          const options = { connections, warmupSeconds: settings.warmupSeconds, seconds: settings.seconds };
          const measured = await measure(service.url, spec(ids), {
            ...options,
            pid: service.pid,
            databaseCpu: dialect === 'postgres',
          });
          const ceilingName = CEILING_OF[name];
          if (!ceilingName) {
            rows.push({ scenario: name, target: 'service', ...measured });
            printRow(rows.at(-1)!);
            continue;
          }
          const ceilingKey = `${ceilingName}@${connections}`;
          if (!ceilingRuns.has(ceilingKey)) {
            const top = await measure(ceiling.url, specs[ceilingName]!(ids), {
              ...options,
              pid: ceiling.pid,
            });
            rows.push({ scenario: ceilingName, target: 'ceiling', ...top });
            ceilingRuns.set(ceilingKey, top);
            printRow(rows.at(-1)!);
          }
          const top = ceilingRuns.get(ceilingKey)!;
          rows.push({
            scenario: name,
            target: 'service',
            ...measured,
            ceilingRps: top.rps,
            ratio: Math.round((measured.rps / top.rps) * 1000) / 1000,
            ...(top.cpuUsPerRequest !== undefined && measured.cpuUsPerRequest
              ? {
                  ceilingCpuUsPerRequest: top.cpuUsPerRequest,
                  cpuRatio: Math.round((top.cpuUsPerRequest / measured.cpuUsPerRequest) * 1000) / 1000,
                }
              : {}),
          });
          printRow(rows.at(-1)!);
        }
      }
      compareWithinRun(rows);
    } finally {
      await ceiling?.stop();
      await service.stop();
      if (file) fs.rmSync(file, { force: true });
    }
  } finally {
    await dropStorage(storage);
  }
  return rows;
}

interface GrowthRow {
  query: string;
  leads: number;
  rps: number;
  p50: number;
  p99: number;
  p999: number;
  non2xx: number;
  errors: number;
  peakRssMiB: number;
}

async function runGrowth(dialect: 'sqlite' | 'postgres', sizes: number[]): Promise<GrowthRow[]> {
  const storage = newStorage(dialect);
  const rows: GrowthRow[] = [];
  try {
    const { brandId, key } = brandWithKey(storage);
    let seeded = 0;
    for (const size of sizes) {
      const started = Date.now();
      await seedLeads(storage, brandId, seeded, size);
      seeded = size;
      console.log(
        `  seeded ${size.toLocaleString('en')} leads in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      // The response cache off: every request must run the query whose growth is measured.
      const service = await Server.service(storage, await freePort(), [], { RESPONSE_CACHE_MB: '0' });
      try {
        const middle = Math.floor(size / 2);
        const cursor = encodeCursor({ time: seededReceivedAt(middle), id: seededLeadId(middle) }, 'desc');
        const after = new Date(seededReceivedAt(middle)).toISOString();
        const queries: Record<string, string> = {
          'first page': '/v1/leads?limit=100',
          'deep cursor (middle)': `/v1/leads?limit=100&cursor=${cursor}`,
          'receivedAfter (middle, asc)': `/v1/leads?limit=100&order=asc&receivedAfter=${after}`,
        };
        // Search (q): each query finds the needle customer's NEEDLE_LEADS leads at every size, in a brand of
        // `size` leads whose documents share the needle's common trigrams (every phone starts +316, …).
        const searches = Object.entries(SEARCH_QUERIES).map(
          ([what, q]) => [`search: ${what}`, `/v1/leads?limit=25&q=${encodeURIComponent(q)}`] as const,
        );
        for (const [query, url] of searches) queries[query] = url;
        // The mix: the four in turn, one request after another.
        let turn = 0;
        const mix: Pick<RequestSpec, 'setupRequest'> = {
          setupRequest: (request) => ({ ...request, path: searches[turn++ % searches.length]![1] }),
        };
        queries['search (mix)'] = searches[0]![1];
        const selected = Object.entries(queries).filter(
          ([query]) =>
            !settings.growthQueries?.length || settings.growthQueries.some((g) => query.startsWith(g)),
        );
        for (const [query, url] of selected) {
          const check = await fetch(service.url + url, { headers: { 'x-api-key': key } });
          const page = (await check.json()) as { data: unknown[] };
          const expected = query.startsWith('search') ? NEEDLE_LEADS : 100;
          if (check.status !== 200 || page.data.length !== expected) {
            throw new Error(`${query}: ${check.status}, ${page.data?.length} items`);
          }
          const m = await measure(
            service.url,
            {
              method: 'GET',
              path: url,
              headers: { 'x-api-key': key },
              ...(query === 'search (mix)' ? mix : {}),
            },
            {
              connections: settings.growthConnections,
              warmupSeconds: settings.warmupSeconds,
              seconds: settings.seconds,
              pid: service.pid,
            },
          );
          const row: GrowthRow = {
            query,
            leads: size,
            rps: m.rps,
            p50: m.p50,
            p99: m.p99,
            p999: m.p999,
            non2xx: m.non2xx,
            errors: m.errors,
            peakRssMiB: m.peakRssMiB,
          };
          rows.push(row);
          console.log(
            `  ${query.padEnd(28)} ${size.toLocaleString('en').padStart(10)} leads  ${String(m.rps).padStart(6)} req/s  p99 ${m.p99} ms`,
          );
        }
      } finally {
        await service.stop();
      }
    }
  } finally {
    await dropStorage(storage);
  }
  return rows;
}

// ---- compression and ETags --------------------------------------------------------------------------------

/** The bytes a response takes on the wire (node:http: fetch would decompress), with its Content-Encoding. */
function wireSize(
  url: string,
  headers: Record<string, string>,
): Promise<{ bytes: number; encoding: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        res.on('end', () =>
          resolve({ bytes, encoding: String(res.headers['content-encoding'] ?? 'identity') }),
        );
      })
      .on('error', reject);
  });
}

interface ConventionsRow {
  request: string;
  variant: string;
  rps: number;
  p50: number;
  p99: number;
  peakRssMiB: number;
  non2xx: number;
  /** This variant's req/s ÷ the baseline's (compression and ETags off), same request, same run. */
  rpsRatio: number;
  p99Ratio: number;
}

interface ConventionsReport {
  connections: number;
  sizes: { response: string; identity: number; gzip: number; br: number }[];
  rows: ConventionsRow[];
}

/**
 * The contract's HTTP conventions, measured: what each response weighs plain, gzipped and in br, and what
 * hashing bodies for ETags, compressing them, and answering revalidations with 304 cost in throughput, each
 * against the same service with compression and ETags switched off (COMPRESSION=off ETAGS=off), in one run.
 */
async function runConventions(dialect: 'sqlite' | 'postgres'): Promise<ConventionsReport> {
  const storage = newStorage(dialect);
  const connections = 32;
  try {
    const { key } = brandWithKey(storage);
    const auth = { 'x-api-key': key };
    let ids: string[] = [];
    const sizes: ConventionsReport['sizes'] = [];
    const requests: Record<string, string> = {
      'list of 100 leads': '/v1/leads?limit=100',
      'one lead': '',
      'page of 100 events': '/v1/events?limit=100',
    };
    const etags: Record<string, string> = {};
    {
      const service = await Server.service(storage, await freePort());
      try {
        const samples = await captureSamples(service.url, key);
        fs.rmSync(samples.file, { force: true });
        ids = samples.ids;
        requests['one lead'] = `/v1/leads/${ids[0]}`;
        const weighed: Record<string, [string, Record<string, string>]> = {
          ...Object.fromEntries(Object.entries(requests).map(([name, url]) => [name, [url, auth]])),
          'OpenAPI document': ['/v1/openapi.json', {}],
          'docs page script (swagger-ui-bundle.js)': ['/docs/static/swagger-ui-bundle.js', {}],
        };
        for (const [response, [url, headers]] of Object.entries(weighed)) {
          const size = async (encoding: string) => {
            const got = await wireSize(service.url + url, { ...headers, 'accept-encoding': encoding });
            if (got.encoding !== encoding && got.bytes >= 1024) {
              throw new Error(`${response}: asked for ${encoding}, got ${got.encoding}`);
            }
            return got.bytes;
          };
          sizes.push({
            response,
            identity: await size('identity'),
            gzip: await size('gzip'),
            br: await size('br'),
          });
        }
        for (const [name, url] of Object.entries(requests)) {
          const res = await fetch(service.url + url, { headers: auth });
          await res.arrayBuffer();
          etags[name] = res.headers.get('etag') ?? '';
          if (!etags[name]) throw new Error(`${name}: no ETag`);
        }
      } finally {
        await service.stop();
      }
    }
    console.log(`\n${dialect}: compressed sizes (bytes on the wire)`);
    for (const s of sizes)
      console.log(
        `  ${s.response.padEnd(40)} ${String(s.identity).padStart(9)} plain ${String(s.gzip).padStart(8)} gzip (${((s.gzip / s.identity) * 100).toFixed(1)}%) ${String(s.br).padStart(8)} br (${((s.br / s.identity) * 100).toFixed(1)}%)`,
      );

    // Variants by the service's settings, then by what the client sends.
    const variants: {
      name: string;
      env: Record<string, string>;
      headers: (name: string) => Record<string, string>;
      expectStatus?: number;
    }[] = [
      { name: 'baseline: both off', env: { COMPRESSION: 'off', ETAGS: 'off' }, headers: () => ({}) },
      { name: 'ETags, not compressed', env: { COMPRESSION: 'off' }, headers: () => ({}) },
      { name: 'ETags + gzip', env: {}, headers: () => ({ 'accept-encoding': 'gzip' }) },
      { name: 'ETags + br', env: {}, headers: () => ({ 'accept-encoding': 'gzip, deflate, br' }) },
      {
        name: 'revalidated: 304',
        env: {},
        headers: (name) => ({ 'if-none-match': etags[name]!, 'accept-encoding': 'gzip, deflate, br' }),
        expectStatus: 304,
      },
    ];
    // All three services run at once and the variants take turns in short rounds, so load that drifts during
    // the run (a shared machine) hits every variant alike; each figure is the median over the rounds.
    const rounds = 5;
    console.log(
      `\n${dialect}: compression and ETags at ${connections} connections (median of ${rounds} rounds of ${Math.max(1, settings.seconds / rounds)} s)`,
    );
    const servers = new Map<string, Server>();
    const samples = new Map<string, Measurement[]>();
    try {
      for (const variant of variants) {
        const envKey = JSON.stringify(variant.env);
        if (!servers.has(envKey))
          servers.set(envKey, await Server.service(storage, await freePort(), [], variant.env));
      }
      for (let round = 0; round < rounds; round++) {
        for (const variant of variants) {
          const server = servers.get(JSON.stringify(variant.env))!;
          for (const [name, url] of Object.entries(requests)) {
            const m = await measure(
              server.url,
              {
                method: 'GET',
                path: url,
                headers: { ...auth, ...variant.headers(name) },
                ...(variant.expectStatus ? { expectStatus: variant.expectStatus } : {}),
              },
              {
                connections,
                warmupSeconds: round === 0 ? settings.warmupSeconds : 0,
                seconds: Math.max(1, settings.seconds / rounds),
                pid: server.pid,
              },
            );
            const key = `${variant.name}|${name}`;
            samples.set(key, [...(samples.get(key) ?? []), m]);
          }
        }
      }
    } finally {
      for (const server of servers.values()) await server.stop();
    }
    const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
    const rows: ConventionsRow[] = [];
    for (const variant of variants) {
      for (const name of Object.keys(requests)) {
        const of = samples.get(`${variant.name}|${name}`)!;
        const base = samples.get(`${variants[0]!.name}|${name}`)!;
        const rps = median(of.map((m) => m.rps));
        const p99 = median(of.map((m) => m.p99));
        const row: ConventionsRow = {
          request: name,
          variant: variant.name,
          rps,
          p50: median(of.map((m) => m.p50)),
          p99,
          peakRssMiB: Math.max(...of.map((m) => m.peakRssMiB)),
          non2xx: of.reduce((sum, m) => sum + m.non2xx, 0),
          rpsRatio: Math.round((rps / median(base.map((m) => m.rps))) * 1000) / 1000,
          p99Ratio: Math.round((p99 / median(base.map((m) => m.p99))) * 100) / 100,
        };
        rows.push(row);
        console.log(
          `  ${name.padEnd(20)} ${variant.name.padEnd(22)} ${String(rps).padStart(7)} req/s  p99 ${p99.toFixed(2).padStart(7)} ms  RSS ${row.peakRssMiB.toFixed(0).padStart(4)} MiB  ${row.non2xx ? `${row.non2xx} unexpected  ` : ''}x${row.rpsRatio.toFixed(2)} req/s, x${row.p99Ratio.toFixed(2)} p99`,
        );
      }
    }
    return { connections, sizes, rows };
  } finally {
    await dropStorage(storage);
  }
}

async function runProfile(dialect: 'sqlite' | 'postgres', scenario: string): Promise<void> {
  const storage = newStorage(dialect);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-prof-'));
  try {
    const { key } = brandWithKey(storage);
    const service = await Server.service(storage, await freePort(), ['--cpu-prof', '--cpu-prof-dir', dir]);
    let m: Awaited<ReturnType<typeof measure>>;
    try {
      const { file, ids } = await captureSamples(service.url, key);
      fs.rmSync(file, { force: true });
      const spec = scenarios(key, await createForm(service.url, key))[scenario];
      if (!spec) throw new Error(`unknown scenario ${scenario}`);
      m = await measure(service.url, spec(ids), {
        connections: 32,
        warmupSeconds: settings.warmupSeconds,
        seconds: settings.seconds,
        pid: service.pid,
      });
    } finally {
      await service.stop();
    }
    // One profile per thread: the event loop's, and those of the write, search and backup threads that ran.
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
    if (!files.length) throw new Error('the service wrote no CPU profile');
    const text = `${dialect} ${scenario} at 32 connections: ${m.rps} req/s, p99 ${m.p99} ms, ${m.cpuUsPerRequest ?? '?'} µs of CPU per request\n\n${files
      .sort()
      .map((f) => `## ${f}\n\n${formatProfile(summarizeProfile(path.join(dir, f)), m.cpuUsPerRequest)}`)
      .join('\n\n')}\n`;
    console.log(text);
    fs.mkdirSync(settings.outDir, { recursive: true });
    const out = path.join(settings.outDir, `${today()}-${dialect}-profile-${scenario}.txt`);
    fs.writeFileSync(out, text);
    console.log(`written to ${path.relative(process.cwd(), out)}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await dropStorage(storage);
  }
}

// ---- peers: other products on the same machine, in the same run --------------------------------------------

/** Rounds per peer comparison: the two take turns, so load that drifts during the run hits both alike. */
const PEER_ROUNDS = 3;
/** Leads made through each product's own API before the measurements (the service: by captureSamples). */
const PEER_SEEDED_LEADS = 150;

interface PeerSide {
  /** Medians over the rounds. */
  rps: number;
  p50: number;
  p99: number;
  /** Requests/s of each round, in order. */
  roundsRps: number[];
  non2xx: number;
  errors: number;
  peakRssMiB: number;
}

interface PeerRow {
  scenario: 'create' | 'list-100';
  connections: number;
  ours: PeerSide;
  peer: PeerSide;
  /** Ours ÷ the peer's: requests/s (median over median), and p99 the other way round (peer ÷ ours). */
  rpsRatio: number;
  p99Ratio: number;
}

interface PeerReport {
  version: string;
  database: string;
  access: string;
  requests: Record<PeerRow['scenario'], { ours: string; peer: string }>;
  ourSettings: string;
  rounds: number;
  secondsPerRound: number;
  seededLeads: number;
  startSeconds: number;
  /** Peak RSS over all of its measurements. */
  ourPeakRssMiB: number;
  peerPeakRssMiB: number;
  rows: PeerRow[];
}

const medianOf = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;

function peerSide(of: Measurement[]): PeerSide {
  return {
    rps: medianOf(of.map((m) => m.rps)),
    p50: medianOf(of.map((m) => m.p50)),
    p99: medianOf(of.map((m) => m.p99)),
    roundsRps: of.map((m) => m.rps),
    non2xx: of.reduce((sum, m) => sum + m.non2xx, 0),
    errors: of.reduce((sum, m) => sum + m.errors, 0),
    peakRssMiB: Math.max(...of.map((m) => m.peakRssMiB)),
  };
}

/**
 * Strapi 5 against the service: the service with response reuse off (RESPONSE_CACHE_MB=0) and Strapi on
 * SQLite, both up at once on the servers' core, each seeded through its own API; creates and lists of 100 in
 * rounds taking turns (ours, then Strapi's), medians over the rounds.
 */
async function runStrapi(): Promise<PeerReport> {
  ensureStrapi();
  const storage = newStorage('sqlite');
  const strapiData = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-bench-strapi-'));
  try {
    const { key } = brandWithKey(storage);
    const service = await Server.service(storage, await freePort(), settings.serviceNodeFlags, {
      RESPONSE_CACHE_MB: '0',
    });
    let strapi: Server | undefined;
    try {
      fs.rmSync((await captureSamples(service.url, key)).file, { force: true });
      const started = Date.now();
      strapi = await startStrapi(strapiData, await freePort());
      const startSeconds = Math.round((Date.now() - started) / 100) / 10;
      await seedStrapi(strapi.url, PEER_SEEDED_LEADS, (n) => formLead(6_000_000 + n, n));
      await checkStrapiList(strapi.url);
      const ours = scenarios(key, '');
      const theirs = strapiSpecs((n) => formLead(7_000_000 + n, n));
      const pairs = [
        { scenario: 'create', ours: ours['create-distinct']!([]), peer: theirs.create },
        { scenario: 'list-100', ours: ours['list-100']!([]), peer: theirs.list },
      ] as const;
      console.log(
        `\nsqlite: against Strapi ${STRAPI_VERSION} (up in ${startSeconds} s), ${PEER_ROUNDS} rounds of ${settings.seconds} s taking turns, medians; the service with response reuse off`,
      );
      const rows: PeerRow[] = [];
      for (const connections of settings.connections) {
        const measured = new Map<string, Measurement[]>();
        for (let round = 0; round < PEER_ROUNDS; round++) {
          for (const pair of pairs) {
            for (const [side, server, spec] of [
              ['ours', service, pair.ours],
              ['peer', strapi, pair.peer],
            ] as const) {
              const m = await measure(server.url, spec, {
                connections,
                warmupSeconds: round === 0 ? settings.warmupSeconds : 0,
                seconds: settings.seconds,
                pid: server.pid,
              });
              const key = `${pair.scenario}|${side}`;
              measured.set(key, [...(measured.get(key) ?? []), m]);
            }
          }
        }
        for (const pair of pairs) {
          const us = peerSide(measured.get(`${pair.scenario}|ours`)!);
          const them = peerSide(measured.get(`${pair.scenario}|peer`)!);
          const row: PeerRow = {
            scenario: pair.scenario,
            connections,
            ours: us,
            peer: them,
            rpsRatio: ratio(us.rps, them.rps),
            p99Ratio: ratio(them.p99, us.p99),
          };
          rows.push(row);
          const side = (name: string, s: PeerSide) =>
            `${name} ${String(s.rps).padStart(6)} req/s (${s.roundsRps.join(', ')}) p99 ${s.p99.toFixed(1)} ms RSS ${s.peakRssMiB.toFixed(0)} MiB${s.non2xx || s.errors ? ` ${s.non2xx} non-2xx ${s.errors} errors` : ''}`;
          console.log(
            `  ${pair.scenario.padEnd(8)} ${String(connections).padStart(3)} conns  ${side('lead-intake', us)}  |  ${side('Strapi', them)}  |  x${row.rpsRatio.toFixed(1)} req/s`,
          );
        }
      }
      return {
        version: STRAPI_VERSION,
        database: 'SQLite (better-sqlite3, Strapi defaults), a fresh file; the service on a fresh DATA_DIR',
        access:
          'public role granted api::lead.lead.create and find at bootstrap (users-permissions); no token',
        requests: {
          create: { ours: 'POST /v1/leads (create-distinct)', peer: 'POST /api/leads {"data": {...}}' },
          'list-100': { ours: 'GET /v1/leads?limit=100', peer: `GET ${STRAPI_LIST_PATH}` },
        },
        ourSettings: 'RESPONSE_CACHE_MB=0 (response reuse off)',
        rounds: PEER_ROUNDS,
        secondsPerRound: settings.seconds,
        seededLeads: PEER_SEEDED_LEADS,
        startSeconds,
        ourPeakRssMiB: Math.max(...rows.map((r) => r.ours.peakRssMiB)),
        peerPeakRssMiB: Math.max(...rows.map((r) => r.peer.peakRssMiB)),
        rows,
      };
    } finally {
      await strapi?.stop();
      await service.stop();
    }
  } finally {
    fs.rmSync(strapiData, { recursive: true, force: true });
    await dropStorage(storage);
  }
}

async function runPeers(dialect: 'sqlite' | 'postgres'): Promise<Record<string, PeerReport> | undefined> {
  if (!settings.peers.length) return undefined;
  if (dialect !== 'sqlite') {
    console.log(`\n${dialect}: peers are measured on SQLite only; skipped here`);
    return undefined;
  }
  const peers: Record<string, PeerReport> = {};
  for (const peer of settings.peers) if (peer === 'strapi') peers[peer] = await runStrapi();
  return peers;
}

// ---- reporting ---------------------------------------------------------------------------------------------

const today = () => new Date().toISOString().slice(0, 10);

function printHeader(): void {
  console.log(
    `  ${'scenario'.padEnd(16)} ${'target'.padEnd(8)} ${'conns'.padStart(5)} ${'req/s'.padStart(7)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'p99.9 ms'.padStart(9)} ${'err'.padStart(4)} ${'non2xx'.padStart(6)} ${'RSS MiB'.padStart(8)} ${'ratio'.padStart(6)} ${'CPU µs/req'.padStart(10)} ${'DB µs/req'.padStart(9)}`,
  );
}

function printRow(r: Row): void {
  console.log(
    `  ${r.scenario.padEnd(16)} ${r.target.padEnd(8)} ${String(r.connections).padStart(5)} ${String(r.rps).padStart(7)} ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)} ${r.p999.toFixed(2).padStart(9)} ${String(r.errors).padStart(4)} ${String(r.non2xx).padStart(6)} ${r.peakRssMiB.toFixed(0).padStart(8)} ${(r.ratio === undefined ? '' : r.ratio.toFixed(2)).padStart(6)} ${String(r.cpuUsPerRequest ?? '').padStart(10)} ${String(r.databaseCpuUsPerRequest ?? '').padStart(9)}`,
  );
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

function machine() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    model: cpus[0]?.model ?? 'unknown',
    memoryMiB: Math.round(os.totalmem() / 2 ** 20),
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    pinned: pinningDescription(),
  };
}

function growthRatios(growth: GrowthRow[]) {
  return [...new Set(growth.map((g) => g.query))].map((query) => {
    const of = growth.filter((g) => g.query === query);
    const first = of[0]!;
    const last = of.at(-1)!;
    return {
      query,
      from: first.leads,
      to: last.leads,
      p99From: first.p99,
      p99To: last.p99,
      ratio: Math.round((last.p99 / first.p99) * 100) / 100,
    };
  });
}

async function main(): Promise<void> {
  pinSelfToLoadCore();
  const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
  if (flags.profile) {
    for (const dialect of settings.databases) await runProfile(dialect, flags.profile);
    return;
  }
  fs.mkdirSync(settings.outDir, { recursive: true });
  for (const dialect of settings.databases) {
    const startedAt = new Date().toISOString();
    const loadBefore = os.loadavg();
    console.log(`\n${dialect}: ${settings.warmupSeconds} s warm-up + ${settings.seconds} s per run`);
    printHeader();
    const rows = await runScenarios(dialect);
    const conventions = settings.conventions ? await runConventions(dialect) : undefined;
    const peers = await runPeers(dialect);
    const creates: CreatesReport | undefined = wantCreates
      ? await runCreates(dialect, {
          before: settings.before,
          rounds: settings.rounds,
          seconds: settings.seconds,
          warmupSeconds: settings.warmupSeconds,
          // The reference measurement of issue 33: 32 connections.
          connections: 32,
          serviceCpus: settings.serviceCpus,
          serviceNodeFlags: settings.serviceNodeFlags,
          ...createsSettings,
          newStorage,
          dropStorage,
          brandWithKey,
          captureSamples,
          formLead,
        })
      : undefined;
    const out = path.join(settings.outDir, `${today()}-${dialect}.json`);
    const report = (growth: GrowthRow[]) => ({
      command,
      database: dialect,
      startedAt,
      finishedAt: new Date().toISOString(),
      machine: { ...machine(), loadAverageBefore: loadBefore, loadAverageAfter: os.loadavg() },
      node: process.version,
      commit: git(['rev-parse', 'HEAD']),
      uncommittedChanges:
        git(['status', '--porcelain', '--untracked-files=no', '--', 'src', 'bench', ':!bench/results']) !==
        '',
      settings: {
        warmupSeconds: settings.warmupSeconds,
        seconds: settings.seconds,
        connections: settings.connections,
        pipelining: 1,
        growthConnections: settings.growthConnections,
        serviceNodeFlags: settings.serviceNodeFlags,
        peers: settings.peers,
        serviceCpus: settings.serviceCpus,
        ...(wantCreates ? { before: settings.before, rounds: settings.rounds, ...createsSettings } : {}),
      },
      scenarios: rows,
      conventions,
      peers,
      creates,
      growth,
      growthRatios: growthRatios(growth),
    });
    // Written now and again after the growth runs, so a failure there keeps the scenario figures.
    fs.writeFileSync(out, `${JSON.stringify(report([]), null, 2)}\n`);
    const sizes = settings.growth === 'off' ? [] : numbers(settings.growth);
    if (sizes.length) console.log(`\n${dialect} growth at ${settings.growthConnections} connections:`);
    const growth = sizes.length ? await runGrowth(dialect, sizes) : [];
    for (const g of growthRatios(growth))
      console.log(`  ${g.query}: p99 ${g.p99From} ms -> ${g.p99To} ms (x${g.ratio})`);
    fs.writeFileSync(out, `${JSON.stringify(report(growth), null, 2)}\n`);
    console.log(`\nwritten to ${path.relative(process.cwd(), out)}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
