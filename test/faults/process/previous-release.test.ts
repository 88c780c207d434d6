// Migrations during a rolling deploy (docs/operations.md, "Migrations during a rolling deploy"): the previous
// release, taken from git and built, serves on while the new release migrates the schema (expand) and serves beside
// it, both under write load with webhook deliveries. Every lead either acknowledged is readable from both, and
// every lead's event is delivered once, whichever release queued or sent it. PostgreSQL.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationNames } from '../../../src/platform/db/migration-files.js';
import { startReceiver } from '../../receiver.js';
import {
  dropStorage,
  findLostOrWrong,
  newStorage,
  postgresUrl,
  ROOT,
  request,
  ServerProcess,
  type Storage,
  seedBrandAndKey,
  sleep,
  WriteLoad,
} from './harness.js';

/**
 * The previous release: PREVIOUS_RELEASE if set, else the commit before the newest migration arrived (HEAD when that
 * migration is not committed yet).
 */
function previousRelease(): string {
  if (process.env.PREVIOUS_RELEASE) return process.env.PREVIOUS_RELEASE;
  const newest = migrationNames().at(-1)!;
  const added = execFileSync(
    'git',
    ['log', '-1', '--diff-filter=A', '--format=%H', '--', `src/platform/db/migrations/${newest}.ts`],
    { cwd: ROOT, encoding: 'utf8' },
  ).trim();
  return added ? `${added}^` : 'HEAD';
}

/** Extracts `rev` into a fresh directory, with this checkout's node_modules, and builds its server. */
function checkOut(rev: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-previous-'));
  execFileSync('sh', ['-c', `git archive "${rev}" | tar -x -C "${dir}"`], { cwd: ROOT });
  fs.symlinkSync(fs.realpathSync(path.join(ROOT, 'node_modules')), path.join(dir, 'node_modules'));
  execFileSync(
    process.execPath,
    [path.join(dir, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: dir,
      stdio: 'pipe',
    },
  );
  return dir;
}

describe.skipIf(!postgresUrl())('the previous release beside the new one on postgres', () => {
  const storages: Storage[] = [];
  let previousDir: string | undefined;
  afterAll(async () => {
    for (const storage of storages) await dropStorage(storage);
    if (previousDir) fs.rmSync(previousDir, { recursive: true, force: true });
  });

  it('serves on the expanded schema while the new release serves', async () => {
    const rev = previousRelease();
    previousDir = checkOut(rev);
    const previousMigrations = fs
      .readdirSync(path.join(previousDir, 'src/platform/db/migrations'))
      .filter((f) => /^\d{10}_/.test(f)).length;
    console.log(
      `[rolling deploy] previous release ${rev} (${previousMigrations} migrations) beside this one (${migrationNames().length})`,
    );

    const storage = newStorage('postgres');
    storages.push(storage);
    const receiver = await startReceiver();
    const env = { WEBHOOKS_ALLOW_HTTP: '1', WEBHOOKS_ALLOW_PRIVATE: '1' };
    // The previous release runs first, on its own schema.
    const previous = await ServerProcess.start(storage, { root: previousDir, env });
    let current: ServerProcess | undefined;
    try {
      // The deploy step: this release's CLI migrates (expand) while the previous release serves.
      const { key } = await seedBrandAndKey(storage);
      const endpoint = await request(`${previous.url}/v1/webhook-endpoints`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ url: receiver.url(), events: ['lead.created'] }),
      });
      expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
      current = await ServerProcess.start(storage, { env });

      const toPrevious = new WriteLoad(() => previous.url, key, 'prev');
      const toCurrent = new WriteLoad(() => current!.url, key, 'curr');
      toPrevious.start(4);
      toCurrent.start(4);
      await sleep(8000);
      await toPrevious.stop();
      await toCurrent.stop();
      const all = new Map([...toPrevious.acknowledged, ...toCurrent.acknowledged]);
      const failures = [...toPrevious.outcomes, ...toCurrent.outcomes].filter((o) => o.status !== 201);
      console.log(
        `[rolling deploy] ${toPrevious.acknowledged.size} leads through the previous release, ` +
          `${toCurrent.acknowledged.size} through this one; ${failures.length} failed`,
      );
      expect(failures, previous.log).toEqual([]);
      expect(toPrevious.acknowledged.size).toBeGreaterThan(10);
      expect(toCurrent.acknowledged.size).toBeGreaterThan(10);
      // Each reads what the other wrote.
      expect(await findLostOrWrong(previous.url, key, all)).toEqual([]);
      expect(await findLostOrWrong(current.url, key, all)).toEqual([]);
      // Every lead's event delivered once, whichever release queued it and whichever claimed it.
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(200)) {
        if (receiver.received.length >= all.size) break;
      }
      await sleep(1000);
      const events = receiver.received.map((r) => String(r.headers['lead-intake-event-id']));
      expect(events.length).toBe(all.size);
      expect(new Set(events).size).toBe(all.size);
    } finally {
      await current?.stop();
      await previous.stop();
      await receiver.close();
    }
  }, 240_000);
});
