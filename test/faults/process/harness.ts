// Drives real `lead-intake serve` processes for the fault tests: start, seed, load, kill, verify storage.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import type { DatabaseConfig } from '../../../src/platform/config.js';
import { type DB, openDatabase } from '../../../src/platform/db/database.js';
import { dropSchemaNamed, freePort } from '../../helpers.js';

const run = promisify(execFile);
export const ROOT = path.resolve(import.meta.dirname, '../../..');
const BIN = path.join(ROOT, 'bin/lead-intake.js');

/** The PostgreSQL URL for fault tests; under CI=true its absence is a failure, never a skip. */
export function postgresUrl(): string | undefined {
  const url = process.env.TEST_DATABASE_URL;
  const ci = process.env.CI === 'true' || process.env.CI === '1';
  if (!url && ci)
    throw new Error('CI=true but TEST_DATABASE_URL is not set: PostgreSQL fault tests must run');
  return url;
}

export function faultDialects(): ('sqlite' | 'postgres')[] {
  return postgresUrl() ? ['sqlite', 'postgres'] : ['sqlite'];
}

export { freePort };

/** Where one service instance keeps its data: a fresh directory, and on PostgreSQL a fresh schema. */
export interface Storage {
  dialect: 'sqlite' | 'postgres';
  dataDir: string;
  databaseUrl?: string;
  schema?: string;
}

export function newStorage(dialect: 'sqlite' | 'postgres', databaseUrl = postgresUrl()): Storage {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-fault-'));
  if (dialect === 'sqlite') return { dialect, dataDir };
  if (!databaseUrl) throw new Error('PostgreSQL storage needs TEST_DATABASE_URL');
  return { dialect, dataDir, databaseUrl, schema: `f_${randomBytes(6).toString('hex')}` };
}

export function databaseConfig(storage: Storage): DatabaseConfig {
  return storage.dialect === 'sqlite'
    ? { dialect: 'sqlite', file: path.join(storage.dataDir, 'lead-intake.sqlite') }
    : { dialect: 'postgres', url: storage.databaseUrl!, schema: storage.schema!, poolMax: 2 };
}

export function serviceEnv(storage: Storage, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(DATABASE_|DATA_DIR|PORT|HOST|REDIS_URL|METRICS_TOKEN|NODE_OPTIONS|VITEST)/.test(name))
      delete env[name];
  }
  return {
    ...env,
    HOST: '127.0.0.1',
    DATA_DIR: storage.dataDir,
    LOG_LEVEL: 'warn',
    // These tests are about durability, not rate limits: let every request through.
    RATE_LIMIT_READS_PER_MINUTE: '1000000',
    RATE_LIMIT_WRITES_PER_MINUTE: '1000000',
    ...(storage.databaseUrl ? { DATABASE_URL: storage.databaseUrl, DATABASE_SCHEMA: storage.schema } : {}),
    ...extra,
  };
}

export async function cli(storage: Storage, args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [BIN, ...args, '--json'], {
    cwd: ROOT,
    env: serviceEnv(storage),
  });
  return JSON.parse(stdout);
}

export async function seedBrandAndKey(storage: Storage): Promise<{ brandId: string; key: string }> {
  const brand = await cli(storage, ['brands', 'create', '--name', 'Fault Test Plumbing']);
  const key = await cli(storage, [
    'keys',
    'create',
    '--name',
    'fault-test',
    '--scopes',
    'full',
    '--reads-per-minute',
    '1000000',
    '--writes-per-minute',
    '1000000',
  ]);
  return { brandId: String(brand.id), key: String(key.key) };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

// A test that times out never reaches its cleanup: kill whatever servers it left when the worker exits.
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** One `node bin/lead-intake.js serve` child on 127.0.0.1. */
export class ServerProcess {
  readonly url: string;
  readonly exited: Promise<Exit>;
  private output = '';

  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
  ) {
    this.url = `http://127.0.0.1:${port}`;
    const append = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-20_000);
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  static async start(
    storage: Storage,
    options: { port?: number; env?: Record<string, string>; root?: string } = {},
  ): Promise<ServerProcess> {
    const port = options.port ?? (await freePort());
    // `root`: another checkout of lead-intake, built (the previous release, in the rolling-deploy test).
    const root = options.root ?? ROOT;
    const child = spawn(process.execPath, [path.join(root, 'bin/lead-intake.js'), 'serve'], {
      cwd: root,
      env: serviceEnv(storage, { PORT: String(port), ...options.env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    child.once('exit', () => children.delete(child));
    const server = new ServerProcess(child, port);
    await server.waitUntilUp();
    return server;
  }

  /** Everything the process printed lately, for failure messages. */
  get log(): string {
    return this.output;
  }

  get pid(): number {
    return this.child.pid!;
  }

  private async waitUntilUp(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let exited = false;
    void this.exited.then(() => {
      exited = true;
    });
    while (Date.now() < deadline && !exited) {
      try {
        const res = await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(1000) });
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      await sleep(50);
    }
    this.child.kill('SIGKILL');
    throw new Error(`server did not come up on ${this.url}:\n${this.output}`);
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  async stop(): Promise<Exit> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    return this.exited;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A lead body whose customer is one of `customers` (so some requests take the linking path). */
export function leadBody(tag: string, n: number, customers = 1_000_000): Record<string, string> {
  const c = Math.floor(Math.random() * customers);
  return {
    street: `Street ${c}`,
    streetNumber: String((c % 200) + 1),
    postalCode: `10${String(c % 100).padStart(2, '0')} AB`,
    city: 'Utrecht',
    customerName: `Customer ${tag} ${c}`,
    email: `c${c}-${tag}@example.com`,
    title: `Job ${tag} ${n}`,
    description: `Fault test request ${n} of run ${tag}`,
    priority: 'high',
  };
}

export interface Outcome {
  status: number;
  contentType?: string;
  retryAfter?: string | null;
  body?: Record<string, unknown>;
  /** Set when the request got no HTTP answer: refused, reset, or timed out. */
  error?: string;
  /** Date.now() when the request was sent, and how long it took. */
  startedAt: number;
  ms: number;
}

export async function request(
  url: string,
  init: RequestInit & { timeoutMs?: number } = {},
): Promise<Outcome> {
  const started = performance.now();
  const startedAt = Date.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(init.timeoutMs ?? 20_000) });
    const text = await res.text();
    let body: Record<string, unknown> | undefined;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = { raw: text };
    }
    return {
      status: res.status,
      contentType: res.headers.get('content-type') ?? undefined,
      retryAfter: res.headers.get('retry-after'),
      body,
      startedAt,
      ms: performance.now() - started,
    };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    const name = (error as Error).name;
    return {
      status: 0,
      error: cause?.code ?? name ?? String(error),
      startedAt,
      ms: performance.now() - started,
    };
  }
}

/**
 * Concurrent writers that remember every lead the server acknowledged with a 2xx, and every other outcome.
 * The acknowledged map is the promise the service made: each of those leads must survive any fault.
 */
export class WriteLoad {
  readonly acknowledged = new Map<string, Record<string, string>>();
  readonly outcomes: Outcome[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private counter = 0;
  /** How long a client waits for an answer before it counts the request as hung. */
  timeoutMs = 20_000;

  constructor(
    private readonly target: () => string,
    private readonly key: string,
    private readonly tag = randomBytes(3).toString('hex'),
    private readonly customers = 50,
  ) {}

  start(concurrency: number): void {
    this.running = true;
    for (let i = 0; i < concurrency; i++) this.loops.push(this.loop());
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    this.loops = [];
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const body = leadBody(this.tag, this.counter++, this.customers);
      const outcome = await request(`${this.target()}/v1/leads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': this.key },
        body: JSON.stringify(body),
        timeoutMs: this.timeoutMs,
      });
      this.outcomes.push(outcome);
      if (outcome.status >= 200 && outcome.status < 300) {
        this.acknowledged.set(String(outcome.body?.id), body);
      } else if (outcome.status === 0) {
        // No server to talk to right now: do not spin.
        await sleep(20);
      }
    }
  }
}

/** Reads every acknowledged lead back over HTTP and returns a description of each one missing or wrong. */
export async function findLostOrWrong(
  url: string,
  key: string,
  acknowledged: Map<string, Record<string, string>>,
): Promise<string[]> {
  const problems: string[] = [];
  const ids = [...acknowledged.keys()];
  const worker = async () => {
    for (let id = ids.pop(); id !== undefined; id = ids.pop()) {
      const sent = acknowledged.get(id)!;
      const res = await request(`${url}/v1/leads/${id}`, { headers: { 'x-api-key': key } });
      if (res.status !== 200) {
        problems.push(`${id}: GET answered ${res.status || res.error}`);
        continue;
      }
      const lead = res.body as {
        title: string;
        description: string;
        customer: { email: string; name: string };
        address: { street: string; postalCode: string; city: string };
        statusHistory: unknown[];
      };
      const mismatch =
        lead.title !== sent.title ||
        lead.description !== sent.description ||
        lead.customer?.email?.toLowerCase() !== sent.email!.toLowerCase() ||
        lead.address?.street !== sent.street ||
        lead.address?.postalCode !== sent.postalCode ||
        lead.address?.city !== sent.city ||
        lead.statusHistory?.length !== 1;
      if (mismatch) problems.push(`${id}: stored ${JSON.stringify(lead)} but sent ${JSON.stringify(sent)}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return problems;
}

export interface StorageReport {
  integrity: string;
  foreignKeyViolations: number;
  customersWithoutLeads: number;
  addressesWithoutLeads: number;
  leadsWithoutCustomerOrAddress: number;
  leadsWithoutHistory: number;
  leads: number;
}

const count = async (db: DB, query: string) =>
  Number(((await sql.raw(query).execute(db)).rows[0] as { n: number | string }).n);

/** Opens the storage directly (the server must be stopped or killed) and looks for damage and orphans. */
export async function inspectStorage(storage: Storage): Promise<StorageReport> {
  const database = openDatabase(databaseConfig(storage), 'FULL');
  try {
    const db = database.db;
    let integrity = 'ok';
    let foreignKeyViolations = 0;
    if (storage.dialect === 'sqlite') {
      const rows = (await sql.raw('pragma integrity_check').execute(db)).rows as {
        integrity_check: string;
      }[];
      integrity = rows.map((r) => r.integrity_check).join('; ');
      foreignKeyViolations = (await sql.raw('pragma foreign_key_check').execute(db)).rows.length;
    }
    return {
      integrity,
      foreignKeyViolations,
      customersWithoutLeads: await count(
        db,
        'select count(*) as n from customers c where not exists (select 1 from leads l where l.customer_id = c.id)',
      ),
      addressesWithoutLeads: await count(
        db,
        'select count(*) as n from addresses a where not exists (select 1 from leads l where l.address_id = a.id)',
      ),
      leadsWithoutCustomerOrAddress: await count(
        db,
        `select count(*) as n from leads l
           left join customers c on c.id = l.customer_id
           left join addresses a on a.id = l.address_id and a.customer_id = l.customer_id
         where c.id is null or a.id is null`,
      ),
      leadsWithoutHistory: await count(
        db,
        'select count(*) as n from leads l where not exists (select 1 from lead_status_history h where h.lead_id = l.id)',
      ),
      leads: await count(db, 'select count(*) as n from leads'),
    };
  } finally {
    await database.close();
  }
}

/** Removes the data directory and, on PostgreSQL, the schema. */
export async function dropStorage(storage: Storage): Promise<void> {
  fs.rmSync(storage.dataDir, { recursive: true, force: true });
  if (storage.dialect !== 'postgres') return;
  const database = openDatabase(databaseConfig(storage));
  try {
    await dropSchemaNamed(database.db, storage.schema!);
  } finally {
    await database.close();
  }
}

export const CLEAN_STORAGE = {
  integrity: 'ok',
  foreignKeyViolations: 0,
  customersWithoutLeads: 0,
  addressesWithoutLeads: 0,
  leadsWithoutCustomerOrAddress: 0,
  leadsWithoutHistory: 0,
};
