// The API key as `Authorization: Bearer <key>` (the contract: "sent as X-API-Key or Authorization: Bearer"),
// with the same rules as X-API-Key: scopes, refusals, and two different keys refused rather than one chosen.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, dialects, type TestContext } from '../helpers.js';

describe.each(dialects())('Authorization: Bearer on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('authenticates a key sent as a bearer token, in any case of "Bearer"', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const res = await ctx.api.get('/v1/leads', {
        key: null,
        headers: { authorization: `${scheme} ${ctx.keys.full}` },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    const created = await ctx.api.post(
      '/v1/leads',
      {
        title: 'Sent with a bearer token',
        customerName: 'Bea Rer',
        street: 'Keizersgracht',
        postalCode: '1015 CJ',
        city: 'Amsterdam',
      },
      { key: null, headers: { authorization: `Bearer ${ctx.keys['leads:write']}` } },
    );
    expect(created.statusCode, created.body).toBe(201);
  });

  it('applies the key’s scopes and brand as with X-API-Key', async () => {
    const res = await ctx.api.get('/v1/work-items', {
      key: null,
      headers: { authorization: `Bearer ${ctx.keys['leads:read']}` },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().detail).toContain('"work-items:read"');
  });

  it('refuses a bad bearer key, another scheme, or two different keys, with problem+json', async () => {
    const bad = await ctx.api.get('/v1/leads', {
      key: null,
      headers: { authorization: 'Bearer lik_notarealkey000000000000000000' },
    });
    expect(bad.statusCode).toBe(401);
    expect(bad.json().detail).toBe('The API key is not valid.');
    const basic = await ctx.api.get('/v1/leads', {
      key: null,
      headers: {
        authorization: `Basic ${Buffer.from(`user:${ctx.keys.full}`).toString('base64')}`,
      },
    });
    expect(basic.statusCode).toBe(401);
    expect(basic.json().detail).toBe(
      'Send your API key in the X-API-Key header or as Authorization: Bearer <key>.',
    );
    expect(basic.headers['www-authenticate']).toBe('Bearer, ApiKey header="X-API-Key"');
    const two = await ctx.api.get('/v1/leads', {
      key: null,
      headers: {
        'x-api-key': ctx.keys.full,
        authorization: `Bearer ${ctx.keys['leads:read']}`,
      },
    });
    expect(two.statusCode).toBe(401);
    expect(two.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(two.json().detail).toBe('X-API-Key and Authorization: Bearer carry two different keys: send one.');
    // The same key in both is fine.
    const same = await ctx.api.get('/v1/leads', {
      key: null,
      headers: {
        'x-api-key': ctx.keys.full,
        authorization: `Bearer ${ctx.keys.full}`,
      },
    });
    expect(same.statusCode).toBe(200);
  });

  it('is declared in the OpenAPI document as a second way to send the key', async () => {
    const doc = (await ctx.api.get('/v1/openapi.json', { key: null })).json();
    expect(doc.components.securitySchemes.BearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/v1/leads'].get.security).toEqual([
      { ApiKeyAuth: ['leads:read'] },
      { BearerAuth: ['leads:read'] },
    ]);
  });
});
