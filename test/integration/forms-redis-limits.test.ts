// The website-form post limit (per client address and form, a minute) shared through Redis by two instances on
// one PostgreSQL schema: posts from one address alternating between the instances are counted once.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { createBrand } from '../../src/accounts/brands.js';
import { type App, buildApp } from '../../src/app.js';
import { apiClient, formPoster } from '../api.js';
import {
  awayFromWindowEdge,
  dialects,
  dropSchema,
  formRateLimit,
  testConfig,
  testRedisUrl,
  validLead,
  waitFor,
} from '../helpers.js';

// Both throw under CI=true when their server is not configured: this test must not be skipped there.
const postgres = dialects().includes('postgres');
const redisUrl = testRedisUrl();

const SITE = 'https://www.example.nl';
const PER_MINUTE = 3;

describe.skipIf(!postgres || !redisUrl)('form post limits shared through Redis by two instances', () => {
  let a: App;
  let b: App;
  let brandId: string;
  let key: string;
  let formId: string;

  beforeAll(async () => {
    const config = testConfig('postgres', {
      redisUrl: redisUrl!,
      redisKeyPrefix: `test:forms:${randomBytes(6).toString('hex')}:`,
      rateLimit: formRateLimit(PER_MINUTE),
    });
    // Two instances as deployed: each with its own database pool and its own Redis connection, one schema.
    a = await buildApp(config, { logger: false, defaultMetrics: false });
    b = await buildApp(config, { logger: false, defaultMetrics: false, webhookWorker: false });
    for (const app of [a, b]) {
      await waitFor(
        async () => (await app.inject({ method: 'GET', url: '/readyz' })).json().checks.rateLimit === 'redis',
        'the instance to count in Redis',
      );
    }
    brandId = (await createBrand(a.deps.database, { language: 'en', name: 'Acme Plumbing', country: 'NL' }))
      .id;
    key = (await createApiKey(a.deps.database, { brandId, name: 'forms', scopes: ['full'] })).key;
    const created = await apiClient(a, key).post('/v1/forms', { name: 'Contact', allowedOrigins: [SITE] });
    expect(created.statusCode, created.body).toBe(201);
    formId = created.json().id;
  });

  afterAll(async () => {
    await b?.close();
    if (a) await dropSchema(a);
    await a?.close();
  });

  /** A lead as a browser on SITE posts it to the form, through instance A or B. */
  const siteA = formPoster(() => a, SITE);
  const siteB = formPoster(() => b, SITE);
  const lead = () => validLead({ phone: '06 1234 5678' }) as Record<string, string>;

  const leadsOfForm = async () =>
    (await a.deps.database.db.selectFrom('leads').select('id').where('source_form_id', '=', formId).execute())
      .length;

  it('the 4th post from one address is a 429 whichever instance takes it; another address still passes', async () => {
    await awayFromWindowEdge(10_000);
    const client = '203.0.113.7';
    for (let i = 0; i < PER_MINUTE; i++) {
      const res = await (i % 2 ? siteB : siteA).form(formId, lead(), { remoteAddress: client });
      expect(res.statusCode, res.body).toBe(303);
    }
    // Each instance has seen at most two of these: only a shared count refuses the 4th.
    const refused = await siteB.form(formId, lead(), { remoteAddress: client });
    expect(refused.statusCode).toBe(429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    expect(refused.body).toContain('Too many posts to this form from your address');

    // The other instance refuses the same address too, a JSON post with problem+json (and CORS, so a page's
    // script can read the answer).
    const json = await siteA.json(formId, validLead(), { remoteAddress: client });
    expect(json.statusCode).toBe(429);
    expect(json.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json.headers['retry-after']).toBeDefined();
    expect(json.headers['access-control-allow-origin']).toBe(SITE);

    // Someone else, on either instance, is not affected.
    expect((await siteA.form(formId, lead(), { remoteAddress: '198.51.100.23' })).statusCode).toBe(303);
    expect((await siteB.form(formId, lead(), { remoteAddress: '198.51.100.24' })).statusCode).toBe(303);
    expect(await leadsOfForm()).toBe(PER_MINUTE + 2);
  });
});
