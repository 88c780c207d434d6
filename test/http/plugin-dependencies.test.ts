// Plugins name what they need and replace nothing they are given: a plugin registered without the one it depends
// on is refused at registration, and the database the app's parts share carries the app's counters from the start
// (buildApp wraps it before any plugin registers) instead of being swapped by the metrics plugin.
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import background from '../../src/background.js';
import { openDatabase } from '../../src/platform/db/database.js';
import metricsPlugin, { AppMetrics } from '../../src/platform/http/plugins/metrics.js';
import overloadPlugin from '../../src/platform/http/plugins/overload.js';
import { testConfig } from '../helpers.js';

describe('plugin dependencies', () => {
  let app: App;

  beforeAll(async () => {
    app = await buildApp(testConfig('sqlite'), { logger: false, defaultMetrics: false });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('the database the routes share carries the counters the metrics plugin serves', () => {
    expect(app.deps.database.metrics).toBe(app.meter);
  });

  it('refuses the background workers and the overload guard without the metrics plugin', async () => {
    const config = testConfig('sqlite');
    const database = openDatabase(config.database);
    try {
      const deps = { config, database } as never;
      await expect(
        Fastify().register(background, { deps, worker: false, mailWorker: false }).ready(),
      ).rejects.toThrow(/dependency 'metrics'/);
      await expect(
        Fastify().register(overloadPlugin, { maxInFlight: 1, maxEventLoopDelayMs: 1000 }).ready(),
      ).rejects.toThrow(/dependency 'metrics'/);
    } finally {
      await database.close();
    }
  });

  it('the metrics plugin serves the counters it is given and touches no database', async () => {
    const meter = new AppMetrics();
    const bare = Fastify();
    await bare.register(metricsPlugin, { meter, defaultMetrics: false }).ready();
    expect(bare.meter).toBe(meter);
    expect(bare.metrics).toBe(meter.registry);
    await bare.close();
  });
});
