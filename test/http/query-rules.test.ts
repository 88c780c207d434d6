// Query parameters fail together in one 422, whole numbers are written as such, cursors keep their order,
// and bodies carrying prototype keys are named precisely.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, dialects, TEST_WEBHOOKS, type TestContext, validLead } from '../helpers.js';

describe.each(dialects())('query and body parsing rules on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect, { webhooks: TEST_WEBHOOKS });
    for (let i = 0; i < 5; i++) await ctx.createLead();
  });
  afterAll(async () => ctx?.close());

  it('names every bad query parameter in one 422', async () => {
    const res = await ctx.api.get(
      '/v1/leads?limit=0&receivedAfter=yesterday&status=scheduled&cursor=nope&order=up',
    );
    expect(res.statusCode).toBe(422);
    const fields = res
      .json()
      .errors.map((e: { field: string }) => e.field)
      .sort();
    expect(fields).toEqual(['cursor', 'limit', 'order', 'receivedAfter', 'status']);
    const byField = Object.fromEntries(
      res.json().errors.map((e: { field: string; message: string }) => [e.field, e.message]),
    );
    expect(byField.receivedAfter).toMatch(/ISO 8601/);
    expect(byField.status).toMatch(/request, quoted/);
    expect(byField.cursor).toMatch(/not a cursor/);
  });

  it.each(['1e2', '0x10', 'Infinity', '10.0', ' ', '5abc'])(
    'limit=%s is not a whole number: 422',
    async (limit) => {
      const res = await ctx.api.get(`/v1/leads?limit=${encodeURIComponent(limit)}`);
      expect(res.statusCode).toBe(422);
      expect(res.json().errors).toEqual([{ field: 'limit', message: 'must be a whole number' }]);
    },
  );

  it('a cursor continues in its own order; a contradicting order= is refused', async () => {
    const first = (await ctx.api.get('/v1/leads?limit=2&order=asc')).json();
    expect(first.nextCursor).toBeTruthy();
    const continued = await ctx.api.get(`/v1/leads?limit=2&cursor=${first.nextCursor}`);
    expect(continued.statusCode).toBe(200);
    const times = [...first.data, ...continued.json().data].map((l: { receivedAt: string }) => l.receivedAt);
    expect([...times].sort()).toEqual(times);
    const contradicting = await ctx.api.get(`/v1/leads?limit=2&order=desc&cursor=${first.nextCursor}`);
    expect(contradicting.statusCode).toBe(422);
    expect(contradicting.json().errors[0].field).toBe('order');
  });

  it('a __proto__ key is a 422 naming it, and nothing is stored', async () => {
    const before = (await ctx.api.get('/v1/leads?limit=100')).json().data.length;
    const body = `{"__proto__": {"x": 1}, ${JSON.stringify(validLead()).slice(1)}`;
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v1/leads',
      headers: { 'x-api-key': ctx.keys.full, 'content-type': 'application/json' },
      payload: body,
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([
      { field: '__proto__', message: expect.stringMatching(/not allowed/) },
    ]);
    expect((await ctx.api.get('/v1/leads?limit=100')).json().data.length).toBe(before);
  });

  it('country UK is stored as GB, the ISO code it stands for', async () => {
    const created = await ctx.createLead({ country: 'uk' });
    const lead = (await ctx.api.get(`/v1/leads/${created.id}`)).json();
    expect(lead.address.country).toBe('GB');
  });

  it('an empty JSON body is a 400 where a body is needed, and fine for actions that take none', async () => {
    const headers = { 'x-api-key': ctx.keys.full, 'content-type': 'application/json' };
    const lead = await ctx.app.inject({ method: 'POST', url: '/v1/leads', headers, payload: '' });
    expect(lead.statusCode).toBe(400);
    expect(lead.json().detail).toMatch(/empty/);
    const endpoint = await ctx.app.inject({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      headers,
      payload: { url: 'http://127.0.0.1:9/lead-intake' },
    });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    const rotated = await ctx.app.inject({
      method: 'POST',
      url: `/v1/webhook-endpoints/${endpoint.json().id}/rotate-secret`,
      headers,
      payload: '',
    });
    expect(rotated.statusCode, rotated.body).toBe(200);
    expect(rotated.json().secret).toMatch(/^whsec_/);
  });
});
