// A real HAProxy (Debian's package) in front of server processes, configured as docs/operations.md shows:
// health checks on /readyz, retries only where they are safe. Under CI=true a missing haproxy fails the test.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, sleep } from './harness.js';

const CANDIDATES = ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin'];

/** The path of a Debian-packaged binary, or undefined (a failure under CI=true: the test must run there). */
export function findBinary(name: string): string | undefined {
  const found = CANDIDATES.map((dir) => path.join(dir, name)).find((file) => fs.existsSync(file));
  const ci = process.env.CI === 'true' || process.env.CI === '1';
  if (!found && ci) throw new Error(`CI=true but ${name} is not installed (apt-get install ${name})`);
  return found;
}

/** The backend section of docs/operations.md's HAProxy example, for servers on 127.0.0.1. */
export function haproxyConfig(listen: number, stats: number, servers: { name: string; port: number }[]) {
  return `global
  maxconn 4000

defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout http-keep-alive 10s
  # A request that never reached a server is always retried (on another server: redispatch).
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response response-timeout

frontend api
  bind 127.0.0.1:${listen}
  default_backend lead_intake

backend lead_intake
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  # Writes are retried after they reached a server only when they carry an Idempotency-Key.
  http-request disable-l7-retry if !METH_GET !{ req.hdr(idempotency-key) -m found }
  default-server inter 500ms fastinter 250ms downinter 500ms fall 2 rise 2
${servers.map((s) => `  server ${s.name} 127.0.0.1:${s.port} check`).join('\n')}

listen stats
  bind 127.0.0.1:${stats}
  stats enable
  stats uri /stats
`;
}

export class HAProxy {
  private output = '';

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    private readonly statsPort: number,
    private readonly dir: string,
  ) {
    const append = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-20_000);
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get log(): string {
    return this.output;
  }

  static async start(binary: string, servers: { name: string; port: number }[]): Promise<HAProxy> {
    const port = await freePort();
    const statsPort = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-haproxy-'));
    const file = path.join(dir, 'haproxy.cfg');
    fs.writeFileSync(file, haproxyConfig(port, statsPort, servers));
    const child = spawn(binary, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    process.once('exit', () => child.kill('SIGKILL'));
    const proxy = new HAProxy(child, port, statsPort, dir);
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await sleep(100)) {
      if (child.exitCode !== null) break;
      const states = await proxy.states().catch(() => undefined);
      if (states && servers.every((s) => states[s.name] === 'UP')) return proxy;
    }
    await proxy.stop();
    throw new Error(`haproxy did not come up with every server UP:\n${proxy.log}`);
  }

  /** Each server's state as HAProxy sees it: UP, DOWN, "UP 1/2" (going down), "DOWN 1/2" (coming up)… */
  async states(): Promise<Record<string, string>> {
    const res = await fetch(`http://127.0.0.1:${this.statsPort}/stats;csv`, {
      signal: AbortSignal.timeout(2000),
    });
    const [header, ...lines] = (await res.text()).trim().split('\n');
    const columns = header!.replace(/^# /, '').split(',');
    const status = columns.indexOf('status');
    const result: Record<string, string> = {};
    for (const line of lines) {
      const cells = line.split(',');
      if (cells[0] === 'lead_intake' && cells[1] !== 'BACKEND') result[cells[1]!] = cells[status]!;
    }
    return result;
  }

  /** Waits until HAProxy sends traffic to `name` again. */
  async waitUntilUp(name: string, timeoutMs = 30_000): Promise<void> {
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(100)) {
      if ((await this.states())[name] === 'UP') return;
    }
    throw new Error(`haproxy never saw ${name} UP again: ${JSON.stringify(await this.states())}`);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
