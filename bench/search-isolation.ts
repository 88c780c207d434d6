// Issue 29's search figures, before and after, in one run: the review's three measurements taken against the
// service as it was before search was confined and bounded (a git worktree of that commit, built) and against
// this checkout, on the same machine, one after the other, on SQLite and PostgreSQL.
//
//   1. one 40-term query in a brand where 2,000 planted leads hold every term thousands of times;
//   2. another tenant's worst wait while that brand sends the query from 4 connections for ATTACK_SECONDS;
//   3. a 100-lead brand's search for words all of another brand's 20,000 leads hold and none of its own.
// After the change the 40-term query is refused (422, at most 8 words), so 1 and 2 are also measured with the
// worst query still allowed: 8 distinct words, all in every planted lead.
//
//   npm run bench:search                                  # SQLite, plus PostgreSQL with TEST_DATABASE_URL
//   npm run bench:search -- --before /work/bench-before   # the built checkout of the earlier commit
//   npm run bench:search -- --db sqlite --crowd 5000 --planted 500   # a smaller run
//
// `--before` defaults to BENCH_BEFORE_DIR; make one with
//   git worktree add --detach ../bench-before 1fda432 && ln -s "$PWD/node_modules" ../bench-before/ \
//     && (cd ../bench-before && npm run build)
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { freePort, ROOT, Server, type Storage, serviceEnv } from './processes.js';

const { values: options } = parseArgs({
  options: {
    db: { type: 'string', default: process.env.BENCH_DB ?? '' },
    before: { type: 'string', default: process.env.BENCH_BEFORE_DIR ?? '' },
    crowd: { type: 'string', default: '20000' },
    planted: { type: 'string', default: '2000' },
    victim: { type: 'string', default: '100' },
    'attack-seconds': { type: 'string', default: '10' },
    out: { type: 'string', default: path.join(ROOT, 'bench/results') },
  },
});

const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const dialects = (options.db || (postgresUrl ? 'sqlite,postgres' : 'sqlite')).split(',') as Array<
  'sqlite' | 'postgres'
>;
const CROWD = Number(options.crowd);
const PLANTED = Number(options.planted);
const VICTIM = Number(options.victim);
const ATTACK_MS = Number(options['attack-seconds']) * 1000;

/**
 * What the attacker plants: descriptions of one letter repeated (5,000 characters, the field's limit), so the
 * trigram `aaa` sits at thousands of positions in every planted lead, and every term of the query is a phrase
 * that has to be checked against all of them.
 */
const PLANTED_TEXT = 'a'.repeat(4990);
/** 40 terms, repeats included (199 characters, within q's 200): what the review sent. */
const QUERY_40 = Array.from({ length: 40 }, () => 'aaaa').join(' ');
/** The worst query still allowed after the change: 8 distinct words, all of them in every planted lead. */
const QUERY_8 = Array.from({ length: 8 }, (_, i) => 'a'.repeat(3 + i)).join(' ');

interface Variant {
  name: 'before' | 'after';
  root: string;
  commit: string;
}

function commitOf(root: string): string {
  return execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
}

function cliIn(variant: Variant, storage: Storage, args: string[]): Record<string, unknown> {
  const out = execFileSync(
    process.execPath,
    [path.join(variant.root, 'bin/lead-intake.js'), ...args, '--json'],
    {
      cwd: variant.root,
      env: serviceEnv(storage),
      encoding: 'utf8',
    },
  );
  return JSON.parse(out);
}

function newStorage(dialect: 'sqlite' | 'postgres'): Storage {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-search-bench-'));
  if (dialect === 'sqlite') return { dialect, dataDir };
  if (!postgresUrl) throw new Error('PostgreSQL needs BENCH_DATABASE_URL or TEST_DATABASE_URL');
  return { dialect, dataDir, databaseUrl: postgresUrl, schema: `bench_${randomBytes(5).toString('hex')}` };
}

async function dropStorage(storage: Storage): Promise<void> {
  fs.rmSync(storage.dataDir, { recursive: true, force: true });
  if (storage.dialect !== 'postgres') return;
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${storage.schema}" cascade`);
  } finally {
    await client.end();
  }
}

function brandWithKey(variant: Variant, storage: Storage, name: string): string {
  const brand = cliIn(variant, storage, ['brands', 'create', '--name', name]);
  const key = cliIn(variant, storage, [
    ...['keys', 'create', '--name', 'bench', '--scopes', 'full', '--brand', String(brand.id)],
    ...['--reads-per-minute', '1000000', '--writes-per-minute', '1000000'],
  ]);
  return String(key.key);
}

function lead(n: number, description: string): string {
  return JSON.stringify({
    title: 'Leaking tap in the kitchen',
    description,
    customerName: `Customer ${n}`,
    email: `c${n}-${randomBytes(3).toString('hex')}@example.com`,
    phone: `+31 6 ${String(n % 100_000_000).padStart(8, '0')}`,
    street: 'Keizersgracht',
    streetNumber: String((n % 500) + 1),
    postalCode: '1015 CJ',
    city: 'Amsterdam',
  });
}

/** `count` creates over 16 connections. */
async function seed(url: string, key: string, count: number, description: (n: number) => string, from = 0) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const res = await fetch(`${url}/v1/leads`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: lead(from + n, description(n)),
      });
      if (res.status !== 201) throw new Error(`seeding: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

async function timed(
  url: string,
  key: string,
  pathAndQuery: string,
): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  try {
    const res = await fetch(`${url}${pathAndQuery}`, { headers: { 'x-api-key': key } });
    await res.arrayBuffer();
    return { ms: performance.now() - started, status: res.status };
  } catch {
    // A connection the server reset or closed: a failed request, status 0.
    return { ms: performance.now() - started, status: 0 };
  }
}

const search = (q: string) => `/v1/leads?limit=20&q=${encodeURIComponent(q)}`;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

interface Attack {
  attackerQueries: number;
  attackerStatuses: Record<string, number>;
  attackerLongestMs: number;
  victimRequests: number;
  victimFailures: number;
  victimP50Ms: number;
  victimWorstMs: number;
}

/** The attacker's query from 4 connections for ATTACK_MS; the victim reads its list every 100 ms meanwhile. */
async function attack(url: string, attackerKey: string, victimKey: string, query: string): Promise<Attack> {
  const until = Date.now() + ATTACK_MS;
  const statuses: Record<string, number> = {};
  let attackerQueries = 0;
  let attackerLongestMs = 0;
  const attacker = async () => {
    while (Date.now() < until) {
      const { ms, status } = await timed(url, attackerKey, search(query));
      attackerQueries++;
      attackerLongestMs = Math.max(attackerLongestMs, ms);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  const waits: number[] = [];
  let failures = 0;
  const victim = async () => {
    while (Date.now() < until) {
      const { ms, status } = await timed(url, victimKey, '/v1/leads?limit=20');
      waits.push(ms);
      if (status !== 200) failures++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  await Promise.all([attacker(), attacker(), attacker(), attacker(), victim()]);
  return {
    attackerQueries,
    attackerStatuses: statuses,
    attackerLongestMs: Math.round(attackerLongestMs),
    victimRequests: waits.length,
    victimFailures: failures,
    victimP50Ms: Math.round(percentile(waits, 50)),
    victimWorstMs: Math.round(Math.max(...waits)),
  };
}

interface Result {
  variant: string;
  commit: string;
  dialect: string;
  query40: { ms: number; status: number }[];
  query8: { ms: number; status: number }[];
  attack40: Attack;
  attack8: Attack;
  /** The 100-lead brand's search for words only the crowd's leads hold, 20 times in a row. */
  victimSearch: { p50Ms: number; worstMs: number; statuses: Record<string, number> };
  seedSeconds: number;
}

async function measureVariant(variant: Variant, dialect: 'sqlite' | 'postgres'): Promise<Result> {
  const storage = newStorage(dialect);
  try {
    const crowdKey = brandWithKey(variant, storage, 'Crowd Installers');
    const victimKey = brandWithKey(variant, storage, 'Victim Plumbing');
    const attackerKey = brandWithKey(variant, storage, 'Attacker BV');
    const port = await freePort();
    const server = await Server.start(
      [path.join(variant.root, 'bin/lead-intake.js'), 'serve'],
      // Every query of the attack is the same URL: without this the response cache would answer most of them.
      serviceEnv(storage, { RESPONSE_CACHE_MB: '0' }),
      port,
      { cwd: variant.root },
    );
    try {
      const seedStart = performance.now();
      await seed(
        server.url,
        crowdKey,
        CROWD,
        (n) => `The kitchen tap drips constantly since last week; request ${n}.`,
      );
      await seed(server.url, victimKey, VICTIM, (n) => `Boiler service, request ${n}.`, 1_000_000);
      await seed(server.url, attackerKey, PLANTED, (n) => `${PLANTED_TEXT} ${n}`, 2_000_000);
      const seedSeconds = Math.round((performance.now() - seedStart) / 1000);
      // First, while nothing else runs: the 100-lead brand's search beside the crowd.
      const times: number[] = [];
      const statuses: Record<string, number> = {};
      for (let i = 0; i < 20; i++) {
        // Words in every one of the crowd's leads and in none of the victim's: before, FTS5 found the crowd's
        // 20,000 documents and the brand condition dropped them afterwards.
        const { ms, status } = await timed(server.url, victimKey, search(`kitchen drips ${i}`));
        times.push(ms);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
      const victimSearch = {
        p50Ms: Math.round(percentile(times, 50) * 10) / 10,
        worstMs: Math.round(Math.max(...times) * 10) / 10,
        statuses,
      };
      const query40 = [];
      const query8 = [];
      for (let i = 0; i < 3; i++) query40.push(await timed(server.url, attackerKey, search(QUERY_40)));
      for (let i = 0; i < 3; i++) query8.push(await timed(server.url, attackerKey, search(QUERY_8)));
      const attack40 = await attack(server.url, attackerKey, victimKey, QUERY_40);
      const attack8 = await attack(server.url, attackerKey, victimKey, QUERY_8);
      const round = (r: { ms: number; status: number }) => ({ ms: Math.round(r.ms), status: r.status });
      return {
        variant: variant.name,
        commit: variant.commit,
        dialect,
        query40: query40.map(round),
        query8: query8.map(round),
        attack40,
        attack8,
        victimSearch,
        seedSeconds,
      };
    } finally {
      await server.stop();
    }
  } finally {
    await dropStorage(storage);
  }
}

function table(results: Result[]): string {
  const lines = [
    '| database | service | 40-term query | 8-term query | other tenant worst wait (40 / 8 terms) | failed | 100-lead brand search p50 / worst |',
    '|---|---|--:|--:|--:|--:|--:|',
  ];
  for (const r of results) {
    // The first of the three: later ones may meet the load shedding the first one caused.
    const q = (runs: { ms: number; status: number }[]) => `${runs[0]?.ms} ms (${runs[0]?.status})`;
    lines.push(
      `| ${r.dialect} | ${r.variant} ${r.commit} | ${q(r.query40)} | ${q(r.query8)} | ${r.attack40.victimWorstMs} / ${r.attack8.victimWorstMs} ms | ${r.attack40.victimFailures + r.attack8.victimFailures} | ${r.victimSearch.p50Ms} / ${r.victimSearch.worstMs} ms |`,
    );
  }
  return lines.join('\n');
}

async function main() {
  if (!options.before)
    throw new Error('--before DIR (or BENCH_BEFORE_DIR): a built checkout of the earlier commit');
  const before: Variant = {
    name: 'before',
    root: path.resolve(options.before),
    commit: commitOf(options.before),
  };
  const after: Variant = { name: 'after', root: ROOT, commit: commitOf(ROOT) };
  const results: Result[] = [];
  for (const dialect of dialects) {
    for (const variant of [before, after]) {
      console.error(`${dialect} ${variant.name} (${variant.commit}) …`);
      const result = await measureVariant(variant, dialect);
      console.error(JSON.stringify(result));
      results.push(result);
    }
  }
  const report = {
    date: new Date().toISOString(),
    machine: { cores: os.cpus().length, model: os.cpus()[0]?.model, loadavg: os.loadavg() },
    node: process.version,
    options: { crowd: CROWD, planted: PLANTED, victim: VICTIM, attackSeconds: ATTACK_MS / 1000 },
    results,
  };
  fs.mkdirSync(options.out, { recursive: true });
  const file = path.join(options.out, `${report.date.slice(0, 10)}-search-isolation.json`);
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(table(results));
  console.log(`\n${file}`);
}

await main();
