// The Redis limiter against a real Redis (TEST_REDIS_URL): shared counts, and what happens when Redis goes away.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { type App, buildApp } from '../../src/app.js';
import { RedisRateLimiter } from '../../src/platform/rate-limit/limiter.js';
import {
  awayFromWindowEdge,
  createTestContext,
  type TestContext,
  testRedisUrl,
  validLead,
  waitFor,
} from '../helpers.js';
import { startTcpProxy, type TcpProxy } from '../tcp-proxy.js';

const redisUrl = testRedisUrl();

function recordingLog() {
  const lines: { level: string; message: string }[] = [];
  return {
    lines,
    warn: (_: object, message: string) => lines.push({ level: 'warn', message }),
    info: (_: object, message: string) => lines.push({ level: 'info', message }),
  };
}

const prefix = () => `test:${randomBytes(6).toString('hex')}:`;

const readyz = async (app: App) => (await app.inject({ method: 'GET', url: '/readyz' })).json();

describe.skipIf(!redisUrl)('Redis rate limiter', () => {
  const limiters: RedisRateLimiter[] = [];
  const open = (url: string, keyPrefix: string, log = recordingLog()) => {
    const limiter = new RedisRateLimiter({ url, keyPrefix, log, probeIntervalMs: 100 });
    limiters.push(limiter);
    return limiter;
  };
  const ready = (limiter: RedisRateLimiter) =>
    waitFor(() => limiter.status().rateLimit === 'redis', 'the limiter to use Redis');
  afterAll(async () => {
    for (const limiter of limiters) await limiter.close();
  });

  it('counts atomically across limiters sharing a prefix (as instances do)', async () => {
    await awayFromWindowEdge();
    const shared = prefix();
    const a = open(redisUrl!, shared);
    const b = open(redisUrl!, shared);
    const other = open(redisUrl!, prefix());
    await Promise.all([ready(a), ready(b), ready(other)]);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).hit('key:k1:write', 10)),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
    expect(Math.min(...results.map((r) => r.remaining))).toBe(0);
    expect((await a.peek('key:k1:write', 10)).remaining).toBe(0);
    expect((await other.hit('key:k1:write', 10)).remaining).toBe(9);
  });

  it('counts hour windows under their own key, expiring after the window, apart from the minute count', async () => {
    const keyPrefix = prefix();
    const limiter = open(redisUrl!, keyPrefix);
    await ready(limiter);
    const HOUR = 60 * 60 * 1000;
    // A fixed clock 10 minutes into an hour: counts depend on the window the clock is in, not on when the test runs.
    const t = 500_000 * HOUR + 10 * 60_000;
    const states = [];
    for (let i = 0; i < 4; i++) states.push(await limiter.hit('form:f1', 3, t + i * 60_000, HOUR));
    expect(states.map((s) => s.allowed)).toEqual([true, true, true, false]);
    expect(states[3]).toMatchObject({ remaining: 0, resetMs: HOUR - 13 * 60_000 });
    expect(await limiter.peek('form:f1', 3, t, HOUR)).toMatchObject({ allowed: false, remaining: 0 });
    // The minute count of the same bucket is separate, under the key one-minute windows always had.
    expect(await limiter.hit('form:f1', 3, t)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await limiter.hit('form:f1', 3, t + HOUR, HOUR)).toMatchObject({ allowed: true, remaining: 2 });

    const redis = new Redis(redisUrl!);
    try {
      const hourKey = `${keyPrefix}rl:3600000ms:form:f1:${Math.floor(t / HOUR)}`;
      expect(await redis.get(hourKey)).toBe('4');
      const ttl = await redis.pttl(hourKey);
      expect(ttl).toBeGreaterThan(HOUR);
      expect(ttl).toBeLessThanOrEqual(2 * HOUR);
      const minuteKey = `${keyPrefix}rl:form:f1:${Math.floor(t / 60_000)}`;
      expect(await redis.get(minuteKey)).toBe('1');
      expect(await redis.pttl(minuteKey)).toBeLessThanOrEqual(2 * 60_000);
    } finally {
      redis.disconnect();
    }
  });

  describe('when Redis goes away', () => {
    let proxy: TcpProxy;
    beforeAll(async () => {
      const target = new URL(redisUrl!);
      proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    });
    afterAll(async () => proxy?.close());

    it('keeps counting in process, logs once, and goes back to Redis when it returns', async () => {
      await awayFromWindowEdge();
      const log = recordingLog();
      const limiter = open(proxy.url(), prefix(), log);
      await ready(limiter);
      expect((await limiter.hit('key:k2:read', 100)).remaining).toBe(99);

      await proxy.stop();
      const during = [];
      for (let i = 0; i < 5; i++) during.push(await limiter.hit('key:k2:read', 100));
      expect(during.every((r) => r.allowed)).toBe(true);
      expect(limiter.status().rateLimit).toMatch(
        /^in-process: Redis unreachable since .*counting per instance/,
      );
      expect(log.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
      expect(log.lines[0]!.message).toMatch(/Redis is unreachable/);

      await proxy.start();
      await ready(limiter);
      expect(log.lines.filter((l) => l.level === 'info').map((l) => l.message)).toEqual([
        'Redis is reachable again: rate limits are shared across instances',
      ]);
      // Back on the shared counter, which still holds the count from before the outage.
      expect((await limiter.hit('key:k2:read', 100)).remaining).toBe(98);
      expect(log.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    });

    it('does not wait on a Redis that hangs: a short command timeout, then process memory, then back', async () => {
      await awayFromWindowEdge();
      const log = recordingLog();
      const limiter = open(proxy.url(), prefix(), log);
      await ready(limiter);
      expect((await limiter.hit('key:k3:read', 5)).remaining).toBe(4);
      proxy.stall(true);
      try {
        const state = await limiter.hit('key:k3:read', 5);
        expect(state).toMatchObject({ allowed: true, remaining: 4, limit: 5 });
        expect(limiter.status().rateLimit).toMatch(/in-process: .*timed out/i);
      } finally {
        proxy.stall(false);
      }
      await ready(limiter);
      // The stalled increment reached Redis late; counting goes on from there, replies still in step.
      expect((await limiter.hit('key:k3:read', 5)).remaining).toBe(2);
      expect(log.lines.map((l) => l.level)).toEqual(['warn', 'info']);
    });

    it('starts serving while Redis is down, and says so in /readyz until it is back', async () => {
      await proxy.stop();
      const ctx: TestContext = await createTestContext('sqlite', {
        redisUrl: proxy.url(),
        redisKeyPrefix: prefix(),
        rateLimit: { readsPerMinute: 600, writesPerMinute: 120, failedAuthPerMinute: 30 },
      });
      try {
        const created = await ctx.app.inject({
          method: 'POST',
          url: '/v1/leads',
          headers: { 'x-api-key': ctx.keys.full, 'content-type': 'application/json' },
          payload: JSON.stringify(validLead()),
        });
        expect(created.statusCode).toBe(201);
        expect(created.headers['ratelimit-remaining']).toBe('119');
        await waitFor(
          async () => /Redis unreachable/.test((await readyz(ctx.app)).checks.rateLimit),
          'detail',
        );
        const down = await readyz(ctx.app);
        expect(down.status).toBe('ready');
        expect(down.checks.rateLimit).toMatch(/^in-process: Redis unreachable since/);
        await proxy.start();
        await waitFor(
          async () => (await readyz(ctx.app)).checks.rateLimit === 'redis',
          '/readyz to say redis',
        );
      } finally {
        await ctx.close();
      }
    });
  });

  it('two apps with REDIS_URL share one key’s budget', async () => {
    await awayFromWindowEdge();
    const ctx = await createTestContext('sqlite', { redisUrl: redisUrl!, redisKeyPrefix: prefix() });
    const second = await buildApp(ctx.app.deps.config, {
      database: ctx.app.deps.database,
      migrate: false,
      logger: false,
      defaultMetrics: false,
      webhookWorker: false,
    });
    try {
      for (const app of [ctx.app, second]) {
        await waitFor(async () => (await readyz(app)).checks.rateLimit === 'redis', 'Redis');
      }
      const { key } = await createApiKey(ctx.app.deps.database, {
        brandId: ctx.brandId,
        name: 'ten writes',
        scopes: ['leads:write'],
        writesPerMinute: 10,
      });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) {
        const res = await (i % 2 ? second : ctx.app).inject({
          method: 'POST',
          url: '/v1/leads',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          payload: JSON.stringify(validLead()),
        });
        statuses.push(res.statusCode);
      }
      expect(statuses.filter((s) => s === 201)).toHaveLength(10);
      expect(statuses.filter((s) => s === 429)).toHaveLength(2);
    } finally {
      await second.close();
      await ctx.close();
    }
  });
});
