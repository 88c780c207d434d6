// Database gone: PostgreSQL stops under load and starts again. Meanwhile requests get 503 problem+json with
// Retry-After (never a 500, never a hang), /readyz says not ready; afterwards the same process recovers and
// every acknowledged lead is there.
import { afterAll, describe, expect, it } from 'vitest';
import {
  CLEAN_STORAGE,
  dropStorage,
  findLostOrWrong,
  inspectStorage,
  newStorage,
  type Outcome,
  postgresUrl,
  request,
  ServerProcess,
  type Storage,
  seedBrandAndKey,
  sleep,
  WriteLoad,
} from './harness.js';
import { type StoppableDatabase, stoppableDatabase } from './private-postgres.js';

const REQUEST_TIMEOUT_MS = 5000;

describe('PostgreSQL stops and starts under load', () => {
  let database: StoppableDatabase | undefined;
  let storage: Storage | undefined;
  afterAll(async () => {
    if (storage) await dropStorage(storage).catch(() => {});
    await database?.destroy();
  });

  it('answers 503 + Retry-After while it is down and recovers without a restart', async (context) => {
    // Under CI=true a missing PostgreSQL throws here: the test fails rather than skips.
    if (!postgresUrl()) context.skip();
    database = await stoppableDatabase();
    console.info(`database-gone: stopping a ${database.kind} (${database.url})`);
    storage = newStorage('postgres', database.url);
    const { key } = await seedBrandAndKey(storage);
    const server = await ServerProcess.start(storage, {
      env: { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) },
    });
    const load = new WriteLoad(() => server.url, key);
    // A request that takes longer than the server's own timeout plus slack counts as a hang.
    load.timeoutMs = REQUEST_TIMEOUT_MS + 3000;
    const readiness: Outcome[] = [];
    let probing = true;
    const prober = (async () => {
      while (probing) {
        readiness.push(await request(`${server.url}/readyz`, { timeoutMs: REQUEST_TIMEOUT_MS + 3000 }));
        await sleep(100);
      }
    })();

    try {
      load.start(8);
      while (load.acknowledged.size < 30) await sleep(10);

      await database.stop();
      const downAt = Date.now();
      await sleep(2500);
      const upAt = Date.now();
      await database.start();

      // Recovery in the same process: ready again, and writes acknowledged again.
      const deadline = Date.now() + 30_000;
      const acknowledgedWhileDown = load.acknowledged.size;
      while (Date.now() < deadline) {
        const ready = readiness.at(-1);
        if (
          ready?.status === 200 &&
          ready.startedAt > upAt &&
          load.acknowledged.size > acknowledgedWhileDown + 20
        )
          break;
        await sleep(50);
      }
      await load.stop();
      probing = false;
      await prober;

      const whileDown = load.outcomes.filter((o) => o.startedAt > downAt && o.startedAt + o.ms < upAt);
      expect(whileDown.length).toBeGreaterThan(0);
      for (const o of whileDown) {
        expect(o.status, JSON.stringify(o)).toBe(503);
        expect(o.contentType).toMatch(/^application\/problem\+json/);
        expect(Number(o.retryAfter)).toBeGreaterThanOrEqual(1);
        expect(o.body).toMatchObject({
          status: 503,
          type: 'https://lead-intake.dev/errors/service-unavailable',
        });
      }
      // Around the stop and the start: created, or refused with a 503. Never a 500, a reset or a hang.
      const unexpected = load.outcomes.filter((o) => o.status !== 201 && o.status !== 503);
      expect(unexpected).toEqual([]);

      const readyWhileDown = readiness.filter((o) => o.startedAt > downAt && o.startedAt + o.ms < upAt);
      expect(readyWhileDown.length).toBeGreaterThan(0);
      for (const o of readyWhileDown) {
        expect(o.status).toBe(503);
        // /readyz's 503 is problem+json like every error, naming the database as the cause.
        expect(o.body?.database).toBe('unreachable');
      }
      expect(readiness.at(-1)?.status).toBe(200);
      expect(load.acknowledged.size).toBeGreaterThan(acknowledgedWhileDown + 20);

      expect(await findLostOrWrong(server.url, key, load.acknowledged)).toEqual([]);
    } finally {
      probing = false;
      await load.stop();
      await server.stop();
    }
    expect(await inspectStorage(storage)).toMatchObject(CLEAN_STORAGE);
  }, 120_000);
});
