// The contract's HTTP conventions: responses over 1 KB compressed with br or gzip when accepted; API GETs carry an
// ETag and `Cache-Control: private, no-cache`, and `If-None-Match` with the current ETag is a 304.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, dialects, type TestContext, validLead } from '../helpers.js';

describe.each(dialects())('HTTP conventions on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    for (let i = 0; i < 8; i++)
      await ctx.createLead(validLead({ title: `Job ${i} ${'with words '.repeat(8)}` }));
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('compresses a response over 1 KB with br or gzip, as the client accepts, and the body is the same', async () => {
    const plain = await ctx.api.get('/v1/leads');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(1024);
    const gzip = await ctx.api.get('/v1/leads', { headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers.vary).toMatch(/accept-encoding/i);
    expect(JSON.parse(gunzipSync(gzip.rawPayload).toString())).toEqual(plain.json());
    expect(gzip.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
    const br = await ctx.api.get('/v1/leads', { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(br.rawPayload).toString())).toEqual(plain.json());
  });

  it('sends a page read again (the response cache on SQLite) compressed and revalidated alike', async () => {
    const plain = await ctx.api.get('/v1/leads?limit=50');
    for (const encoding of ['br', 'gzip', 'br', 'gzip']) {
      const res = await ctx.api.get('/v1/leads?limit=50', { headers: { 'accept-encoding': encoding } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
      const body = encoding === 'br' ? brotliDecompressSync(res.rawPayload) : gunzipSync(res.rawPayload);
      expect(body.equals(plain.rawPayload)).toBe(true);
      expect(res.headers.etag).toBe(plain.headers.etag);
      const again = await ctx.api.get('/v1/leads?limit=50', {
        headers: {
          'accept-encoding': encoding,
          'if-none-match': String(plain.headers.etag),
        },
      });
      expect(again.statusCode).toBe(304);
      expect(again.rawPayload.length).toBe(0);
      expect(again.headers['content-encoding']).toBeUndefined();
    }
  });

  it('leaves small responses and clients that accept nothing alone', async () => {
    const small = await ctx.api.get('/v1/leads?limit=1', { headers: { 'accept-encoding': 'gzip' } });
    expect(small.rawPayload.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    const identity = await ctx.api.get('/v1/leads', { headers: { 'accept-encoding': 'identity' } });
    expect(identity.headers['content-encoding']).toBeUndefined();
  });

  it('gives API GETs an ETag and private, no-cache; the same ETag back is a 304 without a body', async () => {
    const first = await ctx.api.get('/v1/leads');
    expect(first.statusCode).toBe(200);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    const again = await ctx.api.get('/v1/leads', {
      headers: { 'if-none-match': etag, 'accept-encoding': 'gzip' },
    });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
    // Weak comparison: with or without W/, among other tags, or `*`.
    const opaque = etag.slice(2);
    expect(
      (await ctx.api.get('/v1/leads', { headers: { 'if-none-match': `"other", ${opaque}` } })).statusCode,
    ).toBe(304);
    expect((await ctx.api.get('/v1/leads', { headers: { 'if-none-match': '*' } })).statusCode).toBe(304);
    expect((await ctx.api.get('/v1/leads', { headers: { 'if-none-match': '"other"' } })).statusCode).toBe(
      200,
    );
    // HEAD answers with the same validators.
    const head = await ctx.app.inject({
      method: 'HEAD',
      url: '/v1/leads',
      headers: { 'x-api-key': ctx.keys.full },
    });
    expect(head.headers.etag).toBe(etag);
    expect(head.headers['cache-control']).toBe('private, no-cache');
    // The data changes: a new ETag, and the old one gets the full answer.
    await ctx.createLead(validLead({ title: 'A change' }));
    const changed = await ctx.api.get('/v1/leads', { headers: { 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    // Single reads too; errors and writes carry no ETag.
    const one = await ctx.api.get(`/v1/leads/${first.json().data[0].id}`);
    expect(one.headers.etag).toMatch(/^W\//);
    const missing = await ctx.api.get('/v1/leads/wrk_00000000000000000000000000');
    expect(missing.statusCode).toBe(404);
    expect(missing.headers.etag).toBeUndefined();
    // Not kept by a shared cache either: the key that read it is in a header a proxy does not key on.
    expect(missing.headers['cache-control']).toBe('private, no-cache');
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/v1/leads',
      headers: { 'x-api-key': ctx.keys.full },
      payload: validLead(),
    });
    expect(created.statusCode).toBe(201);
    expect(created.headers.etag).toBeUndefined();
  });

  it('compresses the docs page assets', async () => {
    const bundle = await ctx.app.inject({
      method: 'GET',
      url: '/docs/static/swagger-ui-bundle.js',
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(bundle.statusCode).toBe(200);
    expect(bundle.headers['content-encoding']).toBe('br');
    const plain = await ctx.app.inject({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' });
    expect(brotliDecompressSync(bundle.rawPayload).equals(plain.rawPayload)).toBe(true);
    expect(bundle.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
  });
});

describe('HTTP conventions switched off (COMPRESSION=off, ETAGS=off)', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext('sqlite', { compression: false, etags: false });
    for (let i = 0; i < 8; i++)
      await ctx.createLead(validLead({ title: `Job ${i} ${'with words '.repeat(8)}` }));
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('sends bodies as they are, without ETags, still private, no-cache', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/v1/leads',
      headers: { 'x-api-key': ctx.keys.full, 'accept-encoding': 'br, gzip' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.length).toBeGreaterThan(1024);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.etag).toBeUndefined();
    expect(res.headers['cache-control']).toBe('private, no-cache');
  });
});
