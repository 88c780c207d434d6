import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { awayFromWindowEdge, createTestContext, dialects, type TestContext, validLead } from '../helpers.js';

describe.each(dialects())('rate limits on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect, {
      rateLimit: { readsPerMinute: 600, writesPerMinute: 120, failedAuthPerMinute: 3 },
    });
  });
  afterAll(async () => ctx?.close());

  const keyWith = async (limits: { readsPerMinute?: number; writesPerMinute?: number }, scopes = ['full']) =>
    (await createApiKey(ctx.app.deps.database, { brandId: ctx.brandId, name: 'limited', scopes, ...limits }))
      .key;

  it('sends RateLimit-Limit, -Remaining and -Reset with the contract defaults', async () => {
    await awayFromWindowEdge();
    const key = await keyWith({});
    const first = await ctx.api.get('/v1/leads', { key });
    expect(first.headers['ratelimit-limit']).toBe('600');
    expect(first.headers['ratelimit-remaining']).toBe('599');
    const reset = Number(first.headers['ratelimit-reset']);
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);
    expect((await ctx.api.get('/v1/leads', { key })).headers['ratelimit-remaining']).toBe('598');
    const created = await ctx.api.post('/v1/leads', validLead(), { key });
    expect(created.statusCode).toBe(201);
    expect(created.headers['ratelimit-limit']).toBe('120');
    expect(created.headers['ratelimit-remaining']).toBe('119');
  });

  it('limits per key with the key’s own numbers; reads and writes are counted apart', async () => {
    await awayFromWindowEdge();
    const key = await keyWith({ readsPerMinute: 3, writesPerMinute: 2 });
    const reads = [
      await ctx.api.get('/v1/leads', { key }),
      await ctx.api.get('/v1/leads', { key }),
      await ctx.api.get('/v1/leads', { key }),
    ];
    expect(reads.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(reads.map((r) => r.headers['ratelimit-remaining'])).toEqual(['2', '1', '0']);
    const refused = await ctx.api.get('/v1/leads', { key });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(refused.json()).toMatchObject({
      type: 'https://lead-intake.dev/errors/rate-limited',
      status: 429,
      title: 'Too many requests',
    });
    expect(refused.json().detail).toMatch(/3 reads/);
    expect(refused.headers['ratelimit-limit']).toBe('3');
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers['ratelimit-reset']).toBe(refused.headers['retry-after']);

    expect((await ctx.api.post('/v1/leads', validLead(), { key })).statusCode).toBe(201);
    expect((await ctx.api.post('/v1/leads', validLead(), { key })).statusCode).toBe(201);
    const writeRefused = await ctx.api.post('/v1/leads', validLead(), { key });
    expect(writeRefused.statusCode).toBe(429);
    expect(writeRefused.json().detail).toMatch(/2 writes/);

    // Another key of the same brand has its own budget.
    expect((await ctx.api.get('/v1/leads', { key: ctx.keys.full })).statusCode).toBe(200);
  });

  it('a refused write stores nothing', async () => {
    await awayFromWindowEdge();
    const key = await keyWith({ writesPerMinute: 1 });
    await ctx.api.post('/v1/leads', validLead(), { key });
    const before = await ctx.app.deps.database.db.selectFrom('leads').select('id').execute();
    expect((await ctx.api.post('/v1/leads', validLead(), { key })).statusCode).toBe(429);
    expect(await ctx.app.deps.database.db.selectFrom('leads').select('id').execute()).toHaveLength(
      before.length,
    );
  });

  it('counts and labels responses refused after the key resolved (403, 404, 422)', async () => {
    await awayFromWindowEdge();
    const key = await keyWith({ readsPerMinute: 10 }, ['leads:write']);
    const forbidden = await ctx.app.inject({
      method: 'GET',
      url: '/v1/events',
      headers: { 'x-api-key': key },
    });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.headers['ratelimit-limit']).toBe('10');
    expect(forbidden.headers['ratelimit-remaining']).toBe('9');
    const full = await keyWith({ readsPerMinute: 10 });
    const missing = await ctx.app.inject({
      method: 'GET',
      url: '/v1/leads/wrk_00000000000000000000000000',
      headers: { 'x-api-key': full },
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['ratelimit-remaining']).toBe('9');
    const invalid = await ctx.app.inject({
      method: 'GET',
      url: '/v1/leads?limit=0',
      headers: { 'x-api-key': full },
    });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.headers['ratelimit-remaining']).toBe('8');
  });

  it('limits failed key attempts per client address', async () => {
    await awayFromWindowEdge();
    const address = '203.0.113.7';
    const bad = 'lik_' + 'x'.repeat(43);
    const attempts = [];
    for (let i = 0; i < 3; i++)
      attempts.push((await ctx.api.get('/v1/leads', { key: bad, remoteAddress: address })).statusCode);
    expect(attempts).toEqual([401, 401, 401]);
    const blocked = await ctx.api.get('/v1/leads', { key: bad, remoteAddress: address });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().detail).toMatch(/missing or invalid API key from your address/);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Every other missing, unknown or revoked key from the address is refused for the rest of the minute.
    expect(
      (await ctx.api.get('/v1/leads', { key: `lik_${'y'.repeat(43)}`, remoteAddress: address })).statusCode,
    ).toBe(429);
    expect(
      (await ctx.api.get('/v1/leads', { key: ctx.keys.revoked, remoteAddress: address })).statusCode,
    ).toBe(429);
    const missing = await ctx.app.inject({ method: 'GET', url: '/v1/leads', remoteAddress: address });
    expect(missing.statusCode).toBe(429);
    // Other addresses are not limited.
    expect((await ctx.api.get('/v1/leads', { key: bad, remoteAddress: '203.0.113.8' })).statusCode).toBe(401);
    expect(
      (await ctx.api.get('/v1/leads', { key: ctx.keys.full, remoteAddress: '203.0.113.8' })).statusCode,
    ).toBe(200);
    // Unauthenticated routes are not limited.
    const health = await ctx.app.inject({ method: 'GET', url: '/healthz', remoteAddress: address });
    expect(health.statusCode).toBe(200);
    expect(health.headers['ratelimit-limit']).toBeUndefined();
  });

  it('serves a valid key from an address over the failed-key limit; its bad keys stay refused', async () => {
    await awayFromWindowEdge();
    const address = '203.0.113.9';
    const bad = 'lik_' + 'z'.repeat(43);
    for (let i = 0; i < 3; i++) await ctx.api.get('/v1/leads', { key: bad, remoteAddress: address });
    expect((await ctx.api.get('/v1/leads', { key: bad, remoteAddress: address })).statusCode).toBe(429);
    // Someone else at the same address (an office, a carrier's NAT) with a real key is not locked out.
    const valid = await ctx.api.get('/v1/leads', { key: ctx.keys.full, remoteAddress: address });
    expect(valid.statusCode).toBe(200);
    expect(valid.headers['retry-after']).toBeUndefined();
    expect(valid.headers['ratelimit-limit']).toBe('600');
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/v1/leads',
      remoteAddress: address,
      headers: { 'x-api-key': ctx.keys['leads:write'], 'content-type': 'application/json' },
      payload: JSON.stringify(validLead()),
    });
    expect(created.statusCode).toBe(201);
    // A valid key's own per-key limit still applies.
    const limited = await keyWith({ readsPerMinute: 1 });
    expect((await ctx.api.get('/v1/leads', { key: limited, remoteAddress: address })).statusCode).toBe(200);
    const overKey = await ctx.api.get('/v1/leads', { key: limited, remoteAddress: address });
    expect(overKey.statusCode).toBe(429);
    expect(overKey.json().detail).toMatch(/1 reads/);
    // A valid key does not reset the address's failures: guessing stays limited.
    expect((await ctx.api.get('/v1/leads', { key: bad, remoteAddress: address })).statusCode).toBe(429);
    // A valid key without the scope is a 403, counted against the key, not the address.
    const forbidden = await ctx.app.inject({
      method: 'GET',
      url: '/v1/events',
      remoteAddress: address,
      headers: { 'x-api-key': ctx.keys['leads:read'] },
    });
    expect(forbidden.statusCode).toBe(403);
  });

  it('says where counters live in /readyz', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.json().checks).toMatchObject({ rateLimit: 'in-process' });
  });
});

describe('rate-limit defaults from the environment', () => {
  it('RATE_LIMIT_READS_PER_MINUTE and RATE_LIMIT_WRITES_PER_MINUTE set the defaults', async () => {
    const { loadConfig } = await import('../../src/platform/config.js');
    const config = loadConfig({
      RATE_LIMIT_READS_PER_MINUTE: '7',
      RATE_LIMIT_WRITES_PER_MINUTE: '3',
      RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '9',
      RATE_LIMIT_FORM_POSTS_PER_MINUTE: '4',
      RATE_LIMIT_FORM_POSTS_PER_HOUR: '40',
    });
    expect(config.rateLimit).toEqual({
      readsPerMinute: 7,
      writesPerMinute: 3,
      failedAuthPerMinute: 9,
      formPostsPerMinute: 4,
      formPostsPerHour: 40,
    });
    expect(loadConfig({}).rateLimit).toEqual({
      readsPerMinute: 600,
      writesPerMinute: 120,
      failedAuthPerMinute: 30,
      formPostsPerMinute: 10,
      formPostsPerHour: 300,
    });
    expect(() => loadConfig({ RATE_LIMIT_READS_PER_MINUTE: 'lots' })).toThrow(/whole number/);
  });
});
