// Crash: SIGKILL the server at a random moment under write load; every lead it acknowledged must survive.
import { afterAll, describe, expect, it } from 'vitest';
import {
  CLEAN_STORAGE,
  dropStorage,
  faultDialects,
  findLostOrWrong,
  inspectStorage,
  newStorage,
  ServerProcess,
  type Storage,
  seedBrandAndKey,
  sleep,
  WriteLoad,
} from './harness.js';

const ROUNDS = 5;

describe.each(faultDialects())('crash under write load on %s', (dialect) => {
  const storages: Storage[] = [];
  afterAll(async () => {
    for (const storage of storages) await dropStorage(storage);
  });

  it(`keeps every acknowledged lead through ${ROUNDS} SIGKILLs`, async () => {
    const storage = newStorage(dialect);
    storages.push(storage);
    const { key } = await seedBrandAndKey(storage);
    let server = await ServerProcess.start(storage);
    const load = new WriteLoad(() => server.url, key);

    for (let round = 1; round <= ROUNDS; round++) {
      const before = load.acknowledged.size;
      load.start(8);
      // Let some writes land, then kill at a random point: mid-transaction, mid-commit, mid-response.
      while (load.acknowledged.size < before + 20) await sleep(10);
      const delay = Math.floor(Math.random() * 400);
      await sleep(delay);
      server.kill('SIGKILL');
      const exit = await server.exited;
      await load.stop();
      expect(exit.signal, `round ${round}`).toBe('SIGKILL');

      // The storage as the crash left it: no damage, nothing half-written.
      expect(await inspectStorage(storage), `round ${round}, killed ${delay} ms in`).toMatchObject(
        CLEAN_STORAGE,
      );
      server = await ServerProcess.start(storage, { port: server.port });
      const lost = await findLostOrWrong(server.url, key, load.acknowledged);
      expect(lost, `round ${round}, killed ${delay} ms in`).toEqual([]);
    }

    await server.stop();
    const report = await inspectStorage(storage);
    expect(report).toMatchObject(CLEAN_STORAGE);
    // Writes that got no answer may or may not have committed; every acknowledged one did.
    expect(report.leads).toBeGreaterThanOrEqual(load.acknowledged.size);
    // Never a 500. A 503 is allowed: a starved machine can make the service shed load, and it says so.
    expect(load.outcomes.filter((o) => o.status >= 500 && o.status !== 503)).toEqual([]);
    for (const shed of load.outcomes.filter((o) => o.status === 503)) {
      expect(shed.contentType).toMatch(/^application\/problem\+json/);
      expect(Number(shed.retryAfter)).toBeGreaterThan(0);
    }
  }, 120_000);
});
