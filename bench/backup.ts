// npm run bench:backup: what a backup costs on SQLite at 10 thousand and 1 million leads. For each size, a fresh
// DATA_DIR is seeded through the real schema (bench/seed.ts), the service runs as a child process, and a steady
// stream of POST /v1/leads (open loop: one every 1000/rate ms, whether or not the last has answered) measures
// create latency
//   1. with no backup running (the baseline),
//   2. while `lead-intake backup` runs as its own process against the live DATA_DIR,
//   3. while the server makes a scheduled backup itself (BACKUP_INTERVAL_MINUTES=1: due a minute after start),
// reporting backup time, archive size, and the longest create latency of each phase and its ratio to the baseline.
//
//   npm run bench:backup                                  10000 and 1000000 leads
//   npm run bench:backup -- --sizes 10000 --rate 50 --out /tmp/bench
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import SQLite from 'better-sqlite3';
import { cli, freePort, ROOT, Server, type Storage } from './processes.js';
import { seedLeads } from './seed.js';

const { values: flags } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,1000000' },
    rate: { type: 'string', default: '50' },
    baseline: { type: 'string', default: '10' },
    scheduled: { type: 'string', default: 'on' },
    out: { type: 'string', default: path.join(ROOT, 'bench/results') },
    label: { type: 'string', default: '' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (flags.help) {
  console.log(`Usage: npm run bench:backup -- [--sizes 10000,1000000] [--rate 50] [--baseline 10] [--scheduled on|off] [--out DIR] [--label NAME]
  --sizes       lead counts, one fresh DATA_DIR each
  --rate        creates per second in the steady stream
  --baseline    seconds of the stream without a backup (at least as long as the backup phase, whichever is longer)
  --scheduled   also measure a scheduled backup made inside the server (waits about a minute per size)
  --out         where the results JSON goes (DATE-backup-<sizes>[-LABEL].json)
  --label       a suffix for the results file's name, e.g. "before"`);
  process.exit(0);
}

const BIN = path.join(ROOT, 'bin/lead-intake.js');
const sizes = flags.sizes.split(',').map(Number);
const rate = Number(flags.rate);

interface StreamStats {
  requests: number;
  /** Creates that did not answer 201 (a status other than 201, or no answer at all). */
  errors: number;
  /** Every create's outcome: a count per HTTP status, or per network error ("fetch: <code>"). */
  statuses: Record<string, number>;
  /** The distinct problem details of the non-201 answers (up to 5), e.g. "503 The server is overloaded…". */
  notCreated: string[];
  maxMs: number;
  p50Ms: number;
  p99Ms: number;
  seconds: number;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

let leadCounter = 0;
function lead(): Record<string, unknown> {
  leadCounter++;
  return {
    street: 'Keizersgracht',
    streetNumber: String(leadCounter % 500),
    postalCode: '1015 CJ',
    city: 'Amsterdam',
    customerName: `Bench Customer ${leadCounter}`,
    email: `bench-backup-${leadCounter}@example.com`,
    title: `Leaking tap ${leadCounter}`,
  };
}

/** An open-loop stream of creates until `until` resolves (and at least minSeconds). */
async function stream(
  url: string,
  key: string,
  until: Promise<unknown>,
  minSeconds = 0,
): Promise<StreamStats> {
  const latencies: number[] = [];
  let errors = 0;
  const statuses: Record<string, number> = {};
  const notCreated = new Set<string>();
  const count = (key: string) => {
    statuses[key] = (statuses[key] ?? 0) + 1;
  };
  const started = performance.now();
  let done = false;
  void until.finally(() => {
    done = true;
  });
  const inFlight: Promise<void>[] = [];
  const interval = 1000 / rate;
  let next = performance.now();
  while (!done || performance.now() - started < minSeconds * 1000) {
    const t0 = performance.now();
    inFlight.push(
      fetch(`${url}/v1/leads`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(lead()),
      })
        .then(async (res) => {
          const body = await res.text();
          count(String(res.status));
          if (res.status !== 201) {
            errors++;
            if (notCreated.size < 5) notCreated.add(`${res.status} ${problemDetail(body)}`);
          }
          latencies.push(performance.now() - t0);
        })
        .catch((error: unknown) => {
          errors++;
          const cause = (error as { cause?: { code?: string } }).cause;
          count(`fetch: ${cause?.code ?? (error instanceof Error ? error.message : String(error))}`);
        }),
    );
    next += interval;
    const wait = next - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  await Promise.all(inFlight);
  const sorted = latencies.sort((a, b) => a - b);
  return {
    requests: sorted.length,
    errors,
    statuses,
    notCreated: [...notCreated],
    maxMs: Math.round(sorted.at(-1) ?? 0),
    p50Ms: Math.round(percentile(sorted, 50) * 10) / 10,
    p99Ms: Math.round(percentile(sorted, 99) * 10) / 10,
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
}

function problemDetail(body: string): string {
  try {
    const problem = JSON.parse(body) as { detail?: string; title?: string };
    return problem.detail ?? problem.title ?? body.slice(0, 200);
  } catch {
    return body.slice(0, 200);
  }
}

/** The overload guard's refusals so far, by reason, from /metrics. */
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

const statusLine = (s: StreamStats) =>
  Object.entries(s.statuses)
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ');

function runCli(storage: Storage, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: storage.dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c;
    });
    child.stderr.on('data', (c: Buffer) => {
      err += c;
    });
    child.on('close', (code: number) =>
      code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')}: ${err}`)),
    );
  });
}

const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
const dirSize = (file: string) => {
  let total = 0;
  for (const suffix of ['', '-wal'])
    total += fs.statSync(`${file}${suffix}`, { throwIfNoEntry: false })?.size ?? 0;
  return total;
};

async function measureSize(size: number) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `lead-intake-bench-backup-${size}-`));
  const storage: Storage = { dialect: 'sqlite', dataDir };
  try {
    const brand = cli(storage, ['brands', 'create', '--name', 'Bench Backup']) as { id: string };
    const { key } = cli(storage, ['keys', 'create', '--name', 'bench', '--scopes', 'full']) as {
      key: string;
    };
    const loadavgBefore = os.loadavg().map((n) => Math.round(n * 100) / 100);
    let t = performance.now();
    await seedLeads(storage, brand.id, 0, size);
    const seedSeconds = Math.round((performance.now() - t) / 100) / 10;
    const dbFile = path.join(dataDir, 'lead-intake.sqlite');
    // The seed leaves its writes in the WAL (over a GiB at a million leads); folded in now, so the service does not
    // checkpoint them in the middle of a measured phase.
    const db = new SQLite(dbFile);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    console.log(`${size} leads seeded in ${seedSeconds} s; database ${mib(dirSize(dbFile))} MiB`);

    const server = await Server.service(storage, await freePort(), [], { BACKUP_INTERVAL_MINUTES: '0' });
    let cliPhase: StreamStats;
    let baseline: StreamStats;
    let cliBackup: { ms: number; bytes: number; leads: number };
    let cliShed: Record<string, number> = {};
    let baselineShed: Record<string, number> = {};
    try {
      // Warm up: the first requests compile and fill caches.
      await stream(server.url, key, new Promise((r) => setTimeout(r, 2000)));
      const archive = path.join(dataDir, 'bench-backup.tar.gz');
      t = performance.now();
      let result = '';
      const backup = runCli(storage, ['backup', '--to', archive, '--json']).then((out) => {
        result = out;
      });
      let shed = await shedCounts(server.url);
      cliPhase = await stream(server.url, key, backup);
      cliShed = since(shed, await shedCounts(server.url));
      const ms = Math.round(performance.now() - t);
      const parsed = JSON.parse(result) as { bytes: number; leads: number };
      cliBackup = { ms, bytes: parsed.bytes, leads: parsed.leads };
      fs.rmSync(archive, { force: true });
      console.log(
        `  backup (CLI process): ${(ms / 1000).toFixed(1)} s, ${mib(parsed.bytes)} MiB; longest create ${cliPhase.maxMs} ms (p99 ${cliPhase.p99Ms}); ${statusLine(cliPhase)}${cliPhase.notCreated.length ? `; ${cliPhase.notCreated.join(' | ')}` : ''}`,
      );
      shed = await shedCounts(server.url);
      baseline = await stream(
        server.url,
        key,
        new Promise((r) => setTimeout(r, Number(flags.baseline) * 1000)),
        cliPhase.seconds,
      );
      baselineShed = since(shed, await shedCounts(server.url));
      console.log(
        `  no backup:            longest create ${baseline.maxMs} ms (p99 ${baseline.p99Ms}); ${statusLine(baseline)}`,
      );
    } finally {
      await server.stop();
    }

    let scheduled: { ms: number; bytes: number; stream: StreamStats; shed: Record<string, number> } | null =
      null;
    if (flags.scheduled !== 'off') {
      const backupDir = path.join(dataDir, 'scheduled');
      const started = Date.now();
      const second = await Server.service(storage, await freePort(), [], {
        BACKUP_INTERVAL_MINUTES: '1',
        BACKUP_DIR: backupDir,
      });
      try {
        // Due one minute after the start; the stream starts a little before.
        await new Promise((r) => setTimeout(r, Math.max(0, started + 55_000 - Date.now())));
        let begun = 0;
        let ended = 0;
        const watch = (async () => {
          const deadline = Date.now() + 30 * 60_000;
          while (Date.now() < deadline) {
            if (!begun && fs.readdirSync(dataDir).some((n) => n.startsWith('.backup-'))) begun = Date.now();
            const made = fs.existsSync(backupDir)
              ? fs.readdirSync(backupDir).find((n) => /^lead-intake-.*\.tar\.gz$/.test(n))
              : undefined;
            if (made) {
              ended = Date.now();
              return path.join(backupDir, made);
            }
            await new Promise((r) => setTimeout(r, 20));
          }
          throw new Error('no scheduled backup within 30 minutes');
        })();
        const shed = await shedCounts(second.url);
        const during = await stream(second.url, key, watch);
        const file = await watch;
        scheduled = {
          ms: ended - (begun || ended),
          bytes: fs.statSync(file).size,
          stream: during,
          shed: since(shed, await shedCounts(second.url)),
        };
        console.log(
          `  backup (in the server): ${(scheduled.ms / 1000).toFixed(1)} s, ${mib(scheduled.bytes)} MiB; longest create ${during.maxMs} ms (p99 ${during.p99Ms}); ${statusLine(during)}${during.notCreated.length ? `; ${during.notCreated.join(' | ')}` : ''}`,
        );
      } finally {
        await second.stop();
      }
    }
    return {
      leads: size,
      seedSeconds,
      databaseMiB: mib(dirSize(dbFile)),
      rate,
      loadavgBefore,
      loadavgAfter: os.loadavg().map((n) => Math.round(n * 100) / 100),
      baseline: { ...baseline, shed: baselineShed },
      cliBackup: {
        ...cliBackup,
        stream: cliPhase,
        shed: cliShed,
        maxLatencyRatio: ratio(cliPhase.maxMs, baseline.maxMs),
      },
      scheduledBackup: scheduled && {
        ...scheduled,
        maxLatencyRatio: ratio(scheduled.stream.maxMs, baseline.maxMs),
      },
    };
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const ratio = (a: number, b: number) => Math.round((a / Math.max(1, b)) * 100) / 100;

const results = [];
for (const size of sizes) results.push(await measureSize(size));
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
const report = {
  when: new Date().toISOString(),
  commit,
  node: process.version,
  machine: { cores: os.cpus().length, model: os.cpus()[0]?.model, loadavg: os.loadavg() },
  results,
};
fs.mkdirSync(flags.out, { recursive: true });
const label = sizes.map((n) => (n >= 1e6 ? `${n / 1e6}m` : n >= 1e3 ? `${n / 1e3}k` : String(n))).join('-');
const out = path.join(
  flags.out,
  `${report.when.slice(0, 10)}-backup-${label}${flags.label ? `-${flags.label}` : ''}.json`,
);
fs.writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(`\nwritten to ${out}`);
for (const r of results) {
  console.log(
    `${r.leads} leads (load average ${r.loadavgBefore.join(' ')} before, ${r.loadavgAfter.join(' ')} after): CLI backup ${(r.cliBackup.ms / 1000).toFixed(1)} s, ${mib(r.cliBackup.bytes)} MiB; longest create ${r.cliBackup.stream.maxMs} ms vs ${r.baseline.maxMs} ms without (x${r.cliBackup.maxLatencyRatio}); statuses ${statusLine(r.cliBackup.stream)} (baseline ${statusLine(r.baseline)})` +
      (r.scheduledBackup
        ? `; in-server backup ${(r.scheduledBackup.ms / 1000).toFixed(1)} s, longest create ${r.scheduledBackup.stream.maxMs} ms (x${r.scheduledBackup.maxLatencyRatio}); statuses ${statusLine(r.scheduledBackup.stream)}`
        : ''),
  );
}
