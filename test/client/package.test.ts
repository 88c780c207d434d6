// The package as users get it: `npm pack`, installed into a temporary consumer project, type-checked there with
// the consumer's own tsc (strict, no skipLibCheck; NodeNext, and Bundler without Node's types for the client),
// and a compiled consumer script that uses lead-intake/client against the real service (this repo's buildApp,
// listening on a port, on each database) through a proxy that answers one 429 and drops one response.
// Also: the tarball holds no tests, benchmarks, sources or build info, and the installed CLI serves.
//
// The install is offline: the consumer's lockfile is made from ours (the package's production dependencies plus
// typescript and @types/node at our versions), whose tarballs `npm ci` left in the npm cache.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, dialects } from '../helpers.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

interface LockEntry {
  version?: string;
  resolved?: string;
  dev?: boolean;
  name?: string;
  [key: string]: unknown;
}
interface PackResult {
  filename: string;
  entryCount: number;
  size: number;
  files: { path: string }[];
}

let work: string;
let consumer: string;
let pack: PackResult;

async function sh(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  try {
    return await run(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${command} ${args.join(' ')} failed: ${failed.message}\n${failed.stdout}\n${failed.stderr}`,
    );
  }
}

/** A lockfile for the consumer: lead-intake from the tarball, its dependency tree and typescript as in ours. */
function consumerLock(tarball: string, registry: string) {
  const ours = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const me = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<
    'version' | 'license' | 'dependencies' | 'bin' | 'engines',
    string
  >;
  const tools = ['node_modules/typescript', 'node_modules/@types/node', 'node_modules/undici-types'];
  const dependencies = {
    'lead-intake': `file:${tarball}`,
    typescript: ours.packages['node_modules/typescript']!.version!,
    '@types/node': ours.packages['node_modules/@types/node']!.version!,
  };
  const packages: Record<string, LockEntry> = {
    '': { name: 'consumer', dependencies },
    'node_modules/lead-intake': {
      version: me.version,
      resolved: `file:${tarball}`,
      license: me.license,
      dependencies: me.dependencies,
      bin: me.bin,
      engines: me.engines,
    },
  };
  for (const [location, entry] of Object.entries(ours.packages)) {
    if (!location.startsWith('node_modules/') || (entry.dev && !tools.includes(location))) continue;
    const { dev: _dev, ...kept } = entry;
    // Without `resolved`, npm would ask the registry for the package's metadata; with it, the cached tarball
    // (matched by integrity) is all it needs.
    const name = entry.name ?? location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length);
    kept.resolved ??= `${registry}${name}/-/${name.split('/').pop()}-${entry.version}.tgz`;
    packages[location] = kept;
  }
  return {
    manifest: { name: 'consumer', private: true, type: 'module', dependencies },
    lock: { name: 'consumer', lockfileVersion: 3, requires: true, packages },
  };
}

const COMPILER = { strict: true, target: 'ES2022', skipLibCheck: false, noEmitOnError: true };

const FILES: Record<string, string> = {
  // The root: embedding the service and verifying webhooks, with Node's types (as Fastify's own need).
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      ...COMPILER,
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2023'],
      types: ['node'],
      outDir: 'out',
    },
    files: ['server.ts', 'run.ts'],
  }),
  // The client alone, as a browser or edge bundle sees it: no Node types at all.
  'tsconfig.browser.json': JSON.stringify({
    compilerOptions: {
      ...COMPILER,
      module: 'ESNext',
      moduleResolution: 'Bundler',
      lib: ['ES2023', 'DOM', 'DOM.Iterable'],
      types: [],
      noEmit: true,
    },
    files: ['run.ts'],
  }),
  'tsconfig.wrong.json': JSON.stringify({
    compilerOptions: {
      ...COMPILER,
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      types: [],
      noEmit: true,
    },
    files: ['wrong.ts'],
  }),
  'server.ts': `
import { buildApp, type BuildOptions, type Config, loadConfig, verifySignature, verifyStandardSignature } from 'lead-intake';
import { verifySignature as verify } from 'lead-intake/webhooks';

export async function start(env: Record<string, string | undefined>): Promise<string> {
  const config: Readonly<Config> = loadConfig(env);
  const options: BuildOptions = { logger: false, webhookWorker: false };
  const app = await buildApp(config, options);
  const address: string = await app.listen({ host: config.host, port: config.port });
  const reply = await app.inject({ method: 'GET', url: '/healthz' });
  await app.close();
  return \`\${address} \${reply.statusCode}\`;
}

export function verified(secret: string, header: string, body: string): boolean {
  return verifySignature(secret, header, body) && verify(secret, header, body, 300) &&
    verifyStandardSignature(secret, { 'webhook-id': 'evt_1' }, body);
}
`,
  // What the test runs: the client against the service, printing what it saw as one JSON line.
  'run.ts': `
import { ApiError, createClient, type ListItem } from 'lead-intake/client';

// Read without Node's types, so this file also compiles as a browser bundle would see it.
const env = (globalThis as unknown as { process: { env: Record<string, string | undefined> } }).process.env;
const client = createClient({ baseUrl: env.BASE_URL!, apiKey: env.API_KEY!, retryBaseDelayMs: 10 });
const report: Record<string, unknown> = {};

function lead(n: number) {
  return {
    street: 'Keizersgracht', streetNumber: '123', postalCode: '1015 CJ', city: 'Amsterdam',
    customerName: \`Customer \${n}\`, email: \`customer\${n}@example.com\`, title: \`Consumer lead \${n}\`,
  };
}

const created: string[] = [];
const replayed: (string | null)[] = [];
for (let n = 1; n <= 7; n++) {
  const { data, error, response } = await client.POST('/v1/leads', { body: lead(n) });
  if (error) throw new Error(\`create \${n}: \${response.status} \${error.detail}\`);
  created.push(data.id);
  replayed.push(response.headers.get('idempotent-replayed'));
}
report.created = created;
report.replayed = replayed;

const paged: ListItem<'/v1/leads'>[] = [];
for await (const item of client.paginate('/v1/leads', { params: { query: { limit: 2, order: 'asc' } } })) {
  paged.push(item);
}
report.paged = paged.map((item) => item.id);

const one = await client.GET('/v1/leads/{id}', { params: { path: { id: created[0]! } } });
report.read = one.data ? { id: one.data.id, title: one.data.title, status: one.data.status } : one.error;

const patched = await client.PATCH('/v1/leads/{id}', { params: { path: { id: created[0]! } }, body: { status: 'quoted' } });
report.patched = patched.data?.status ?? patched.error;

const invalid = await client.POST('/v1/leads', { body: { ...lead(8), email: 'not an address' } });
report.invalid = invalid.error
  ? { status: invalid.error.status, type: invalid.error.type, fields: invalid.error.errors?.map((e) => e.field) }
  : invalid.data;

const missing = await client.GET('/v1/leads/{id}', { params: { path: { id: 'wrk_00000000000000000000000000' } } });
report.missing = missing.error ? { status: missing.error.status, requestId: typeof missing.error.requestId } : missing.data;

try {
  for await (const item of client.paginate('/v1/leads', { params: { query: { cursor: 'not-a-cursor' } } })) void item;
  report.pageError = 'none';
} catch (error) {
  report.pageError = error instanceof ApiError ? { status: error.status, type: error.problem.type } : String(error);
}
console.log(JSON.stringify(report));
`,
  // Each marked line must fail to compile: the types come from the document, not from \`any\`. (An unknown extra
  // body field next to all the required ones is not caught: openapi-fetch infers the init argument, which skips
  // TypeScript's excess-property check, openapi-ts/openapi-typescript#1769; the service answers it with a 422.)
  'wrong.ts': `
import { createClient } from 'lead-intake/client';
const client = createClient({ baseUrl: 'http://127.0.0.1' });
export const a = client.GET('/v1/lead'); // WRONG: no such path
export const b = client.POST('/v1/leads', { body: { street: 's', postalCode: 'p', city: 'c', customerName: 'n', title: 42 } }); // WRONG: title is a string
export const f = client.POST('/v1/leads', { body: { street: 's', postalCode: 'p', city: 'c', customerName: 'n' } }); // WRONG: title missing
export const c = client.PATCH('/v1/leads/{id}', { params: { path: { id: 'wrk_1' } }, body: { status: 'done' } }); // WRONG: not a status
export const d = client.GET('/v1/leads/{id}'); // WRONG: path parameter missing
export const e = client.paginate('/v1/leads/{id}'); // WRONG: not a list
`,
};

beforeAll(async () => {
  if (!fs.existsSync(path.join(root, 'dist/client/index.js'))) {
    throw new Error('dist/client is missing: run "npm run build" first');
  }
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-package-'));
  consumer = path.join(work, 'consumer');
  fs.mkdirSync(consumer);
  // dist/ is built already (npm test builds before vitest); --ignore-scripts skips `prepare` rebuilding it.
  const packed = await sh(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', consumer], root);
  pack = (JSON.parse(packed.stdout) as PackResult[])[0]!;
  const registry = (await sh(npm, ['config', 'get', 'registry'], root)).stdout.trim().replace(/\/?$/, '/');
  const { manifest, lock } = consumerLock(pack.filename, registry);
  fs.writeFileSync(path.join(consumer, 'package.json'), JSON.stringify(manifest, null, 2));
  fs.writeFileSync(path.join(consumer, 'package-lock.json'), JSON.stringify(lock, null, 2));
  for (const [name, text] of Object.entries(FILES)) fs.writeFileSync(path.join(consumer, name), text);
  // --ignore-scripts: better-sqlite3's native build is not needed to type-check; the CLI test borrows ours.
  await sh(npm, ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], consumer);
}, 180_000);

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('holds what users need and nothing else', () => {
    const files = pack.files.map((file) => file.path);
    console.log(`npm pack: ${pack.entryCount} files, ${pack.size} bytes packed`);
    for (const needed of [
      'package.json',
      'README.md',
      'CHANGELOG.md',
      'LICENSE',
      'bin/lead-intake.js',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/cli/index.js',
      'dist/webhooks/signature.js',
      'dist/client/index.js',
      'dist/client/index.d.ts',
      'dist/client/openapi.d.ts',
      'dist/client/operations.js',
      'dist/openapi.json',
      'dist/platform/db/migrations/2026112101_initial.js',
      'src/platform/web/assets/app.css',
      'src/platform/web/assets/app.js',
    ]) {
      expect(files).toContain(needed);
    }
    const unwanted = files.filter(
      (file) =>
        /^(test|bench|docs|scripts|\.ci)\//.test(file) ||
        (file.startsWith('src/') && !file.startsWith('src/platform/web/assets/')) ||
        /\.tsbuildinfo$|\.map$|\.test\.|^tsconfig|^biome\.json$|^vitest/.test(file),
    );
    expect(unwanted).toEqual([]);
  });

  it('type-checks in a strict consumer without skipLibCheck, and wrong calls do not', async () => {
    const tsc = path.join(consumer, 'node_modules/typescript/bin/tsc');
    await sh(process.execPath, [tsc, '-p', 'tsconfig.json'], consumer);
    await sh(process.execPath, [tsc, '-p', 'tsconfig.browser.json'], consumer);
    const wrong = await run(process.execPath, [tsc, '-p', 'tsconfig.wrong.json'], { cwd: consumer }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    const marked = FILES['wrong.ts']!.split('\n')
      .map((line, index) => (line.includes('// WRONG') ? index + 1 : 0))
      .filter(Boolean);
    expect(marked).toHaveLength(6);
    const failing = new Set(
      [...wrong.matchAll(/^wrong\.ts\((\d+),\d+\): error TS\d+/gm)].map((m) => Number(m[1])),
    );
    expect([...failing].sort((x, y) => x - y)).toEqual(marked);
    // Three full tsc runs over the packed package: ~20 s alone, several times that on a loaded machine.
  }, 180_000);

  it.each(dialects())('runs the client against the service (%s)', async (dialect) => {
    const ctx = await createTestContext(dialect);
    const proxy = await startProxy();
    try {
      const address = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
      proxy.target = address;
      const { stdout } = await sh(process.execPath, ['out/run.js'], consumer, {
        ...process.env,
        BASE_URL: proxy.url,
        API_KEY: ctx.keys.full,
      });
      const report = JSON.parse(stdout.trim().split('\n').pop()!) as {
        created: string[];
        replayed: (string | null)[];
        paged: string[];
        read: { id: string; title: string; status: string };
        patched: string;
        invalid: { status: number; type: string; fields: string[] };
        missing: { status: number; requestId: string };
        pageError: { status: number; type: string };
      };

      // Creates: the first was answered 429 once, then retried with the same key; the second's answer was
      // lost on the way back, and its retry (same key) replayed the lead the server had created.
      const posts = proxy.log.filter((entry) => entry.method === 'POST' && entry.path === '/v1/leads');
      expect(posts.map((entry) => entry.outcome).slice(0, 4)).toEqual([429, 201, 'dropped', 201]);
      for (const entry of posts) expect(entry.key).toMatch(/^[0-9a-f-]{36}$/);
      expect(posts[1]!.key).toBe(posts[0]!.key);
      expect(posts[3]!.key).toBe(posts[2]!.key);
      expect(posts[2]!.key).not.toBe(posts[0]!.key);
      expect(new Set(posts.slice(3).map((entry) => entry.key)).size).toBe(posts.length - 3);
      expect(report.created).toHaveLength(7);
      expect(new Set(report.created).size).toBe(7);
      expect(report.created[1]).toBe(posts[2]!.createdId);
      expect(report.replayed[1]).toBe('true');
      expect(report.replayed[0]).toBeNull();

      // Paging: 7 leads, 2 a page, oldest first, each once, and nothing more (no duplicate from the retries).
      expect(report.paged).toEqual(report.created);
      const pages = proxy.log.filter((entry) => entry.method === 'GET' && entry.path === '/v1/leads');
      // Four pages (the last with nextCursor null), then the one with a bad cursor.
      expect(pages.map((entry) => entry.outcome)).toEqual([200, 200, 200, 200, 422]);
      expect(pages.filter((entry) => entry.query.includes('cursor='))).toHaveLength(3 + 1);

      expect(report.read).toEqual({ id: report.created[0], title: 'Consumer lead 1', status: 'request' });
      expect(report.patched).toBe('quoted');
      expect(report.invalid).toEqual({
        status: 422,
        type: 'https://lead-intake.dev/errors/validation',
        fields: ['email'],
      });
      expect(report.missing).toEqual({ status: 404, requestId: 'string' });
      expect(report.pageError.status).toBe(422);
      expect(report.pageError.type).toBe('https://lead-intake.dev/errors/validation');
    } finally {
      await proxy.close();
      await ctx.close();
    }
  });

  it('installs a CLI that serves (migrations, dashboard assets and the document found in the package)', async () => {
    // npm ci ran with --ignore-scripts, so better-sqlite3 has no native build there: borrow ours (same version).
    const ownBuild = path.join(root, 'node_modules/better-sqlite3/build');
    fs.symlinkSync(ownBuild, path.join(consumer, 'node_modules/better-sqlite3/build'), 'dir');
    const dataDir = path.join(work, 'data');
    const child = spawn(process.execPath, ['node_modules/lead-intake/bin/lead-intake.js', 'serve'], {
      cwd: consumer,
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'json',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      const base = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const found = /lead-intake listening on (http:\/\/[^ ]+) with/.exec(output);
          if (found) resolve(found[1]!);
        });
        child.stderr.on('data', (chunk: Buffer) => {
          output += chunk.toString();
        });
        child.on('exit', (code) => reject(new Error(`serve exited with ${code}:\n${output}`)));
      });
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const document = (await (await fetch(`${base}/v1/openapi.json`)).json()) as { paths: object };
      const built = JSON.parse(fs.readFileSync(path.join(root, 'dist/openapi.json'), 'utf8')) as {
        paths: object;
      };
      expect(Object.keys(document.paths)).toEqual(Object.keys(built.paths));
      const page = await (await fetch(`${base}/sign-in`)).text();
      const css = /href="(\/assets\/app\.[0-9a-f]+\.css)"/.exec(page);
      expect(css).not.toBeNull();
      expect((await fetch(`${base}${css![1]}`)).status).toBe(200);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    }
  });
});

interface ProxyEntry {
  method: string;
  path: string;
  query: string;
  key: string | undefined;
  outcome: number | 'dropped';
  createdId?: string;
}

/**
 * Forwards to the service, except that the first POST /v1/leads is answered 429 (Retry-After: 1) without being
 * forwarded, and the answer to the third is dropped after the service made the lead (the socket is destroyed).
 */
async function startProxy() {
  const log: ProxyEntry[] = [];
  let creates = 0;
  const state = { target: '' };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const url = new URL(req.url!, 'http://proxy');
      const entry: ProxyEntry = {
        method: req.method!,
        path: url.pathname,
        query: url.search,
        key: req.headers['idempotency-key'] as string | undefined,
        outcome: 0,
      };
      log.push(entry);
      const create = req.method === 'POST' && url.pathname === '/v1/leads' ? ++creates : 0;
      if (create === 1) {
        entry.outcome = 429;
        res.writeHead(429, { 'Content-Type': 'application/problem+json', 'Retry-After': '1' });
        res.end(
          JSON.stringify({ type: 'x', title: 'Too many requests', status: 429, detail: 'd', requestId: 'r' }),
        );
        return;
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (
          typeof value === 'string' &&
          !['host', 'connection', 'content-length', 'accept-encoding'].includes(name)
        ) {
          headers.set(name, value);
        }
      }
      const upstream = await fetch(`${state.target}${req.url}`, {
        method: req.method,
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      const body = await upstream.text();
      if (create === 3) {
        entry.outcome = 'dropped';
        entry.createdId = (JSON.parse(body) as { id: string }).id;
        res.socket?.destroy();
        return;
      }
      entry.outcome = upstream.status;
      const out: Record<string, string> = {};
      upstream.headers.forEach((value, name) => {
        if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(name))
          out[name] = value;
      });
      res.writeHead(upstream.status, out).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    log,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    set target(value: string) {
      state.target = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
