// Input is never silently changed and errors stay small: huge limits are served as 100, unknown fields are listed
// up to a cap, invalid UTF-8 and duplicate keys are 400s, invisible-only required fields are empty.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, dialects, type TestContext, validLead } from '../helpers.js';

describe.each(dialects())('input hardening on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    for (let i = 0; i < 3; i++) await ctx.createLead();
  });
  afterAll(async () => ctx?.close());

  const get = (url: string) =>
    ctx.app.inject({ method: 'GET', url, headers: { 'x-api-key': ctx.keys.full } });

  const send = (
    method: 'POST' | 'PATCH',
    url: string,
    payload: string,
    headers: Record<string, string> = {},
  ) =>
    ctx.app.inject({
      method,
      url,
      headers: { 'x-api-key': ctx.keys.full, 'content-type': 'application/json', ...headers },
      payload,
    });

  describe('a 422 is never much larger than its request', () => {
    const UNKNOWN = Array.from({ length: 6000 }, (_, i) => `k${String(i).padStart(4, '0')}`);
    const withUnknown = (body: Record<string, unknown>) => {
      const out: Record<string, unknown> = { ...body };
      for (const key of UNKNOWN) out[key] = 1;
      return JSON.stringify(out);
    };
    const expectCapped = (res: { statusCode: number; body: string }, message: RegExp, kind: string) => {
      expect(res.statusCode, res.body.slice(0, 300)).toBe(422);
      expect(res.body.length).toBeLessThan(8 * 1024);
      const problem = JSON.parse(res.body);
      const listed = problem.errors.filter((e: { message: string }) => message.test(e.message));
      expect(listed.map((e: { field: string }) => e.field)).toEqual(UNKNOWN.slice(0, 20));
      expect(problem.detail).toContain(UNKNOWN.slice(0, 20).join(', '));
      expect(problem.detail).toContain(`5,980 more ${kind}`);
      expect(problem.detail).not.toContain(UNKNOWN[20]);
    };

    it('POST /v1/leads with 6,000 unknown fields lists the first 20 and counts the rest', async () => {
      const payload = withUnknown(validLead());
      expect(payload.length).toBeGreaterThan(50_000);
      const res = await send('POST', '/v1/leads', payload);
      expectCapped(res, /is not a known field/, 'unknown fields');
      // Only the unknown fields failed: 6,000 of them, and the count says so.
      expect(res.json().detail).toMatch(/^6,000 fields are invalid: /);
    });

    it('the real field errors are still all listed beside the capped unknown ones', async () => {
      const res = await send('POST', '/v1/leads', withUnknown({ title: '', email: 'nope' }));
      expectCapped(res, /is not a known field/, 'unknown fields');
      const fields = res.json().errors.map((e: { field: string }) => e.field);
      expect(fields).toEqual(expect.arrayContaining(['title', 'email', 'street', 'city', 'postalCode']));
    });

    it('PATCH /v1/leads/{id}, POST /v1/forms and POST /v1/webhook-endpoints cap their lists too', async () => {
      const lead = await ctx.createLead();
      expectCapped(
        await send('PATCH', `/v1/leads/${lead.id}`, withUnknown({ status: 'quoted' })),
        /is not a known field/,
        'unknown fields',
      );
      expectCapped(
        await send(
          'POST',
          '/v1/forms',
          withUnknown({ name: 'F', allowedOrigins: ['https://www.example.nl'] }),
        ),
        /is not a known field/,
        'unknown fields',
      );
      expectCapped(
        await send('POST', '/v1/webhook-endpoints', withUnknown({ url: 'https://example.com/hook' })),
        /is not a known field/,
        'unknown fields',
      );
    });

    it('a public form post with 5,000 extra fields lists 20 of those it refuses', async () => {
      const created = await send(
        'POST',
        '/v1/forms',
        JSON.stringify({ name: 'Contact', allowedOrigins: ['https://www.example.nl'] }),
      );
      expect(created.statusCode, created.body).toBe(201);
      const extra: Record<string, string> = {};
      for (const key of UNKNOWN.slice(0, 5000)) extra[key] = '';
      const res = await ctx.app.inject({
        method: 'POST',
        url: `/f/${created.json().id}`,
        headers: { 'content-type': 'application/json', origin: 'https://www.example.nl' },
        payload: JSON.stringify({ ...validLead(), ...extra }),
      });
      // The first 20 extra fields are kept; the 4,980 beyond them are the ones refused.
      expect(res.statusCode).toBe(422);
      expect(res.body.length).toBeLessThan(8 * 1024);
      const problem = res.json();
      expect(problem.errors.map((e: { field: string }) => e.field)).toEqual(UNKNOWN.slice(20, 40));
      expect(problem.detail).toMatch(/^4,980 fields are invalid: /);
      expect(problem.detail).toContain('4,960 more fields that failed the same way');
    });

    it('a query string with 1,500 unknown parameters lists 20', async () => {
      const names = UNKNOWN.slice(0, 1500);
      const res = await get(`/v1/leads?${names.map((n) => `${n}=`).join('&')}`);
      expect(res.statusCode).toBe(422);
      expect(res.body.length).toBeLessThan(8 * 1024);
      const problem = res.json();
      expect(problem.errors.map((e: { field: string }) => e.field)).toEqual(names.slice(0, 20));
      expect(problem.detail).toContain('1,480 more unknown query parameters');
    });

    it('a very long unknown field name is cut where it is listed', async () => {
      const name = 'x'.repeat(50_000);
      const res = await send('POST', '/v1/leads', JSON.stringify({ ...validLead(), [name]: 1 }));
      expect(res.statusCode).toBe(422);
      expect(res.body.length).toBeLessThan(2 * 1024);
      expect(res.json().errors).toEqual([{ field: `${'x'.repeat(100)}…`, message: 'is not a known field' }]);
    });
  });

  describe('limit', () => {
    const LISTS = [
      '/v1/leads',
      '/v1/work-items',
      '/v1/addresses',
      '/v1/events',
      '/v1/customers',
      '/v1/forms',
    ];

    it.each(['99999999999999999999', '1000000000000000000000000000000', '+101', '9007199254740993'])(
      'limit=%s is served as 100',
      async (limit) => {
        for (const path of LISTS) {
          const res = await get(`${path}?limit=${encodeURIComponent(limit)}`);
          expect(res.statusCode, `${path} ${res.body}`).toBe(200);
          expect(res.json().limit).toBe(100);
        }
      },
    );

    it.each([
      '0',
      '00000000000000000000000',
      '-1',
      '-99999999999999999999',
      '99999999999999999999.5',
      '1e400',
      'x',
    ])('limit=%s is still a 422', async (limit) => {
      for (const path of LISTS) {
        const res = await get(`${path}?limit=${encodeURIComponent(limit)}`);
        expect(res.statusCode, path).toBe(422);
        expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual(['limit']);
      }
    });
  });
});
