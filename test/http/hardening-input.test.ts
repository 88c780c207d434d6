// Input is never silently changed and errors stay small: huge limits are served as 100, unknown fields are listed
// up to a cap, invalid UTF-8 and duplicate keys are 400s, invisible-only required fields are empty.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateBrandInput } from '../../src/accounts/brands.js';
import { formPoster, raw } from '../api.js';
import { createTestContext, dialects, type TestContext, validLead } from '../helpers.js';

describe.each(dialects())('input hardening on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    for (let i = 0; i < 3; i++) await ctx.createLead();
  });
  afterAll(async () => ctx?.close());

  /** Posts to a form as a browser on the site the forms here allow. */
  const site = formPoster(() => ctx.app, 'https://www.example.nl');

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
      const res = await ctx.api.post('/v1/leads', raw(payload));
      expectCapped(res, /is not a known field/, 'unknown fields');
      // Only the unknown fields failed: 6,000 of them, and the count says so.
      expect(res.json().detail).toMatch(/^6,000 fields are invalid: /);
    });

    it('the real field errors are still all listed beside the capped unknown ones', async () => {
      const res = await ctx.api.post('/v1/leads', raw(withUnknown({ title: '', email: 'nope' })));
      expectCapped(res, /is not a known field/, 'unknown fields');
      const fields = res.json().errors.map((e: { field: string }) => e.field);
      expect(fields).toEqual(expect.arrayContaining(['title', 'email', 'street', 'city', 'postalCode']));
    });

    it('PATCH /v1/leads/{id}, POST /v1/forms and POST /v1/webhook-endpoints cap their lists too', async () => {
      const lead = await ctx.createLead();
      expectCapped(
        await ctx.api.patch(`/v1/leads/${lead.id}`, raw(withUnknown({ status: 'quoted' }))),
        /is not a known field/,
        'unknown fields',
      );
      expectCapped(
        await ctx.api.post(
          '/v1/forms',
          raw(withUnknown({ name: 'F', allowedOrigins: ['https://www.example.nl'] })),
        ),
        /is not a known field/,
        'unknown fields',
      );
      expectCapped(
        await ctx.api.post('/v1/webhook-endpoints', raw(withUnknown({ url: 'https://example.com/hook' }))),
        /is not a known field/,
        'unknown fields',
      );
    });

    it('a public form post with 5,000 extra fields lists 20 of those it refuses', async () => {
      const created = await ctx.api.post('/v1/forms', {
        name: 'Contact',
        allowedOrigins: ['https://www.example.nl'],
      });
      expect(created.statusCode, created.body).toBe(201);
      const extra: Record<string, string> = {};
      for (const key of UNKNOWN.slice(0, 5000)) extra[key] = '';
      const res = await site.json(created.json().id, { ...validLead(), ...extra });
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
      const res = await ctx.api.get(`/v1/leads?${names.map((n) => `${n}=`).join('&')}`);
      expect(res.statusCode).toBe(422);
      expect(res.body.length).toBeLessThan(8 * 1024);
      const problem = res.json();
      expect(problem.errors.map((e: { field: string }) => e.field)).toEqual(names.slice(0, 20));
      expect(problem.detail).toContain('1,480 more unknown query parameters');
    });

    it('a very long unknown field name is cut where it is listed', async () => {
      const name = 'x'.repeat(50_000);
      const res = await ctx.api.post('/v1/leads', { ...validLead(), [name]: 1 });
      expect(res.statusCode).toBe(422);
      expect(res.body.length).toBeLessThan(2 * 1024);
      expect(res.json().errors).toEqual([{ field: `${'x'.repeat(100)}…`, message: 'is not a known field' }]);
    });
  });

  describe('input is refused rather than silently changed', () => {
    const leadCount = async () =>
      Number(
        (
          await ctx.app.deps.database.db
            .selectFrom('leads')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    it('a JSON body with invalid UTF-8 is a 400 that says so, and nothing is stored', async () => {
      const before = await leadCount();
      const json = Buffer.from(JSON.stringify(validLead({ title: 'Boiler XX broken' })));
      const at = json.indexOf('XX');
      for (const bad of [[0xff], [0xc3, 0x28], [0xe2, 0x82], [0xed, 0xa0]]) {
        const body = Buffer.concat([json.subarray(0, at), Buffer.from(bad), json.subarray(at + 2)]);
        const res = await ctx.api.post('/v1/leads', body);
        expect(res.statusCode, res.body).toBe(400);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        const problem = res.json();
        expect(problem.type).toBe('https://lead-intake.dev/errors/malformed-json');
        expect(problem.detail).toMatch(/not valid UTF-8/);
        expect(problem.requestId).toBe(res.headers['x-request-id']);
      }
      expect(await leadCount()).toBe(before);
      // Valid UTF-8 of every width still goes in as sent.
      const ok = await ctx.api.post(
        '/v1/leads',
        Buffer.from(JSON.stringify(validLead({ title: 'Kraan lekt: café, Ελλάδα, 水, 🚿' }))),
      );
      expect(ok.statusCode, ok.body).toBe(201);
    });

    it('a public form post with invalid UTF-8 is refused, form-encoded or JSON', async () => {
      const created = await ctx.api.post('/v1/forms', {
        name: 'Contact',
        allowedOrigins: ['https://www.example.nl'],
      });
      const formId = created.json().id as string;
      const before = await leadCount();
      const { title: _title, ...withoutTitle } = validLead() as Record<string, string>;
      const fields = new URLSearchParams(withoutTitle).toString();
      // A percent-escape that is not UTF-8, and a raw byte that is not.
      for (const body of [
        `${fields}&title=Boiler%FFbroken`,
        `${fields}&title=%E2%82`,
        Buffer.concat([Buffer.from(`${fields}&title=Boiler`), Buffer.from([0xff])]),
      ]) {
        const res = await site.form(formId, body);
        expect(res.statusCode, String(body)).toBe(400);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
      }
      const json = await site.json(
        formId,
        Buffer.concat([
          Buffer.from(JSON.stringify(validLead()).slice(0, -1)),
          Buffer.from(',"x":"\xff"}', 'latin1'),
        ]),
      );
      expect(json.statusCode).toBe(400);
      expect(json.json().detail).toMatch(/not valid UTF-8/);
      expect(await leadCount()).toBe(before);
      // What browsers send still works: escaped UTF-8, a literal "%" that escapes nothing, "+" for spaces.
      const ok = await site.form(
        formId,
        `${fields}&title=${encodeURIComponent('Café: 100% kapot')}&description=100%+sure&note+x=a+b`,
      );
      expect(ok.statusCode, ok.body).toBe(303);
      const lead = (await ctx.api.get('/v1/leads?limit=1')).json().data[0];
      expect(lead.title).toBe('Café: 100% kapot');
    });

    const INVISIBLE = {
      'zero-width space': '\u200b',
      'byte order mark': '\ufeff',
      'next line (NEL)': '\u0085',
      'no-break space': '\u00a0',
      'left-to-right mark': '\u200e',
      'right-to-left mark': '\u200f',
      'bidi embedding and override': '\u202a\u202b\u202c\u202d\u202e',
      'bidi isolates': '\u2066\u2067\u2068\u2069',
      'word joiner': '\u2060',
      'Mongolian vowel separator': '\u180e',
      'Hangul filler': '\u3164',
      'mixed with spaces': ' \u200b \u2060\u00a0\t',
    };

    it.each(Object.entries(INVISIBLE))('a required field of only %s is empty: 422', async (_name, value) => {
      const res = await ctx.api.post('/v1/leads', validLead({ title: value, city: value }));
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().errors).toEqual([
        { field: 'city', message: 'must not be empty' },
        { field: 'title', message: 'must not be empty' },
      ]);
    });

    it('invisible characters beside visible text are kept exactly as sent', async () => {
      const title = '\u200eBoiler\u200b broken\u2060';
      const res = await ctx.api.post('/v1/leads', validLead({ title, firstName: '\u200b' }));
      expect(res.statusCode, res.body).toBe(201);
      const lead = (await ctx.api.get(`/v1/leads/${res.json().id}`)).json();
      expect(lead.title).toBe(title);
    });

    it('a form name or brand name of only invisible characters is required', async () => {
      const form = await ctx.api.post('/v1/forms', {
        name: '\u200b\u200f',
        allowedOrigins: ['https://www.example.nl'],
      });
      expect(form.statusCode).toBe(422);
      expect(form.json().errors).toEqual([{ field: 'name', message: 'must be a non-empty string' }]);
      expect(() => validateBrandInput({ name: '\u200b\u2060 ' })).toThrow(/name: is required/);
      expect(validateBrandInput({ name: 'Acme\u200b' }).name).toBe('Acme\u200b');
    });

    it('a consent of only invisible characters is no consent', async () => {
      const created = await ctx.api.post('/v1/forms', {
        name: 'C',
        allowedOrigins: ['https://www.example.nl'],
        consentText: 'I agree',
      });
      expect(created.statusCode, created.body).toBe(201);
      const res = await site.json(created.json().id, { ...validLead(), consent: '\u200b\u200e' });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual(['consent']);
    });

    it.each([
      ['{"title":"a","title":"b"}', 'title'],
      ['{"a":{"b":1,"c":{"d":1,"d":2}}}', 'd'],
      ['{"a":[{"x":1},{"x":2,"y":1,"y":2}]}', 'y'],
      ['{"title":"a","\\u0074itle":"b"}', 'title'],
      ['{ "title" : "a" ,\n "title"\t: "b" }', 'title'],
    ])('a JSON body %s is a 400 naming the duplicate key', async (payload, key) => {
      const before = await leadCount();
      const res = await ctx.api.post('/v1/leads', raw(payload));
      expect(res.statusCode, res.body).toBe(400);
      const problem = res.json();
      expect(problem.type).toBe('https://lead-intake.dev/errors/malformed-json');
      expect(problem.detail).toContain(`duplicate key "${key}" in the JSON body`);
      expect(problem.requestId).toBe(res.headers['x-request-id']);
      expect(await leadCount()).toBe(before);
    });

    it('a duplicate key is refused on every JSON route, public forms included', async () => {
      const lead = await ctx.createLead();
      const patch = await ctx.api.patch(
        `/v1/leads/${lead.id}`,
        raw('{"status":"quoted","status":"cancelled"}'),
      );
      expect(patch.statusCode).toBe(400);
      expect(patch.json().detail).toContain('duplicate key "status"');
      const hook = await ctx.api.post(
        '/v1/webhook-endpoints',
        raw('{"url":"https://a.example/h","url":"https://b.example/h"}'),
      );
      expect(hook.statusCode).toBe(400);
    });

    it('the same key in different objects is no duplicate', async () => {
      const res = await ctx.api.post(
        '/v1/leads',
        validLead({ title: 'title: "title"', description: '{"title":"x","title":"y"}' }),
      );
      expect(res.statusCode, res.body).toBe(201);
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
          const res = await ctx.api.get(`${path}?limit=${encodeURIComponent(limit)}`);
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
        const res = await ctx.api.get(`${path}?limit=${encodeURIComponent(limit)}`);
        expect(res.statusCode, path).toBe(422);
        expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual(['limit']);
      }
    });
  });
});
