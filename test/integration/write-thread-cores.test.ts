// SQLITE_WRITE_THREAD=auto, the default: SQLite's writes go to a thread of their own only where the process may
// run on two cores or more (its CPU affinity, as taskset or a cpuset sets it). On one core the thread only moves
// the work, and handing each write across costs more than it saves (bench/README.md, "one core").
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validLead } from '../helpers.js';
import { request, runCli, type ServerProcess, startServer } from './server-process.js';

const dirs: string[] = [];
const servers: ServerProcess[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A server on a data directory of its own, and the line it logs once it listens. */
async function serve(env: Record<string, string>, cpus?: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-cores-'));
  dirs.push(dir);
  const server = await startServer({ DATA_DIR: dir, ...env }, cpus === undefined ? {} : { cpus });
  servers.push(server);
  for (let waited = 0; !/lead-intake listening on/.test(server.output()) && waited < 10_000; waited += 20)
    await new Promise((resolve) => setTimeout(resolve, 20));
  const line = /lead-intake listening on [^\n]*/.exec(server.output())?.[0];
  if (!line) throw new Error(`the server logged no listening line:\n${server.output()}`);
  return { dir, server, line };
}

describe('SQLITE_WRITE_THREAD=auto', () => {
  it('writes on the event loop when the process may run on one core only, and its writes land', async () => {
    const { dir, server, line } = await serve({}, '0');
    expect(line).toContain('(writes on the event loop)');
    const brand = JSON.parse(
      await runCli(['brands', 'create', '--name', 'Eén Kern', '--json'], { DATA_DIR: dir }),
    );
    const key = JSON.parse(
      await runCli(['keys', 'create', '--name', 'k', '--scopes', 'full', '--brand', brand.id, '--json'], {
        DATA_DIR: dir,
      }),
    ).key as string;
    const created = await request(
      server.url,
      'POST',
      '/v1/leads',
      key,
      validLead({ title: 'Lekkage op één kern' }),
    );
    expect(created.status).toBe(201);
    const id = (await created.json()).id as string;
    const read = await request(server.url, 'GET', `/v1/leads/${id}`, key);
    expect(read.status).toBe(200);
    expect((await read.json()).title).toBe('Lekkage op één kern');
  });

  it('writes on a thread of their own when the process may run on two cores or more', async () => {
    // The machines this runs on (CI's included) have two cores at least: one core here would test nothing.
    expect(os.availableParallelism()).toBeGreaterThanOrEqual(2);
    const { line } = await serve({}, `0-${os.availableParallelism() - 1}`);
    expect(line).toContain('(writes on a thread of their own)');
  });

  it('keeps on and off as they were, whatever the cores', async () => {
    expect((await serve({ SQLITE_WRITE_THREAD: 'on' }, '0')).line).toContain(
      '(writes on a thread of their own)',
    );
    expect((await serve({ SQLITE_WRITE_THREAD: 'off' })).line).toContain('(writes on the event loop)');
  });
});
