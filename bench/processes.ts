// Child processes for the benchmark: the real service and the ceiling, pinned to their own core, with their
// memory sampled while they work.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');
/** The service's entry point in a checkout: this one, or an earlier commit's built checkout (--before). */
const binOf = (root: string) => path.join(root, 'bin/lead-intake.js');

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** With taskset and two or more cores: servers on the last core, this process (the load generator) on core 0. */
export const pinning = hasTaskset() && os.cpus().length >= 2;
const serverCore = String(os.cpus().length - 1);

/**
 * Where the servers (service and ceiling) may run: `last`, the last core only (the load generator keeps core 0 to
 * itself), or `all`, every core, so a service that moves work to a second thread (SQLite writes on a worker) can
 * use a second core; the load generator stays on core 0 either way. Set once, before any server starts.
 */
export type ServiceCpus = 'last' | 'all';
let serviceCpus: ServiceCpus = 'last';
export function setServiceCpus(setting: ServiceCpus): void {
  serviceCpus = setting;
}

/** The pinning as the results record it. */
export function pinningDescription(): string {
  if (!pinning) return 'not pinned';
  const last = os.cpus().length - 1;
  return serviceCpus === 'all'
    ? `load generator on core 0, servers on all cores 0-${last} (taskset, --service-cpus all)`
    : `load generator on core 0, servers on core ${last} (taskset)`;
}

/**
 * The taskset core list for a server. With `all` the list must still be given: a child inherits this process's
 * affinity, and pinSelfToLoadCore has put it on core 0.
 */
const serverCores = () => (serviceCpus === 'all' ? `0-${os.cpus().length - 1}` : serverCore);

export function pinSelfToLoadCore(): void {
  if (pinning) execFileSync('taskset', ['-a', '-cp', '0', String(process.pid)], { stdio: 'ignore' });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Storage {
  dialect: 'sqlite' | 'postgres';
  dataDir: string;
  databaseUrl?: string;
  schema?: string;
}

export function serviceEnv(storage: Storage, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(DATABASE_|DATA_DIR$|PORT$|HOST$|NODE_OPTIONS$|REDIS_URL$)/.test(name)) env[name] = value;
  }
  return {
    ...env,
    HOST: '127.0.0.1',
    DATA_DIR: storage.dataDir,
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'json',
    // The benchmark measures throughput, not the per-key limits: the bench key's own limits are raised too.
    RATE_LIMIT_READS_PER_MINUTE: '1000000',
    RATE_LIMIT_WRITES_PER_MINUTE: '1000000',
    // Every form post of the bench comes from one address (127.0.0.1) to one form. The hourly per-form limit is
    // newer than this harness; a service without it ignores the variable.
    RATE_LIMIT_FORM_POSTS_PER_MINUTE: '1000000',
    RATE_LIMIT_FORM_POSTS_PER_HOUR: '1000000',
    ...(storage.databaseUrl ? { DATABASE_URL: storage.databaseUrl, DATABASE_SCHEMA: storage.schema } : {}),
    ...extra,
  };
}

/** Runs the CLI of the checkout at `root` (default this one) against the storage, `--json`. */
export function cli(storage: Storage, args: string[], root = ROOT): Record<string, unknown> {
  const out = execFileSync(process.execPath, [binOf(root), ...args, '--json'], {
    cwd: root,
    env: serviceEnv(storage),
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

// A run that fails half-way must not leave servers behind.
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** A server child process: the service or the ceiling. */
export class Server {
  private output = '';
  readonly exited: Promise<number | null>;

  private constructor(
    readonly child: ChildProcess,
    readonly url: string,
  ) {
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-10_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /**
   * `options`: the working directory (default the repository), the path that answers 2xx once the server is up
   * (default /healthz) and how long to wait for it (default 60 s).
   */
  static async start(
    args: string[],
    env: NodeJS.ProcessEnv,
    port: number,
    options: { cwd?: string; healthPath?: string; startTimeoutMs?: number } = {},
  ): Promise<Server> {
    const [command, argv] = pinning
      ? ['taskset', ['-c', serverCores(), process.execPath, ...args]]
      : [process.execPath, args];
    const child = spawn(command as string, argv as string[], {
      cwd: options.cwd ?? ROOT,
      env: { ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    child.once('exit', () => children.delete(child));
    const server = new Server(child, `http://127.0.0.1:${port}`);
    await server.waitUntilUp(options.healthPath ?? '/healthz', options.startTimeoutMs ?? 60_000);
    return server;
  }

  /** The service of the checkout at `root` (default this one), run from that directory. */
  static service(
    storage: Storage,
    port: number,
    nodeFlags: string[] = [],
    env: Record<string, string> = {},
    root = ROOT,
  ) {
    return Server.start([...nodeFlags, binOf(root), 'serve'], serviceEnv(storage, env), port, { cwd: root });
  }

  static ceiling(samplesFile: string, port: number) {
    return Server.start(
      ['--import', 'tsx', path.join(ROOT, 'bench/ceiling.ts')],
      {
        ...process.env,
        CEILING_SAMPLES: samplesFile,
      },
      port,
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  get log(): string {
    return this.output;
  }

  private async waitUntilUp(healthPath: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && this.child.exitCode === null) {
      try {
        if ((await fetch(`${this.url}${healthPath}`)).ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    this.child.kill('SIGKILL');
    throw new Error(`server did not come up at ${this.url}:\n${this.output}`);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
    await this.exited;
  }
}

/** Resident memory of a process in MiB, from /proc (Linux) or ps. */
export function rssMiB(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    if (match) return Number(match[1]) / 1024;
  } catch {
    // no /proc: fall back to ps
  }
  try {
    return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** Samples a process's RSS every 100 ms until stopped; returns the peak. */
export function sampleRss(pid: number): () => number {
  let peak = rssMiB(pid);
  const timer = setInterval(() => {
    const now = rssMiB(pid);
    if (now > peak) peak = now;
  }, 100);
  return () => {
    clearInterval(timer);
    return Math.max(peak, rssMiB(pid));
  };
}

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** User + system CPU time of a process so far, in ms, from /proc/<pid>/stat (NaN without /proc). */
export function cpuMs(pid: number | string): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: the fields counted from after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks();
  } catch {
    return Number.NaN;
  }
}

/**
 * User + system CPU time so far of every PostgreSQL process on this machine (the postmaster, the backends and
 * the background workers), in ms; NaN without /proc or when none runs here. Only meaningful when the database
 * the service uses is on this machine and nothing else uses it meanwhile. A backend that exits during a
 * measurement takes its time with it: the pool keeps its connections open through a run.
 */
export function postgresCpuMs(): number {
  let total = 0;
  let found = false;
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return Number.NaN;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (!stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).startsWith('postgres')) continue;
      const ms = cpuMs(entry);
      if (Number.isFinite(ms)) {
        total += ms;
        found = true;
      }
    } catch {
      // gone meanwhile
    }
  }
  return found ? total : Number.NaN;
}
