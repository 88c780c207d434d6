// Hostile input to the public form endpoint POST /f/{formId} (issue 29), property-based: generated bodies sent
// form-encoded, as JSON and as multipart (fields and files), broken multipart bodies (no or a wrong boundary, cut
// off, garbage inserted, parts without a name or headers), odd content types and origins. Invariants: never a 5xx;
// a refusal is problem+json for a client that asked for JSON and the form's HTML page for a browser; a refusal
// stores nothing (no lead, customer, address, attachment or file bytes); a success stores exactly one lead.
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEAD_FIELDS } from '../../src/leads/input.js';
import { createTestContext, dialects, formRateLimit, quickRuns, type TestContext } from '../helpers.js';
import { multipart, type Part, TINY_PNG } from '../multipart.js';

const SITE = 'https://www.example.nl';
const RUNS = { bodies: quickRuns(600), brokenMultipart: quickRuns(600), rawBodies: quickRuns(300) };

type Counts = { leads: number; customers: number; addresses: number; attachments: number; files: number };
type Body = Record<string, unknown>;

describe.each(dialects())('hostile posts to a website form on %s', (dialect) => {
  let ctx: TestContext;
  let formId: string;
  let unique = 0;
  let sent = 0;

  beforeAll(async () => {
    ctx = await createTestContext(dialect, {
      rateLimit: { ...formRateLimit(), formPostsPerHour: 1_000_000 },
    });
    const res = await ctx.api.post('/v1/forms', {
      name: 'Website',
      allowedOrigins: [SITE],
      questions: [{ key: 'howDidYouHear', label: 'How did you hear of us?', type: 'text' }],
    });
    expect(res.statusCode, res.body).toBe(201);
    formId = res.json().id;
  });
  afterAll(async () => ctx?.close());

  async function counts(): Promise<Counts> {
    const { rows } = await sql<Omit<Counts, 'files'>>`select
        (select count(*) from leads) as leads,
        (select count(*) from customers) as customers,
        (select count(*) from addresses) as addresses,
        (select count(*) from attachments) as attachments`.execute(ctx.app.deps.database.db);
    let files = 0;
    for await (const _ of ctx.app.deps.storage.list()) files++;
    const row = rows[0]!;
    return {
      leads: Number(row.leads),
      customers: Number(row.customers),
      addresses: Number(row.addresses),
      attachments: Number(row.attachments),
      files,
    };
  }

  /** Sends one generated post and checks what holds for every post. */
  async function send(options: InjectOptions, wantsJson: boolean): Promise<LightMyRequestResponse> {
    sent++;
    const before = await counts();
    const res = await ctx.app.inject({ method: 'POST', url: `/f/${formId}`, ...options });
    const context = `${JSON.stringify(options.headers)} ${String(options.payload).slice(0, 200)} -> ${res.statusCode} ${res.body.slice(0, 200)}`;
    expect(res.statusCode, context).toBeLessThan(500);
    const after = await counts();
    if (res.statusCode >= 400) {
      expect(after, `stored something on ${context}`).toEqual(before);
      const type = String(res.headers['content-type'] ?? '');
      if (wantsJson) {
        expect(type, context).toMatch(/^application\/problem\+json/);
        expect(res.json().status, context).toBe(res.statusCode);
      } else {
        expect(type, context).toMatch(/^text\/html/);
        expect(res.body, context).toContain('<html');
      }
    } else {
      expect([201, 303], context).toContain(res.statusCode);
      expect(after.leads, context).toBe(before.leads + 1);
    }
    return res;
  }

  // ---- generated bodies ----

  const FIELD_NAMES = LEAD_FIELDS.map((f) => f.name);
  const text = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.constantFrom('', ' ', 'a\r\nb', 'x\u0000y', '\u202e', '😀', '<script>', '%00', 'x'.repeat(1200)),
  );
  /** A valid post's fields (unique email and phone), then some of them replaced, removed or added to. */
  const formBody: fc.Arbitrary<Body> = fc
    .record({
      replace: fc.dictionary(fc.constantFrom(...FIELD_NAMES), text, { maxKeys: 3 }),
      remove: fc.subarray(['title', 'customerName', 'street', 'postalCode', 'city', 'email']),
      extra: fc.dictionary(
        fc.oneof(
          fc.string({ maxLength: 12 }),
          fc.constantFrom('__proto__', 'constructor', 'howDidYouHear', '_gotcha', 'consent', 'utm_source'),
        ),
        text,
        { maxKeys: 3 },
      ),
    })
    .map(({ replace, remove, extra }) => {
      unique++;
      const body: Body = {
        customerName: `Hostile ${unique}`,
        email: `hostile${unique}-${dialect}@example.com`,
        phone: `+316${String(unique).padStart(8, '0')}`,
        street: 'Damrak',
        streetNumber: '1',
        postalCode: '1012 LG',
        city: 'Amsterdam',
        title: 'Boiler broken',
      };
      for (const name of remove) delete body[name];
      Object.assign(body, extra, replace);
      return body;
    });

  const origin = fc.oneof(
    { weight: 8, arbitrary: fc.constant<string | undefined>(SITE) },
    { weight: 1, arbitrary: fc.constantFrom<string | undefined>('https://evil.example', 'null', undefined) },
  );
  const accept = fc.constantFrom<string | undefined>(undefined, 'text/html', 'application/json', '*/*');
  const jsonAsked = (a: string | undefined) => a === 'application/json';

  const headersOf = (type: string, o: string | undefined, a: string | undefined) => {
    const headers: Record<string, string> = { 'content-type': type };
    if (o !== undefined) headers.origin = o;
    if (a !== undefined) headers.accept = a;
    return headers;
  };

  const urlencoded = (body: Body) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(body)) params.append(k, String(v));
    return params.toString();
  };
  const partsOf = (body: Body, file: 'none' | 'png' | 'junk'): Part[] => [
    ...Object.entries(body).map(([field, v]) => ({ field, data: String(v) })),
    ...(file === 'png' ? [{ filename: 'photo.png', type: 'image/png', data: TINY_PNG }] : []),
    ...(file === 'junk'
      ? [{ filename: 'x.exe', type: 'image/png', data: Buffer.from('MZ not an image') }]
      : []),
  ];

  it('answers generated form-encoded, JSON and multipart posts without a 5xx, storing only successes', async () => {
    await fc.assert(
      fc.asyncProperty(
        formBody,
        fc.constantFrom('form', 'json', 'multipart'),
        fc.constantFrom<'none' | 'png' | 'junk'>('none', 'png', 'junk'),
        origin,
        accept,
        async (body, kind, file, o, a) => {
          if (kind === 'json') {
            await send({ headers: headersOf('application/json', o, a), payload: JSON.stringify(body) }, true);
          } else if (kind === 'form') {
            await send(
              { headers: headersOf('application/x-www-form-urlencoded', o, a), payload: urlencoded(body) },
              jsonAsked(a),
            );
          } else {
            const { payload, headers } = multipart(partsOf(body, file));
            await send({ headers: headersOf(headers['content-type']!, o, a), payload }, jsonAsked(a));
          }
        },
      ),
      { numRuns: RUNS.bodies },
    );
  }, 120_000);

  // ---- broken multipart ----

  type Breakage = (
    payload: Buffer,
    type: string,
    at: number,
    junk: Buffer,
  ) => { payload: Buffer; type: string };
  const BREAKAGES: Record<string, Breakage> = {
    'no boundary': (p) => ({ payload: p, type: 'multipart/form-data' }),
    'empty boundary': (p) => ({ payload: p, type: 'multipart/form-data; boundary=' }),
    'another boundary': (p) => ({ payload: p, type: 'multipart/form-data; boundary=not-the-one' }),
    'unclosed quoted boundary': (p, t) => ({ payload: p, type: t.replace('boundary=', 'boundary="') }),
    'cut off': (p, t, at) => ({ payload: p.subarray(0, at % (p.length + 1)), type: t }),
    'junk inserted': (p, t, at, junk) => {
      const i = at % (p.length + 1);
      return { payload: Buffer.concat([p.subarray(0, i), junk, p.subarray(i)]), type: t };
    },
    'names removed': (p, t) => ({
      payload: Buffer.from(p.toString('latin1').replace(/; name="[^"]*"/g, ''), 'latin1'),
      type: t,
    }),
    'headers removed': (p, t) => ({
      payload: Buffer.from(p.toString('latin1').replace(/Content-Disposition: [^\r]*\r\n/g, ''), 'latin1'),
      type: t,
    }),
    'dispositions broken': (p, t) => ({
      payload: Buffer.from(p.toString('latin1').replace(/form-data; name=/g, ';;; name'), 'latin1'),
      type: t,
    }),
    'only junk': (_p, t, _at, junk) => ({ payload: junk, type: t }),
  };

  it('answers broken multipart bodies with a 4xx page or problem+json and stores nothing of them', async () => {
    await fc.assert(
      fc.asyncProperty(
        formBody,
        fc.constantFrom<'none' | 'png' | 'junk'>('none', 'png'),
        fc.constantFrom(...Object.keys(BREAKAGES)),
        fc.nat(),
        fc.uint8Array({ minLength: 1, maxLength: 64 }).map((a) => Buffer.from(a)),
        accept,
        async (body, file, breakage, at, junk, a) => {
          const valid = multipart(partsOf(body, file));
          const broken = BREAKAGES[breakage]!(valid.payload, valid.headers['content-type']!, at, junk);
          await send({ headers: headersOf(broken.type, SITE, a), payload: broken.payload }, jsonAsked(a));
        },
      ),
      { numRuns: RUNS.brokenMultipart },
    );
  }, 120_000);

  it('answers odd content types and raw bytes without a 5xx', async () => {
    const types = [
      'application/json',
      'application/x-www-form-urlencoded',
      'application/x-www-form-urlencoded; charset=latin1',
      'multipart/form-data; boundary=x',
      'multipart/mixed; boundary=x',
      'text/plain',
      'application/xml',
      'application/merge-patch+json',
      '',
      ';;;',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...types),
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
          fc.string({ maxLength: 200 }),
          fc.constantFrom(
            '{',
            '[]',
            'null',
            '"x"',
            '{"__proto__":{"x":1}}',
            'a=1&a=2&a[]=3',
            '%E0%A4%A',
            '--x--',
          ),
        ),
        accept,
        async (type, payload, a) => {
          const headers = headersOf(type, SITE, a);
          if (type === '') delete headers['content-type'];
          await send({ headers, payload }, /json/.test(type) || jsonAsked(a));
        },
      ),
      { numRuns: RUNS.rawBodies },
    );
  }, 120_000);

  it('sent the generated posts', () => {
    expect(sent).toBeGreaterThanOrEqual(RUNS.bodies + RUNS.brokenMultipart + RUNS.rawBodies);
  });
});
