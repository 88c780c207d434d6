import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw } from '../api.js';
import { createTestContext, dialects, TEST_WEBHOOKS, type TestContext } from '../helpers.js';

describe.each(dialects())('/v1/webhook-endpoints on %s', (dialect) => {
  let ctx: TestContext;
  let strict: TestContext;
  beforeAll(async () => {
    // No lead is created here, so nothing is ever sent to these URLs: only the API is under test.
    ctx = await createTestContext(dialect, { webhooks: TEST_WEBHOOKS });
    strict = await createTestContext(dialect, {
      webhooks: { ...TEST_WEBHOOKS, allowHttp: false, allowPrivate: false },
    });
  });
  afterAll(async () => {
    await ctx?.close();
    await strict?.close();
  });

  const create = async (body: Record<string, unknown> = {}) => {
    const res = await ctx.api.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', ...body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };

  it('creates an endpoint: 201, all event types by default, the secret shown once', async () => {
    const res = await ctx.api.post('/v1/webhook-endpoints', {
      url: 'http://127.0.0.1:9/hook',
      description: '  CRM sync  ',
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.id).toMatch(/^whk_[0-9a-z]{26}$/);
    expect(res.headers.location).toBe(`/v1/webhook-endpoints/${body.id}`);
    expect(body).toMatchObject({
      url: 'http://127.0.0.1:9/hook',
      events: [
        'lead.created',
        'lead.status_changed',
        'lead.updated',
        'note.created',
        'attachment.created',
        'attachment.deleted',
        'customer.created',
        'customer.updated',
        'customer.merged',
        'customer.erased',
      ],
      enabled: true,
      description: 'CRM sync',
      disabledAt: null,
      disabledReason: null,
    });
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(body.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const read = (await ctx.api.get(`/v1/webhook-endpoints/${body.id}`)).json();
    expect(read.secret).toBeUndefined();
    const { secret: _secret, ...withoutSecret } = body;
    expect(read).toEqual(withoutSecret);
    const list = (await ctx.api.get('/v1/webhook-endpoints')).json();
    expect(list.data.some((e: { id: string }) => e.id === body.id)).toBe(true);
    expect(JSON.stringify(list)).not.toContain(body.secret);
  });

  it('lists newest first with the envelope and cursor paging', async () => {
    const a = await create();
    const b = await create();
    const page = (await ctx.api.get('/v1/webhook-endpoints?limit=1')).json();
    expect(page).toMatchObject({ limit: 1, hasMore: true });
    expect(page.data[0].id).toBe(b.id);
    const next = (
      await ctx.api.get(`/v1/webhook-endpoints?limit=1&cursor=${encodeURIComponent(page.nextCursor)}`)
    ).json();
    expect(next.data[0].id).toBe(a.id);
  });

  it('updates url, events, description and enabled', async () => {
    const endpoint = await create({ events: ['lead.created'] });
    expect(endpoint.events).toEqual(['lead.created']);
    const res = await ctx.api.patch(`/v1/webhook-endpoints/${endpoint.id}`, {
      url: 'http://localhost:9/other',
      events: ['lead.status_changed', 'lead.created'],
      description: 'changed',
      enabled: false,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      url: 'http://localhost:9/other',
      events: ['lead.created', 'lead.status_changed'],
      description: 'changed',
      enabled: false,
    });
    expect(res.json().secret).toBeUndefined();
    const cleared = await ctx.api.patch(`/v1/webhook-endpoints/${endpoint.id}`, {
      description: null,
      enabled: true,
    });
    expect(cleared.json()).toMatchObject({ description: null, enabled: true });
    expect(Date.parse(cleared.json().updatedAt)).toBeGreaterThanOrEqual(Date.parse(endpoint.updatedAt));
  });

  it('deletes: 204, then 404', async () => {
    const endpoint = await create();
    const res = await ctx.api.delete(`/v1/webhook-endpoints/${endpoint.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await ctx.api.get(`/v1/webhook-endpoints/${endpoint.id}`)).statusCode).toBe(404);
    expect((await ctx.api.delete(`/v1/webhook-endpoints/${endpoint.id}`)).statusCode).toBe(404);
  });

  it('rotates the secret: a new one, shown once', async () => {
    const endpoint = await create();
    const res = await ctx.api.post(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`);
    expect(res.statusCode).toBe(200);
    const { secret, previousSecretExpiresAt } = res.json();
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(endpoint.secret);
    expect(Date.parse(previousSecretExpiresAt)).toBeGreaterThan(Date.now());
    expect((await ctx.api.get(`/v1/webhook-endpoints/${endpoint.id}`)).json().secret).toBeUndefined();
  });

  it('validates bodies: 422 naming each field', async () => {
    const cases: [unknown, string[]][] = [
      [{}, ['url']],
      [{ url: 'not a url' }, ['url']],
      [{ url: 'ftp://127.0.0.1/hook' }, ['url']],
      [{ url: 'http://example.com/hook' }, ['url']],
      [{ url: 'https://user:pass@example.com/hook' }, ['url']],
      [{ url: 'http://127.0.0.1:9/hook', events: [] }, ['events']],
      [{ url: 'http://127.0.0.1:9/hook', events: ['lead.deleted'] }, ['events.0']],
      [{ url: 'http://127.0.0.1:9/hook', description: 'x'.repeat(501) }, ['description']],
      [{ url: 'http://127.0.0.1:9/hook', secret: 'mine' }, ['secret']],
      [{ url: 42, events: 'lead.created' }, ['url', 'events']],
    ];
    for (const [body, fields] of cases) {
      const res = await ctx.api.post('/v1/webhook-endpoints', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(
        res
          .json()
          .errors.map((e: { field: string }) => e.field)
          .sort(),
        JSON.stringify(body),
      ).toEqual(fields.sort());
    }
    const endpoint = await create();
    const bad = await ctx.api.patch(`/v1/webhook-endpoints/${endpoint.id}`, { enabled: 'yes' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('enabled');
    const notJson = await ctx.api.post('/v1/webhook-endpoints', raw('url=x'), {
      headers: { 'content-type': 'text/plain' },
    });
    expect(notJson.statusCode).toBe(415);
  });

  it('refuses plain http and non-public addresses unless configured (SSRF)', async () => {
    const post = (url: string) => strict.api.post('/v1/webhook-endpoints', { url });
    const http = await post('http://127.0.0.1:9/hook');
    expect(http.statusCode).toBe(422);
    expect(http.json().errors[0]).toEqual({ field: 'url', message: 'must use https' });
    for (const url of [
      'https://127.0.0.1/hook',
      'https://localhost/hook',
      'https://[::1]/hook',
      'https://10.1.2.3/hook',
      'https://172.16.0.1/hook',
      'https://192.168.1.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://100.64.0.1/hook',
      'https://0.0.0.0/hook',
      'https://[fd00::1]/hook',
      'https://[fe80::1]/hook',
      'https://[::ffff:10.0.0.1]/hook',
      'https://224.0.0.1/hook',
    ]) {
      const res = await post(url);
      expect(res.statusCode, url).toBe(422);
      expect(res.json().errors[0].field).toBe('url');
      expect(res.json().errors[0].message, url).toMatch(/^resolves to a private address/);
    }
    const unresolvable = await post('https://no-such-host.invalid/hook');
    expect(unresolvable.statusCode).toBe(422);
    expect(unresolvable.json().errors[0].message).toMatch(/could not be resolved|did not resolve within/);
    const patch = await ctx.api.patch(`/v1/webhook-endpoints/${(await create()).id}`, {
      url: 'https://10.0.0.1/hook',
    });
    // The permissive app allows private addresses; the strict one refuses them on update too.
    expect(patch.statusCode).toBe(200);
  });

  it('keeps brands apart (404) and needs scope full (403) on every route', async () => {
    const endpoint = await create();
    const delivery = 'whd_00000000000000000000000000';
    const routes: ['GET' | 'POST' | 'PATCH' | 'DELETE', string, unknown?][] = [
      ['GET', `/v1/webhook-endpoints/${endpoint.id}`],
      ['PATCH', `/v1/webhook-endpoints/${endpoint.id}`, { description: 'x' }],
      ['DELETE', `/v1/webhook-endpoints/${endpoint.id}`],
      ['POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`],
      ['GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`],
      ['POST', `/v1/webhook-endpoints/${endpoint.id}/deliveries/${delivery}/resend`],
    ];
    for (const [method, url, body] of routes) {
      expect(
        (await ctx.api.request(method, url, body, { key: ctx.keys.other })).statusCode,
        `${method} ${url}`,
      ).toBe(404);
      expect(
        (await ctx.api.request(method, url, body, { key: ctx.keys['leads:write'] })).statusCode,
        `${method} ${url}`,
      ).toBe(403);
      expect(
        (await ctx.api.request(method, url, body, { key: ctx.keys.expired })).statusCode,
        `${method} ${url}`,
      ).toBe(401);
    }
    for (const [method, url, body] of [
      ['GET', '/v1/webhook-endpoints'],
      ['POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/' }],
    ] as const) {
      expect((await ctx.api.request(method, url, body, { key: ctx.keys['leads:read'] })).statusCode).toBe(
        403,
      );
    }
    const theirs = (await ctx.api.get('/v1/webhook-endpoints', { key: ctx.keys.other })).json();
    expect(theirs.data).toEqual([]);
    expect((await ctx.api.get(`/v1/webhook-endpoints/${endpoint.id}`)).statusCode).toBe(200);
  });

  it('documents every route in the OpenAPI document with scope full', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const expected: [string, string, string][] = [
      ['/v1/events', 'get', 'listEvents'],
      ['/v1/webhook-endpoints', 'post', 'createWebhookEndpoint'],
      ['/v1/webhook-endpoints', 'get', 'listWebhookEndpoints'],
      ['/v1/webhook-endpoints/{id}', 'get', 'getWebhookEndpoint'],
      ['/v1/webhook-endpoints/{id}', 'patch', 'updateWebhookEndpoint'],
      ['/v1/webhook-endpoints/{id}', 'delete', 'deleteWebhookEndpoint'],
      ['/v1/webhook-endpoints/{id}/rotate-secret', 'post', 'rotateWebhookSecret'],
      ['/v1/webhook-endpoints/{id}/deliveries', 'get', 'listWebhookDeliveries'],
      ['/v1/webhook-endpoints/{id}/deliveries/{deliveryId}/resend', 'post', 'resendWebhookDelivery'],
    ];
    for (const [path, method, operationId] of expected) {
      const operation = doc.paths[path]?.[method];
      expect(operation?.operationId, `${method} ${path}`).toBe(operationId);
      expect(operation.security).toEqual([{ ApiKeyAuth: ['full'] }, { BearerAuth: ['full'] }]);
      expect(operation.tags.length).toBe(1);
    }
    const createLead = doc.paths['/v1/leads'].post;
    expect(
      createLead.parameters.some((p: { name: string; in: string }) => p.name === 'idempotency-key'),
    ).toBe(true);
    expect(Object.keys(createLead.responses)).toContain('409');
  });
});
