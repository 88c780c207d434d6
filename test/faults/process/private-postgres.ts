// A PostgreSQL the test may stop and start: a throwaway cluster of its own (never the machine's shared
// server, which other test runs use), or, where initdb is not installed, a TCP proxy to TEST_DATABASE_URL
// whose cutting looks the same to the service.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, postgresUrl } from './harness.js';

const run = promisify(execFile);

export interface StoppableDatabase {
  /** What the test stops: 'cluster' (a real PostgreSQL) or 'proxy' (the fallback). */
  readonly kind: 'cluster' | 'proxy';
  readonly url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin/initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], 'bin') : undefined;
}

/** initdb refuses to run as root: as root, run PostgreSQL's tools as the postgres user. */
function asPostgres(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

class PrivateCluster implements StoppableDatabase {
  readonly kind = 'cluster';
  readonly url: string;

  constructor(
    private readonly bin: string,
    private readonly dir: string,
    private readonly port: number,
  ) {
    this.url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  }

  static async create(bin: string): Promise<PrivateCluster> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-pg-'));
    if (process.getuid?.() === 0) await run('chown', ['postgres:postgres', dir]);
    const cluster = new PrivateCluster(bin, dir, await freePort());
    await run(
      ...asPostgres(path.join(bin, 'initdb'), [
        '-D',
        path.join(dir, 'data'),
        '-A',
        'trust',
        '-U',
        'postgres',
      ]),
    );
    await cluster.start();
    return cluster;
  }

  private pgCtl(args: string[]) {
    return run(...asPostgres(path.join(this.bin, 'pg_ctl'), ['-D', path.join(this.dir, 'data'), ...args]));
  }

  async start(): Promise<void> {
    await this.pgCtl([
      '-o',
      `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=on`,
      '-l',
      path.join(this.dir, 'log'),
      '-w',
      'start',
    ]);
  }

  async stop(): Promise<void> {
    await this.pgCtl(['-m', 'fast', '-w', 'stop']);
  }

  async destroy(): Promise<void> {
    await this.stop().catch(() => {});
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Forwards a local port to the shared server; stop() closes the port and every connection through it. */
class CuttableProxy implements StoppableDatabase {
  readonly kind = 'proxy';
  readonly url: string;
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();

  constructor(
    private readonly target: URL,
    private readonly port: number,
  ) {
    const url = new URL(target.href);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    this.url = url.href;
  }

  async start(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(Number(this.target.port || 5432), this.target.hostname);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  async destroy(): Promise<void> {
    await this.stop();
  }
}

export async function stoppableDatabase(): Promise<StoppableDatabase> {
  const bin = postgresBinDir();
  const canRunAsPostgres =
    process.getuid?.() !== 0 ||
    ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser'].some((p) => fs.existsSync(p));
  if (bin && canRunAsPostgres) return PrivateCluster.create(bin);
  const url = postgresUrl();
  if (!url) throw new Error('neither initdb nor TEST_DATABASE_URL is available');
  const proxy = new CuttableProxy(new URL(url), await freePort());
  await proxy.start();
  return proxy;
}
