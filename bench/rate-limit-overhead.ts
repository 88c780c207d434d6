// What rate limiting costs per request: the limiter call alone, and whole requests with and without it.
//
//   npx tsx bench/rate-limit-overhead.ts [--requests 20000] [--calls 200000]
//   BENCH_REDIS_URL=redis://127.0.0.1:6379 npx tsx bench/rate-limit-overhead.ts
//
// Whole requests are GET /v1/leads?limit=1 with a valid key through the full Fastify pipeline (app.inject, no
// network), on SQLite in memory. "none" is a limiter that counts nothing; "in-process" the default; "redis" the
// shared counters (one INCR+PEXPIRE script call per request). The variants take turns (rounds of limiter calls,
// single requests) so drifting machine load hits them alike; figures are medians.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createApiKey } from '../src/accounts/api-keys.js';
import { createBrand } from '../src/accounts/brands.js';
import { type App, buildApp } from '../src/app.js';
import { loadConfig } from '../src/platform/config.js';
import {
  MemoryRateLimiter,
  type RateLimiter,
  type RateLimitState,
  RedisRateLimiter,
} from '../src/platform/rate-limit/limiter.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    calls: { type: 'string', default: '200000' },
    rounds: { type: 'string', default: '5' },
  },
});
const requests = Number(values.requests);
const calls = Number(values.calls);
const rounds = Number(values.rounds);
const redisUrl = process.env.BENCH_REDIS_URL;

class NoLimiter implements RateLimiter {
  async hit(_bucket: string, limit: number): Promise<RateLimitState> {
    return { limit, remaining: limit, resetMs: 30_000, allowed: true };
  }
  async peek(_bucket: string, limit: number): Promise<RateLimitState> {
    return this.hit(_bucket, limit);
  }
  status() {
    return { rateLimit: 'none' };
  }
  async close() {}
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
const silentLog = { warn: () => {}, info: () => {} };

async function waitForRedis(limiter: RedisRateLimiter) {
  const deadline = Date.now() + 5000;
  while (limiter.status().rateLimit !== 'redis') {
    if (Date.now() > deadline) throw new Error(`Redis not reachable at ${redisUrl}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Mean time of one limiter call, sequential (each waits for the previous, as one request does). */
async function timeCalls(limiter: RateLimiter, n: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < n; i++) await limiter.hit(`key:k${i % 1000}:read`, 1_000_000_000);
  return (performance.now() - started) / n;
}

async function appWith(limiter: RateLimiter): Promise<{ app: App; key: string }> {
  const config = {
    ...loadConfig({ LOG_LEVEL: 'silent' }),
    database: { dialect: 'sqlite' as const, file: ':memory:' },
    keyCacheTtlMs: 60_000,
  };
  const app = await buildApp(config, {
    logger: false,
    defaultMetrics: false,
    webhookWorker: false,
    rateLimiter: limiter,
  });
  await app.ready();
  const brand = await createBrand(app.deps.database, { name: 'Bench' });
  const { key } = await createApiKey(app.deps.database, {
    brandId: brand.id,
    name: 'bench',
    scopes: ['full'],
    readsPerMinute: 1_000_000,
  });
  return { app, key };
}

/** Time of one whole request. */
async function timeRequest(app: App, key: string): Promise<number> {
  const started = performance.now();
  const res = await app.inject({ method: 'GET', url: '/v1/leads?limit=1', headers: { 'x-api-key': key } });
  const elapsed = performance.now() - started;
  if (res.statusCode !== 200) throw new Error(`unexpected ${res.statusCode}: ${res.body}`);
  return elapsed;
}

async function main() {
  const limiters: Record<string, RateLimiter> = {
    none: new NoLimiter(),
    'in-process': new MemoryRateLimiter(),
  };
  if (redisUrl) {
    const redis = new RedisRateLimiter({
      url: redisUrl,
      keyPrefix: `bench:${randomBytes(4).toString('hex')}:`,
      log: silentLog,
    });
    await waitForRedis(redis);
    limiters.redis = redis;
  }

  console.log(`node ${process.version}`);
  console.log(
    `limiter call alone (${rounds} rounds of ${calls} calls, Redis ${Math.ceil(calls / 20)}; median round):`,
  );
  const callTimes: Record<string, number[]> = Object.fromEntries(Object.keys(limiters).map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [name, limiter] of Object.entries(limiters)) {
      callTimes[name]!.push(await timeCalls(limiter, name === 'redis' ? Math.ceil(calls / 20) : calls));
    }
  }
  for (const [name, times] of Object.entries(callTimes))
    console.log(`  ${name.padEnd(11)} ${us(median(times))}`);

  const apps: Record<string, { app: App; key: string }> = {};
  for (const [name, limiter] of Object.entries(limiters)) apps[name] = await appWith(limiter);
  const variants = Object.entries(apps);
  // Warm up, then take turns request by request, so load changes on the machine hit every variant alike.
  for (let i = 0; i < 500; i++) for (const [, { app, key }] of variants) await timeRequest(app, key);
  const requestTimes: Record<string, number[]> = Object.fromEntries(variants.map(([n]) => [n, []]));
  for (let i = 0; i < requests; i++) {
    // Rotate who goes first, so no variant always follows the same one.
    for (let j = 0; j < variants.length; j++) {
      const [name, { app, key }] = variants[(i + j) % variants.length]!;
      requestTimes[name]!.push(await timeRequest(app, key));
    }
  }
  const base = median(requestTimes.none!);
  console.log(
    `whole request GET /v1/leads?limit=1 (${requests} per variant, interleaved; median per request):`,
  );
  for (const [name, times] of Object.entries(requestTimes)) {
    const time = median(times);
    const overhead =
      name === 'none' ? '' : `  overhead ${us(time - base)} = ${((time / base - 1) * 100).toFixed(1)}%`;
    console.log(`  ${name.padEnd(11)} ${us(time)}${overhead}`);
  }
  for (const { app } of Object.values(apps)) await app.close();
  for (const limiter of Object.values(limiters)) await limiter.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
