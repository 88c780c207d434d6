// One log line per request, written on response: method, route template, path without the query, status, duration,
// request id, brand and key id (never the key) or the dashboard user; levels by outcome. Nothing else per request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { createBrand } from '../../src/accounts/brands.js';
import { type App, buildApp } from '../../src/app.js';
import { addUser, PASSWORD, signedIn } from '../dashboard/helpers.js';
import { dialects, dropSchema, testConfig, validLead } from '../helpers.js';
import { captureLogs } from './support.js';

const PINO = { debug: 20, info: 30, warn: 40 };

describe.each(dialects())('the request log on %s', (dialect) => {
  let app: App;
  let brandId: string;
  let key: { id: string; key: string };
  const logs = captureLogs();

  beforeAll(async () => {
    app = await buildApp(testConfig(dialect, { logLevel: 'debug', logFormat: 'json' }), {
      logger: { stream: logs.stream },
      defaultMetrics: false,
      webhookWorker: false,
    });
    await app.ready();
    brandId = (await createBrand(app.deps.database, { language: 'en', name: 'Acme Plumbing', country: 'NL' }))
      .id;
    key = await createApiKey(app.deps.database, { brandId, name: 'site', scopes: ['full'] });
  });
  afterAll(async () => {
    if (app) {
      await dropSchema(app);
      await app.close();
    }
  });

  /** Every line logged for the request that got this response (pino's reqId is the X-Request-Id). */
  const linesOf = (res: { headers: Record<string, unknown> }) =>
    logs.lines.filter((l) => l.reqId === res.headers['x-request-id']);
  const onlyLineOf = (res: { headers: Record<string, unknown> }) => {
    const lines = linesOf(res);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.msg).toBe('request completed');
    return lines[0]!;
  };

  it('an API request: one line with route, path without query, status, duration, brand and key id', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/v1/leads?q=jan.jansen@example.com&limit=5',
      headers: { 'x-api-key': key.key },
    });
    expect(res.statusCode).toBe(200);
    const line = onlyLineOf(res);
    expect(line).toMatchObject({
      level: PINO.info,
      method: 'GET',
      route: '/v1/leads',
      path: '/v1/leads',
      statusCode: 200,
      brandId,
      keyId: key.id,
    });
    expect(typeof line.durationMs).toBe('number');
    expect(line.durationMs as number).toBeGreaterThanOrEqual(0);
    expect(line).not.toHaveProperty('userId');
    expect(logs.raw()).not.toContain('jan.jansen');
  });

  it('a create with Authorization: Bearer, and its 404 read: the key and the body are never logged', async () => {
    const created = await app.inject({
      method: 'POST',
      url: '/v1/leads',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      payload: JSON.stringify(validLead({ customerName: 'Private Person' })),
    });
    expect(created.statusCode).toBe(201);
    expect(onlyLineOf(created)).toMatchObject({
      method: 'POST',
      route: '/v1/leads',
      statusCode: 201,
      brandId,
      keyId: key.id,
    });
    const missing = await app.inject({
      method: 'GET',
      url: '/v1/leads/wrk_00000000000000000000000000',
      headers: { 'x-api-key': key.key },
    });
    expect(onlyLineOf(missing)).toMatchObject({
      level: PINO.info,
      route: '/v1/leads/:id',
      path: '/v1/leads/wrk_00000000000000000000000000',
      statusCode: 404,
    });
    expect(logs.raw()).not.toContain(key.key);
    expect(logs.raw()).not.toContain('Private Person');
  });

  it('a refused key: 401 with no brand or key id, and the key sent is not logged', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/v1/leads',
      headers: { 'x-api-key': 'lik_guessed_key_value' },
    });
    expect(res.statusCode).toBe(401);
    const line = onlyLineOf(res);
    expect(line).toMatchObject({ level: PINO.info, route: '/v1/leads', statusCode: 401 });
    expect(line).not.toHaveProperty('keyId');
    expect(line).not.toHaveProperty('brandId');
    expect(logs.raw()).not.toContain('lik_guessed_key_value');
  });

  it('unknown paths are "unmatched"; a 5xx is at warn; a probe that answers is at debug', async () => {
    const unknown = await app.inject({ method: 'GET', url: '/nowhere?token=abc123' });
    expect(onlyLineOf(unknown)).toMatchObject({
      level: PINO.info,
      route: 'unmatched',
      path: '/nowhere',
      statusCode: 404,
    });
    expect(logs.raw()).not.toContain('abc123');

    const saved = app.overload.inFlight;
    app.overload.inFlight = app.deps.config.maxInFlight;
    try {
      const shed = await app.inject({ method: 'GET', url: '/v1/leads', headers: { 'x-api-key': key.key } });
      expect(shed.statusCode).toBe(503);
      expect(onlyLineOf(shed)).toMatchObject({ level: PINO.warn, statusCode: 503 });
    } finally {
      app.overload.inFlight = saved;
    }

    const probe = await app.inject({ method: 'GET', url: '/healthz' });
    expect(onlyLineOf(probe)).toMatchObject({ level: PINO.debug, route: '/healthz', statusCode: 200 });
  });

  it('a dashboard request names the signed-in user and the brand; the password is never logged', async () => {
    const user = await addUser(app, brandId, 'owner@acme.example', 'owner');
    const browser = await signedIn(app, 'owner@acme.example');
    const page = await browser.get('/dashboard/leads?q=De%20Vries');
    expect(page.statusCode).toBe(200);
    expect(onlyLineOf(page)).toMatchObject({
      level: PINO.info,
      method: 'GET',
      route: '/dashboard/leads',
      path: '/dashboard/leads',
      statusCode: 200,
      brandId,
      userId: user.id,
    });
    expect(onlyLineOf(page)).not.toHaveProperty('keyId');
    expect(logs.raw()).not.toContain(PASSWORD);
    expect(logs.raw()).not.toContain('De Vries');
    // No line of Fastify's own per-request pair, for any request.
    expect(logs.lines.filter((l) => l.msg === 'incoming request')).toEqual([]);
  });
});
