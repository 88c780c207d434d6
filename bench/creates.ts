// The creates section of npm run bench (--before DIR): `POST /v1/leads` of today's service against the service of
// an earlier commit's built checkout, in alternating rounds on the same machine with the ceiling in each round; then
// today's service with many customers sharing one phone, and at a million leads, each beside the unique-phone
// figure of the same run. See bench/README.md "Creates against an earlier commit, and crowds".
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { type Crowd, crowdCustomerId, crowdPhone, crowdSize, seedCrowds } from './crowds.js';
import { type Measurement, measure, type RequestSpec } from './load.js';
import { freePort, Server, type ServiceCpus, type Storage } from './processes.js';
import { seedLeads } from './seed.js';

type Dialect = 'sqlite' | 'postgres';

/** What the section needs from bench/run.ts (its settings, storages and requests). */
export interface CreatesContext {
  before: string;
  rounds: number;
  seconds: number;
  warmupSeconds: number;
  connections: number;
  serviceCpus: ServiceCpus;
  serviceNodeFlags: string[];
  /** Leads in the brand of the "at 1M leads" run; 0: not measured. */
  createsAt: number;
  /** Customers sharing one phone, one crowd scenario pair each; empty: not measured. */
  crowdSizes: number[];
  newStorage: (dialect: Dialect) => Storage;
  dropStorage: (storage: Storage) => Promise<void>;
  /** A brand and its full key, made with the CLI of the checkout at `root` (default this one). */
  brandWithKey: (storage: Storage, root?: string) => { brandId: string; key: string };
  /** 150 creates, and real responses for the ceiling, in a file. */
  captureSamples: (url: string, key: string) => Promise<{ file: string; ids: string[] }>;
  /** The bench's create body: distinct `customer` numbers make distinct customers (email and mobile phone). */
  formLead: (customer: number, n: number) => string;
}

/** One measured run as stored: the Measurement, less what the tables do not need. */
export type Figures = Pick<
  Measurement,
  'rps' | 'p50' | 'p99' | 'p999' | 'errors' | 'non2xx' | 'peakRssMiB' | 'cpuUsPerRequest'
> & { databaseCpuUsPerRequest?: number };

export interface BeforeRound {
  round: number;
  /** Which ran first this round: the order alternates (ABBA), so drift hits both alike. */
  order: ['before', 'after'] | ['after', 'before'];
  before: Figures;
  after: Figures;
  ceiling: Figures;
  /** after ÷ before, requests/s. */
  ratio: number;
  beforeToCeiling: number;
  afterToCeiling: number;
}

export interface BeforeComparison {
  dir: string;
  commit: string;
  rounds: BeforeRound[];
  /** Medians over the rounds; `ratio` and the ceiling ratios are the medians of each round's ratio. */
  median: {
    before: Pick<Figures, 'rps' | 'p50' | 'p99'>;
    after: Pick<Figures, 'rps' | 'p50' | 'p99'>;
    ceiling: Pick<Figures, 'rps' | 'p50' | 'p99'>;
    ratio: number;
    beforeToCeiling: number;
    afterToCeiling: number;
  };
}

export interface DataRow {
  /** e.g. create-crowd-100k-phone-only, create-distinct@1M. */
  scenario: string;
  /** What the brand holds, in words. */
  data: string;
  /** The unique-phone scenario it is compared with (same run, same connections). */
  comparedWith: string;
  /** Requests/s of each round, in order. */
  roundsRps: number[];
  rps: number;
  p50: number;
  p99: number;
  baseRps: number;
  baseP50: number;
  baseP99: number;
  /** Medians of each round's ratio to its base: requests/s, p50, p99. */
  rpsRatio: number;
  p50Ratio: number;
  p99Ratio: number;
  non2xx: number;
  errors: number;
  /** Email crowds: customers with the phone when the last measurement ended (each create adds one). */
  crowdAtEnd?: number;
}

export interface CreatesReport {
  connections: number;
  rounds: number;
  seconds: number;
  warmupSeconds: number;
  serviceCpus: ServiceCpus;
  /** What every service of the section ran with besides the bench's usual settings. */
  serviceEnv?: Record<string, string>;
  before?: BeforeComparison;
  /** Unique phone on a fresh brand, and on the brand holding the crowds: the bases of the rows. */
  bases: { scenario: string; data: string; roundsRps: number[]; rps: number; p50: number; p99: number }[];
  rows: DataRow[];
}

const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 1000) / 1000 : Number.NaN);
/** The middle value; of an even count, the mean of the two middle ones (--rounds 2 must not pick the better). */
const median = (list: number[]) => {
  const sorted = [...list].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : Math.round(((sorted[mid - 1]! + sorted[mid]!) / 2) * 1000) / 1000;
};

function figures(m: Measurement): Figures {
  return {
    rps: m.rps,
    p50: m.p50,
    p99: m.p99,
    p999: m.p999,
    errors: m.errors,
    non2xx: m.non2xx,
    peakRssMiB: m.peakRssMiB,
    ...(m.cpuUsPerRequest === undefined ? {} : { cpuUsPerRequest: m.cpuUsPerRequest }),
    ...(m.databaseCpuUsPerRequest === undefined
      ? {}
      : { databaseCpuUsPerRequest: m.databaseCpuUsPerRequest }),
  };
}

/** `POST /v1/leads` with the body `body(n)` for the n-th request of the run. */
function createSpec(key: string, body: (n: number) => string): RequestSpec {
  let n = 0;
  return {
    method: 'POST',
    path: '/v1/leads',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: body(n),
    setupRequest: (request) => ({ ...request, body: body(n++) }),
  };
}

/**
 * Today's service takes its first scheduled backup 10 minutes after it starts (then daily); 3d20f80 has none. A
 * section whose services stay up longer than that (the seeding, then rounds) would measure one backup in some
 * round: scheduled backups are off here unless BACKUP_INTERVAL_MINUTES is set. A service without them ignores it.
 */
const SERVICE_ENV: Record<string, string> =
  process.env.BACKUP_INTERVAL_MINUTES === undefined ? { BACKUP_INTERVAL_MINUTES: '0' } : {};

/** Customer numbers for the section's unique-phone creates, apart from run.ts's (1M to 7M). */
let nextCustomer = 10_000_000;
const uniquePhone = (ctx: CreatesContext, key: string) =>
  createSpec(key, (n) => ctx.formLead(nextCustomer++, n));

function describe(label: string, m: Figures): string {
  return `${label.padEnd(34)} ${String(m.rps).padStart(6)} req/s  p50 ${m.p50.toFixed(2).padStart(7)} ms  p99 ${m.p99.toFixed(2).padStart(7)} ms${m.non2xx || m.errors ? `  ${m.non2xx} non-2xx ${m.errors} errors` : ''}`;
}

function commitOf(dir: string): string {
  try {
    return execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** The earlier checkout must be built: its CLI and service run from dist/ through bin/lead-intake.js. */
export function checkBefore(dir: string): void {
  for (const file of ['bin/lead-intake.js', 'dist', 'node_modules']) {
    if (!fs.existsSync(path.join(dir, file))) {
      throw new Error(`--before ${dir}: no ${file}; see bench/README.md for how to prepare it`);
    }
  }
}

/**
 * The earlier commit's service and today's, each on a fresh storage of its own and both up throughout, measured
 * in turn on unique-phone creates, the order alternating each round; the ceiling once per round.
 */
async function compareWithBefore(dialect: Dialect, ctx: CreatesContext): Promise<BeforeComparison> {
  const storages = { before: ctx.newStorage(dialect), after: ctx.newStorage(dialect) };
  const commit = commitOf(ctx.before);
  const servers: Server[] = [];
  let file: string | undefined;
  try {
    const keys = {
      before: ctx.brandWithKey(storages.before, ctx.before).key,
      after: ctx.brandWithKey(storages.after).key,
    };
    const before = await Server.service(
      storages.before,
      await freePort(),
      ctx.serviceNodeFlags,
      SERVICE_ENV,
      ctx.before,
    );
    servers.push(before);
    const after = await Server.service(storages.after, await freePort(), ctx.serviceNodeFlags, SERVICE_ENV);
    servers.push(after);
    // The same 150 leads in each, so both start from the same data; today's responses feed the ceiling.
    fs.rmSync((await ctx.captureSamples(before.url, keys.before)).file, { force: true });
    file = (await ctx.captureSamples(after.url, keys.after)).file;
    const ceiling = await Server.ceiling(file, await freePort());
    servers.push(ceiling);
    console.log(
      `\n${dialect}: creates, ${commit.slice(0, 10)} (${ctx.before}) against today's, ${ctx.rounds} rounds at ${ctx.connections} connections, ${ctx.warmupSeconds} s warm-up + ${ctx.seconds} s each, servers on ${ctx.serviceCpus === 'all' ? 'all cores' : 'the last core'}`,
    );
    const options = {
      connections: ctx.connections,
      warmupSeconds: ctx.warmupSeconds,
      seconds: ctx.seconds,
      databaseCpu: dialect === 'postgres',
    };
    const rounds: BeforeRound[] = [];
    for (let round = 0; round < ctx.rounds; round++) {
      const order: BeforeRound['order'] = round % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
      const got: Partial<Record<'before' | 'after', Figures>> = {};
      for (const side of order) {
        const server = side === 'before' ? before : after;
        got[side] = figures(
          await measure(server.url, uniquePhone(ctx, keys[side]), { ...options, pid: server.pid }),
        );
        console.log(
          `  round ${round + 1} ${describe(side === 'before' ? `before (${commit.slice(0, 7)})` : 'after (today)', got[side]!)}`,
        );
      }
      const top = figures(
        await measure(ceiling.url, uniquePhone(ctx, 'ceiling'), {
          ...options,
          databaseCpu: false,
          pid: ceiling.pid,
        }),
      );
      console.log(`  round ${round + 1} ${describe('ceiling', top)}`);
      const row: BeforeRound = {
        round: round + 1,
        order,
        before: got.before!,
        after: got.after!,
        ceiling: top,
        ratio: ratio(got.after!.rps, got.before!.rps),
        beforeToCeiling: ratio(got.before!.rps, top.rps),
        afterToCeiling: ratio(got.after!.rps, top.rps),
      };
      rounds.push(row);
      console.log(
        `  round ${row.round}: after ÷ before ${row.ratio.toFixed(3)}; to the ceiling: before ${row.beforeToCeiling.toFixed(3)}, after ${row.afterToCeiling.toFixed(3)}`,
      );
    }
    const mid = (side: 'before' | 'after' | 'ceiling') => ({
      rps: median(rounds.map((r) => r[side].rps)),
      p50: median(rounds.map((r) => r[side].p50)),
      p99: median(rounds.map((r) => r[side].p99)),
    });
    const result: BeforeComparison = {
      dir: ctx.before,
      commit,
      rounds,
      median: {
        before: mid('before'),
        after: mid('after'),
        ceiling: mid('ceiling'),
        ratio: median(rounds.map((r) => r.ratio)),
        beforeToCeiling: median(rounds.map((r) => r.beforeToCeiling)),
        afterToCeiling: median(rounds.map((r) => r.afterToCeiling)),
      },
    };
    console.log(
      `  median: before ${result.median.before.rps} req/s, after ${result.median.after.rps} req/s, ceiling ${result.median.ceiling.rps} req/s; after ÷ before ${result.median.ratio.toFixed(3)}; to the ceiling: before ${result.median.beforeToCeiling.toFixed(3)}, after ${result.median.afterToCeiling.toFixed(3)}`,
    );
    return result;
  } finally {
    for (const server of servers.reverse()) await server.stop();
    if (file) fs.rmSync(file, { force: true });
    for (const storage of Object.values(storages)) await ctx.dropStorage(storage);
  }
}

const sizeName = (n: number) =>
  n >= 1_000_000 && n % 1_000_000 === 0
    ? `${n / 1_000_000}M`
    : n >= 1000 && n % 1000 === 0
      ? `${n / 1000}k`
      : String(n);

/** One measurement of a round: which service, what it sends, what warms it up. */
interface Job {
  scenario: string;
  server: () => Server;
  spec: () => RequestSpec;
  /** The warm-up's requests when they must not be the measured ones (an email crowd would grow). */
  warmup?: () => RequestSpec;
}

/**
 * Today's service on three databases, all up throughout: a fresh brand (unique phones), a brand holding the crowds
 * (unique phones, and creates sending a crowd's phone with and without an email), and a brand of `createsAt` leads
 * (unique phones). Each round measures every job in turn (the order reversed every other round); each figure is
 * reported beside a unique-phone figure of the same round and connections, as a ratio.
 */
async function runData(dialect: Dialect, ctx: CreatesContext): Promise<Omit<CreatesReport, 'before'>> {
  const fresh = ctx.newStorage(dialect);
  const crowded = ctx.crowdSizes.length ? ctx.newStorage(dialect) : undefined;
  const large = ctx.createsAt > 0 ? ctx.newStorage(dialect) : undefined;
  const servers: Server[] = [];
  try {
    const freshKey = ctx.brandWithKey(fresh).key;
    const jobs: Job[] = [];
    const baseOf: Record<string, string> = {};
    const dataOf: Record<string, string> = {};
    const emailCrowds: { scenario: string; crowds: Crowd[]; brandId: string }[] = [];
    const freshServer = await Server.service(fresh, await freePort(), ctx.serviceNodeFlags, SERVICE_ENV);
    servers.push(freshServer);
    fs.rmSync((await ctx.captureSamples(freshServer.url, freshKey)).file, { force: true });
    jobs.push({
      scenario: 'create-distinct',
      server: () => freshServer,
      spec: () => uniquePhone(ctx, freshKey),
    });
    dataOf['create-distinct'] = 'a fresh brand (150 leads)';

    if (crowded) {
      const { brandId, key } = ctx.brandWithKey(crowded);
      // A phone-only crowd never grows (its creates link to the member with the latest lead): one per size. An
      // email crowd gains a customer per create, so each round measures a crowd of its own, seeded at its size.
      let index = 0;
      const phoneOnly = ctx.crowdSizes.map((size) => ({
        size,
        crowd: { index: index, phone: crowdPhone(index++), size, withLeads: true },
      }));
      const email = ctx.crowdSizes.map((size) => ({
        size,
        crowds: Array.from({ length: ctx.rounds }, () => ({
          index: index,
          phone: crowdPhone(index++),
          size,
          withLeads: false,
        })),
      }));
      const started = Date.now();
      await seedCrowds(crowded, brandId, [
        ...phoneOnly.map((p) => p.crowd),
        ...email.flatMap((e) => e.crowds),
      ]);
      const customers = ctx.crowdSizes.reduce((sum, n) => sum + n * (1 + ctx.rounds), 0);
      console.log(
        `\n${dialect}: seeded ${customers.toLocaleString('en')} customers in crowds of ${ctx.crowdSizes.map((n) => n.toLocaleString('en')).join(' and ')} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      const server = await Server.service(crowded, await freePort(), ctx.serviceNodeFlags, SERVICE_ENV);
      servers.push(server);
      fs.rmSync((await ctx.captureSamples(server.url, key)).file, { force: true });
      const base = 'create-distinct (crowd brand)';
      const crowdData = `a brand with ${customers.toLocaleString('en')} customers in crowds`;
      jobs.push({ scenario: base, server: () => server, spec: () => uniquePhone(ctx, key) });
      dataOf[base] = crowdData;
      for (const { size, crowd } of phoneOnly) {
        const scenario = `create-crowd-${sizeName(size)}-phone-only`;
        const body = (n: number) => {
          const lead = JSON.parse(ctx.formLead(nextCustomer++, n)) as Record<string, unknown>;
          delete lead.email;
          return JSON.stringify({ ...lead, phone: crowd.phone });
        };
        await checkLink(server.url, key, body(0), crowdCustomerId(crowd, size - 1), scenario);
        jobs.push({ scenario, server: () => server, spec: () => createSpec(key, body) });
        baseOf[scenario] = base;
        dataOf[scenario] =
          `${size.toLocaleString('en')} customers (each with a lead and an email) share the phone; no email sent: links to the one with the latest lead`;
      }
      for (const { size, crowds } of email) {
        const scenario = `create-crowd-${sizeName(size)}-email`;
        let round = 0;
        const body = (phone: string) => (n: number) =>
          JSON.stringify({ ...JSON.parse(ctx.formLead(nextCustomer++, n)), phone });
        // The check links the first round's crowd one customer further; the crowd is still its size to a tenth.
        await checkLink(server.url, key, body(crowds[0]!.phone)(0), 'new', scenario);
        jobs.push({
          scenario,
          server: () => server,
          spec: () => createSpec(key, body(crowds[round++ % crowds.length]!.phone)),
          warmup: () => uniquePhone(ctx, key),
        });
        baseOf[scenario] = base;
        dataOf[scenario] =
          `${size.toLocaleString('en')} customers (each with an email, no leads) share the phone; a new email sent: a new customer`;
        emailCrowds.push({ scenario, crowds, brandId });
      }
    }

    if (large) {
      const { brandId, key } = ctx.brandWithKey(large);
      const started = Date.now();
      await seedLeads(large, brandId, 0, ctx.createsAt);
      console.log(
        `\n${dialect}: seeded ${ctx.createsAt.toLocaleString('en')} leads in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      const server = await Server.service(large, await freePort(), ctx.serviceNodeFlags, SERVICE_ENV);
      servers.push(server);
      const scenario = `create-distinct@${sizeName(ctx.createsAt)}`;
      jobs.push({ scenario, server: () => server, spec: () => uniquePhone(ctx, key) });
      baseOf[scenario] = 'create-distinct';
      dataOf[scenario] = `a brand of ${ctx.createsAt.toLocaleString('en')} leads (1,000 customers)`;
    }

    console.log(
      `\n${dialect}: creates with the data, ${ctx.rounds} rounds at ${ctx.connections} connections, ${ctx.warmupSeconds} s warm-up + ${ctx.seconds} s each`,
    );
    const measured = new Map<string, Figures[]>();
    for (let round = 0; round < ctx.rounds; round++) {
      for (const job of round % 2 === 0 ? jobs : [...jobs].reverse()) {
        const server = job.server();
        const options = {
          connections: ctx.connections,
          pid: server.pid,
          databaseCpu: dialect === 'postgres',
        };
        if (job.warmup && ctx.warmupSeconds > 0) {
          await measure(server.url, job.warmup(), {
            ...options,
            warmupSeconds: 0,
            seconds: ctx.warmupSeconds,
          });
        }
        const m = figures(
          await measure(server.url, job.spec(), {
            ...options,
            warmupSeconds: job.warmup ? 0 : ctx.warmupSeconds,
            seconds: ctx.seconds,
          }),
        );
        measured.set(job.scenario, [...(measured.get(job.scenario) ?? []), m]);
        console.log(`  round ${round + 1} ${describe(job.scenario, m)}`);
      }
    }

    const bases: CreatesReport['bases'] = [];
    for (const scenario of new Set(Object.values(baseOf))) {
      const of = measured.get(scenario)!;
      bases.push({
        scenario,
        data: dataOf[scenario]!,
        roundsRps: of.map((m) => m.rps),
        rps: median(of.map((m) => m.rps)),
        p50: median(of.map((m) => m.p50)),
        p99: median(of.map((m) => m.p99)),
      });
    }
    // A scenario against its base, every ratio the median of each round's ratio.
    const compared = (scenario: string, baseName: string): DataRow => {
      const of = measured.get(scenario)!;
      const base = measured.get(baseName)!;
      const each = (pick: (m: Figures) => number) => median(of.map((m, i) => ratio(pick(m), pick(base[i]!))));
      return {
        scenario,
        data: dataOf[scenario]!,
        comparedWith: baseName,
        roundsRps: of.map((m) => m.rps),
        rps: median(of.map((m) => m.rps)),
        p50: median(of.map((m) => m.p50)),
        p99: median(of.map((m) => m.p99)),
        baseRps: median(base.map((m) => m.rps)),
        baseP50: median(base.map((m) => m.p50)),
        baseP99: median(base.map((m) => m.p99)),
        rpsRatio: each((m) => m.rps),
        p50Ratio: each((m) => m.p50),
        p99Ratio: each((m) => m.p99),
        non2xx: of.reduce((sum, m) => sum + m.non2xx, 0),
        errors: of.reduce((sum, m) => sum + m.errors, 0),
      };
    };
    const rows: DataRow[] = Object.entries(baseOf).map(([scenario, baseName]) =>
      compared(scenario, baseName),
    );
    // What the crowd base itself costs against a fresh brand: the customers in it, not their sharing a phone.
    if (crowded) rows.unshift(compared('create-distinct (crowd brand)', 'create-distinct'));
    for (const { scenario, crowds, brandId } of emailCrowds) {
      const row = rows.find((r) => r.scenario === scenario)!;
      row.crowdAtEnd = await crowdSize(crowded!, brandId, crowds.at(-1)!.phone);
    }
    for (const row of rows) {
      console.log(
        `  ${row.scenario.padEnd(34)} ${String(row.rps).padStart(6)} req/s ÷ ${row.comparedWith} ${row.baseRps} = ${row.rpsRatio.toFixed(3)}; p50 x${row.p50Ratio.toFixed(2)}, p99 x${row.p99Ratio.toFixed(2)}${row.crowdAtEnd ? `; the last crowd ended at ${row.crowdAtEnd.toLocaleString('en')}` : ''}`,
      );
    }
    return {
      connections: ctx.connections,
      rounds: ctx.rounds,
      seconds: ctx.seconds,
      warmupSeconds: ctx.warmupSeconds,
      serviceCpus: ctx.serviceCpus,
      bases,
      rows,
    };
  } finally {
    for (const server of servers.reverse()) await server.stop();
    for (const storage of [fresh, crowded, large]) if (storage) await ctx.dropStorage(storage);
  }
}

/**
 * One create as the scenario will send it, before measuring: it must link as the scenario says (to `expected`, or
 * to a new customer), or the figures would measure something else.
 */
async function checkLink(url: string, key: string, body: string, expected: string, scenario: string) {
  const res = await fetch(`${url}/v1/leads`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body,
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`${scenario}: the check create failed: ${res.status} ${text}`);
  const customerId = (JSON.parse(text) as { customerId?: string }).customerId;
  // Seeded crowd members have ids of digits after cus_cNN (crowdCustomerId); the service's own are random.
  const ok = expected === 'new' ? !!customerId && !/^cus_c\d{25}$/.test(customerId) : customerId === expected;
  if (!ok) throw new Error(`${scenario}: linked to ${customerId}, expected ${expected}`);
}

/** The section: the comparison with the earlier commit (when --before is given), then the data scenarios. */
export async function runCreates(dialect: Dialect, ctx: CreatesContext): Promise<CreatesReport> {
  const before = ctx.before ? await compareWithBefore(dialect, ctx) : undefined;
  const data =
    ctx.crowdSizes.length || ctx.createsAt > 0
      ? await runData(dialect, ctx)
      : {
          connections: ctx.connections,
          rounds: ctx.rounds,
          seconds: ctx.seconds,
          warmupSeconds: ctx.warmupSeconds,
          serviceCpus: ctx.serviceCpus,
          bases: [],
          rows: [],
        };
  return { ...data, serviceEnv: SERVICE_ENV, ...(before ? { before } : {}) };
}
