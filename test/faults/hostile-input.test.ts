// Hostile input: property-based requests across every route (valid leads, every field mutated, wrong types,
// huge and unicode strings, prototype keys, broken JSON, wrong content types, odd headers, bad query
// parameters, forged cursors). Invariants: never a 5xx; every error is problem+json; every 2xx lead reads back
// as sent after the documented trimming and normalisation; every 4xx stores nothing; the app stays up.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEAD_FIELDS } from '../../src/leads/input.js';
import { isBlank } from '../../src/shared/text.js';
import { createTestContext, quickRuns, type TestContext, validLead } from '../helpers.js';

// 10,000 requests in `npm test`; a tenth of that in the quick loop.
const RUNS = {
  validLeads: quickRuns(1500),
  mutatedLeads: quickRuns(3000),
  rawBodies: quickRuns(2000),
  oddHeaders: quickRuns(1000),
  queries: quickRuns(1500),
  pathsAndMethods: quickRuns(1000),
};
const MIN_REQUESTS = quickRuns(10_000);

type Body = Record<string, unknown>;
type Counts = { leads: number; customers: number; addresses: number; history: number };

let ctx: TestContext;
let generated = 0;
let unique = 0;

beforeAll(async () => {
  ctx = await createTestContext('sqlite');
});
afterAll(async () => ctx?.close());

async function counts(): Promise<Counts> {
  const { rows } = await sql<Counts>`select
      (select count(*) from leads) as leads,
      (select count(*) from customers) as customers,
      (select count(*) from addresses) as addresses,
      (select count(*) from lead_status_history) as history`.execute(ctx.app.deps.database.db);
  return rows[0]!;
}

/**
 * Sends one generated request and checks what holds for every request: no 5xx, errors in the problem shape,
 * and an error leaves the database exactly as it was.
 */
async function send(options: InjectOptions): Promise<LightMyRequestResponse> {
  generated++;
  const before = await counts();
  const res = await ctx.app.inject(options);
  const context = `${options.method} ${options.url} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
  expect(res.statusCode, context).toBeLessThan(500);
  if (res.statusCode >= 400) {
    expect(await counts(), `stored something on ${context}`).toEqual(before);
    if (options.method !== 'HEAD') {
      expect(res.headers['content-type'], context).toMatch(/^application\/problem\+json/);
      const problem = res.json();
      expect(problem.status, context).toBe(res.statusCode);
      expect(typeof problem.type === 'string' && typeof problem.detail === 'string', context).toBe(true);
      expect(problem.requestId, context).toBe(res.headers['x-request-id']);
    }
  }
  return res;
}

// ---- what a person can type into a form field ----------------------------------------------------------

// biome-ignore lint/suspicious/noControlCharactersInRegex: generated text must avoid what the service refuses
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const codePoints = (s: string) => [...s].length;

/** Text a form could hold: any script, emoji, inner line breaks, padded with whitespace the service trims. */
function text(max: number, minLength = 1) {
  const core = fc
    .oneof(
      fc.string({ unit: 'grapheme', minLength, maxLength: Math.min(max, 40) }),
      fc.string({ unit: 'grapheme-ascii', minLength, maxLength: Math.min(max, 40) }),
      fc.constantFrom('Zoë', 'Ærøskøbing', '東京都', 'Łódź', 'שלום', '👷‍♀️ loodgieter', 'a\r\nb', 'O’Brien'),
      fc.integer({ min: Math.max(1, max - 3), max }).map((n) => '€'.repeat(n)),
      fc.integer({ min: Math.max(1, max - 3), max }).map((n) => '😀'.repeat(n)),
    )
    .filter(
      // Not blank as the service reads it (shared/text.ts: invisible characters alone, a Hangul filler say, are
      // empty for a required field).
      (s) => !isBlank(s.trim()) && codePoints(s.trim()) <= max && !CONTROL.test(s) && !LONE_SURROGATE.test(s),
    );
  const pad = fc.constantFrom('', ' ', '  ', '\t', '\n', ' \u00a0', '\u3000');
  return fc.tuple(pad, core, pad).map(([a, s, b]) => a + s + b);
}

/** An optional field: absent, null, blank (all stored as null), or a value. */
function optional<T>(arb: fc.Arbitrary<T>) {
  return fc.oneof(
    { weight: 3, arbitrary: arb },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(undefined, null, '', '   ') },
  );
}

const COUNTRIES = ['NL', 'nl', 'De', 'be', 'FR', 'gb', 'Us', 'JP', 'br', 'za'];

function validLeadBody(): fc.Arbitrary<Body> {
  const max = (name: string) => LEAD_FIELDS.find((f) => f.name === name)!.maxLength;
  return fc
    .record({
      street: text(max('street')),
      streetNumber: optional(text(max('streetNumber'))),
      streetNumberAddition: optional(text(max('streetNumberAddition'))),
      postalCode: text(max('postalCode')),
      city: text(max('city')),
      country: optional(fc.constantFrom(...COUNTRIES)),
      customerName: text(max('customerName')),
      firstName: optional(text(max('firstName'))),
      lastName: optional(text(max('lastName'))),
      email: optional(
        fc.tuple(
          fc.stringMatching(/^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]{1,20}$/),
          fc.constantFrom('Example.com', 'mail.example.org'),
        ),
      ),
      phone: optional(
        fc.array(fc.constantFrom('', ' ', '-', '.', ' (', ') '), { minLength: 11, maxLength: 11 }),
      ),
      companyName: optional(text(max('companyName'))),
      title: text(max('title')),
      description: optional(text(max('description'))),
      category: optional(text(max('category'))),
      priority: optional(fc.constantFrom('low', 'medium', 'high', 'urgent')),
      budgetQuote: optional(text(max('budgetQuote'))),
      notes: optional(text(max('notes'))),
    })
    .map((body) => {
      // Email and phone are unique per lead, so each lead gets a customer of its own and reads back as sent.
      unique++;
      const out: Body = { ...body };
      if (Array.isArray(body.email)) out.email = `${body.email[0]}.${unique}@${body.email[1]}`;
      if (Array.isArray(body.phone)) {
        const digits = `3${String(unique).padStart(10, '0')}`;
        out.phone = `+${[...digits].map((d, i) => d + (body.phone as string[])[i]).join('')}`;
      }
      for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
      return out;
    });
}

/** The documented normalisation, written independently of the service: what a lead must read back as. */
function expectedLead(body: Body, defaultCountry: string) {
  const value = (name: string): string | null => {
    const raw = body[name];
    if (typeof raw !== 'string' || raw.trim() === '') return null;
    return raw.trim();
  };
  const phone = value('phone');
  return {
    title: value('title'),
    description: value('description'),
    category: value('category'),
    priority: value('priority') ?? 'medium',
    budgetQuote: value('budgetQuote'),
    notes: value('notes'),
    status: 'request',
    source: 'website',
    customer: {
      type: value('companyName') ? 'business' : 'person',
      name: value('customerName'),
      firstName: value('firstName'),
      lastName: value('lastName'),
      email: value('email'),
      phone: phone === null ? null : `+${phone.replace(/[^0-9]/g, '')}`,
      companyName: value('companyName'),
    },
    address: {
      street: value('street'),
      streetNumber: value('streetNumber'),
      streetNumberAddition: value('streetNumberAddition'),
      postalCode: value('postalCode'),
      city: value('city'),
      country: value('country')?.toUpperCase() ?? defaultCountry,
    },
  };
}

function postLead(payload: string | Buffer, headers: Record<string, string> = {}): InjectOptions {
  return {
    method: 'POST',
    url: '/v1/leads',
    headers: { 'x-api-key': ctx.keys['leads:write'], 'content-type': 'application/json', ...headers },
    payload,
  };
}

async function expectReadsBackAsSent(
  res: LightMyRequestResponse,
  body: Body,
  readKey = ctx.keys['leads:read'],
  defaultCountry = 'NL',
): Promise<void> {
  // Odd headers may ask for br or gzip: the answer is then compressed, as the contract says.
  const encoding = res.headers['content-encoding'];
  const created =
    encoding === 'gzip'
      ? JSON.parse(gunzipSync(res.rawPayload).toString())
      : encoding === 'br'
        ? JSON.parse(brotliDecompressSync(res.rawPayload).toString())
        : res.json();
  expect(res.headers.location).toBe(`/v1/leads/${created.id}`);
  const read = await ctx.api.get(`/v1/leads/${created.id}`, { key: readKey });
  expect(read.statusCode).toBe(200);
  const lead = read.json();
  expect(lead).toMatchObject(expectedLead(body, defaultCountry));
  expect(lead.receivedAt).toBe(created.receivedAt);
  expect(lead.statusHistory).toEqual([
    {
      status: 'request',
      at: created.receivedAt,
      actor: expect.objectContaining({ type: 'key' }),
      reason: null,
    },
  ]);
}

// ---- ways to break a lead body ----------------------------------------------------------------------------

interface Mutation {
  name: string;
  body: Body | unknown;
  /** True when the service must refuse it; false when it may accept it (then it must read back as sent). */
  mustRefuse: boolean;
}

const FIELD_NAMES = LEAD_FIELDS.map((f) => f.name);
const REQUIRED = LEAD_FIELDS.filter((f) => f.required).map((f) => f.name);
// Only values JSON can carry as themselves: NaN and Infinity would travel as null, which is not a wrong type.
const wrongType = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant([]),
  fc.array(fc.string(), { minLength: 1, maxLength: 3 }),
  fc.object({ maxDepth: 2 }),
  fc.constant({}),
);

function mutation(): fc.Arbitrary<Mutation> {
  const field = fc.constantFrom(...FIELD_NAMES);
  return fc.oneof(
    fc.tuple(validLeadBody(), field, wrongType).map(([b, f, v]) => ({
      name: `${f} of wrong type`,
      body: { ...b, [f]: v },
      mustRefuse: true,
    })),
    fc.tuple(validLeadBody(), field).map(([b, f]) => ({
      name: `${f} null`,
      body: { ...b, [f]: null },
      mustRefuse: REQUIRED.includes(f),
    })),
    fc.tuple(validLeadBody(), fc.constantFrom(...REQUIRED), fc.boolean()).map(([b, f, blank]) => {
      const body: Body = { ...b };
      if (blank) body[f] = ' \t\n ';
      else delete body[f];
      return { name: `${f} ${blank ? 'blank' : 'missing'}`, body, mustRefuse: true };
    }),
    fc
      .tuple(validLeadBody(), field, fc.constantFrom('x', 'é', '😀'), fc.integer({ min: 1, max: 40 }))
      .map(([b, f, ch, over]) => {
        const max = LEAD_FIELDS.find((r) => r.name === f)!.maxLength;
        return { name: `${f} over ${max}`, body: { ...b, [f]: ch.repeat(max + over) }, mustRefuse: true };
      }),
    fc
      .tuple(validLeadBody(), field, fc.constantFrom('\u0000', '\u0007', '\u001b', '\u007f'))
      .map(([b, f, c]) => ({ name: `${f} with control`, body: { ...b, [f]: `a${c}b` }, mustRefuse: true })),
    fc.tuple(validLeadBody(), fc.constantFrom('\uD800', '\uDFFF', 'a\uDBFFb')).map(([b, s]) => ({
      name: 'lone surrogate',
      body: { ...b, title: s },
      mustRefuse: true,
    })),
    fc
      .tuple(
        validLeadBody(),
        fc.constantFrom(
          ['email', 'no-at-sign'],
          ['email', 'two@@example.com'],
          ['email', 'a b@example.com'],
          ['email', 'a..b@example.com'],
          ['email', 'a@localhost'],
          ['phone', '0612345678'],
          ['phone', '+31 6 abc'],
          ['phone', '+1234567'],
          ['phone', '+1234567890123456'],
          ['phone', '+0612345678'],
          ['country', 'XX'],
          ['country', 'NLD'],
          ['country', '1A'],
          ['priority', 'HIGH'],
          ['priority', 'critical'],
        ),
      )
      .map(([b, [f, v]]) => ({ name: `${f} = ${v}`, body: { ...b, [f]: v }, mustRefuse: true })),
    fc
      .tuple(
        validLeadBody(),
        fc.oneof(
          fc.constantFrom('postcode', 'Title', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', ''),
          fc.string({ maxLength: 20 }).filter((k) => !FIELD_NAMES.includes(k)),
        ),
        fc.jsonValue({ maxDepth: 2 }),
      )
      .map(([b, k, v]) => ({
        name: `unknown key ${JSON.stringify(k)}`,
        body: { ...b, [k]: v },
        mustRefuse: true,
      })),
    validLeadBody().map((b) => ({ name: 'nested', body: { lead: b }, mustRefuse: true })),
    validLeadBody().map((b) => ({ name: 'array', body: [b], mustRefuse: true })),
    fc.jsonValue({ maxDepth: 3 }).map((v) => ({ name: 'any JSON', body: v, mustRefuse: true })),
  );
}

// ---- raw bodies, content types, headers, queries, paths --------------------------------------------------

function rawBody(): fc.Arbitrary<{
  payload: string | Buffer;
  contentType: string | undefined;
  valid?: Body;
}> {
  const valid = validLeadBody();
  // JSON is UTF-8 (RFC 8259), so a charset parameter changes nothing: the bytes are read as UTF-8 either way.
  const jsonTypes = [
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON',
    'application/json; charset=utf-16',
  ];
  const otherTypes = [
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml',
    'application/jsonx',
    '*/*',
    '',
  ];
  return fc.oneof(
    // A valid body under another label must not be taken.
    fc.tuple(valid, fc.constantFrom(...otherTypes, undefined)).map(([b, t]) => ({
      payload: JSON.stringify(b),
      contentType: t,
    })),
    // Broken JSON under the JSON label.
    fc.tuple(valid, fc.nat(), fc.constantFrom(...jsonTypes)).map(([b, cut, t]) => {
      const text = JSON.stringify(b);
      return { payload: text.slice(0, cut % text.length), contentType: t };
    }),
    fc
      .tuple(
        fc.oneof(
          fc.constantFrom(
            '',
            ' ',
            'null',
            '[]',
            '"x"',
            '123',
            'true',
            '{',
            '{"a":}',
            '{"title":"a",}',
            "{'a':1}",
          ),
          fc.string({ unit: 'binary', maxLength: 200 }),
          fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
        ),
        fc.constantFrom(...jsonTypes),
      )
      .map(([payload, t]) => ({ payload, contentType: t })),
    // Prototype-poisoning keys, which a plain object literal cannot carry: spliced into the JSON text.
    fc
      .tuple(
        valid,
        fc.constantFrom('"__proto__":{"admin":true}', '"constructor":{"prototype":{"admin":true}}'),
      )
      .map(([b, key]) => ({
        payload: `{${key},${JSON.stringify(b).slice(1)}`,
        contentType: 'application/json',
      })),
    // Duplicate keys: the last one wins, as in JSON.parse.
    fc.tuple(valid, text(200)).map(([b, title]) => ({
      payload: `{"title":"first",${JSON.stringify({ ...b, title }).slice(1)}`,
      contentType: 'application/json',
      valid: { ...b, title },
    })),
    // A byte-order mark before valid JSON: RFC 8259 lets a parser ignore it, and the lead must then be whole.
    valid.map((b) => ({ payload: `\ufeff${JSON.stringify(b)}`, contentType: 'application/json', valid: b })),
    // Over the 64 KiB limit.
    fc.integer({ min: 64 * 1024, max: 80 * 1024 }).map((n) => ({
      payload: JSON.stringify({ title: 'x'.repeat(n) }),
      contentType: 'application/json',
    })),
  );
}

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 300,
});

function oddHeaders(): fc.Arbitrary<Record<string, string>> {
  const key = () =>
    fc.constantFrom(
      ctx.keys['leads:write'],
      ` ${ctx.keys['leads:write']} `,
      ctx.keys['leads:read'],
      ctx.keys.full,
      ctx.keys.other,
      ctx.keys.revoked,
      ctx.keys.expired,
      `${ctx.keys.full}x`,
      ctx.keys.full.toUpperCase(),
      'lik_',
      '',
      'Bearer x',
    );
  return fc.record(
    {
      'x-api-key': fc.oneof(key(), printable),
      'x-request-id': printable,
      accept: fc.oneof(
        fc.constantFrom('application/json', 'text/html', '*/*', 'application/problem+json'),
        printable,
      ),
      'accept-encoding': fc.constantFrom('gzip', 'br', 'identity;q=0', 'x'),
      'x-forwarded-for': printable,
      authorization: printable,
      cookie: printable,
      'idempotency-key': printable,
      'accept-language': printable,
    },
    { requiredKeys: [] },
  );
}

/** Percent-encodes the UTF-8 bytes, so any string (lone surrogates included) can travel in a URL. */
const pct = (s: string) =>
  [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

function forgedCursor() {
  return fc.oneof(
    fc
      .tuple(fc.integer({ min: -1, max: 10 ** 16 }), fc.stringMatching(/^[a-z]{3}_[0-9a-z]{26}$/))
      .map(([t, id]) => `l1.${Buffer.from(`${t}.${id}`).toString('base64url')}`),
    fc.string({ maxLength: 60 }).map((s) => `l1.${Buffer.from(s).toString('base64url')}`),
    fc.base64String({ maxLength: 80 }).map((s) => `l1.${s}`),
    fc.constantFrom('l2.abc', 'l1.', 'l1.!!!', `l1.${'A'.repeat(250)}`),
  );
}

function queryString(): fc.Arbitrary<string> {
  const name = fc.constantFrom(
    'limit',
    'cursor',
    'order',
    'receivedAfter',
    'receivedBefore',
    'updatedAfter',
    'createdAfter',
    'createdBefore',
    'status',
    '__proto__',
    'constructor',
    'limit[]',
    'x',
  );
  const value = fc.oneof(
    fc.constantFrom('0', '-1', '1', '50', '100', '101', '1e3', '2.5', 'NaN', '', 'asc', 'desc', 'ASC'),
    fc.constantFrom('request', 'quoted', 'request,quoted', 'scheduled', ',', 'request,,'),
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    fc.constantFrom('2026-13-45', '2026-02-30T25:61:00Z', '1970-01-01', '+275760-09-13T00:00:00.000Z'),
    fc.integer().map(String),
    forgedCursor(),
    fc.string({ unit: 'binary', maxLength: 40 }),
  );
  const pair = fc.oneof(
    { weight: 4, arbitrary: fc.tuple(name, value).map(([n, v]) => `${n}=${pct(v)}`) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', 'limit=%E0%A4%A', '&&', '=', 'limit', 'a=b=c') },
  );
  return fc.array(pair, { maxLength: 5 }).map((pairs) => pairs.join('&'));
}

const LIST_PATHS = ['/v1/leads', '/v1/work-items', '/v1/addresses', '/address'];

// ---- the properties ---------------------------------------------------------------------------------------

describe('hostile input on sqlite', () => {
  it('accepts every valid lead and reads it back as sent, normalised', async () => {
    await fc.assert(
      fc.asyncProperty(validLeadBody(), async (body) => {
        const res = await send(postLead(JSON.stringify(body)));
        expect(res.statusCode, res.body).toBe(201);
        await expectReadsBackAsSent(res, body);
      }),
      { numRuns: RUNS.validLeads },
    );
  });

  it('refuses every broken lead with a 4xx and stores nothing', async () => {
    await fc.assert(
      fc.asyncProperty(mutation(), async ({ name, body, mustRefuse }) => {
        const res = await send(postLead(JSON.stringify(body)));
        if (res.statusCode === 201) {
          expect(mustRefuse, `accepted: ${name}`).toBe(false);
          await expectReadsBackAsSent(res, body as Body);
        } else {
          expect([400, 413, 422], `${name}: ${res.body}`).toContain(res.statusCode);
        }
      }),
      { numRuns: RUNS.mutatedLeads },
    );
  });

  it('takes only JSON bodies under the JSON content type', async () => {
    await fc.assert(
      fc.asyncProperty(rawBody(), async ({ payload, contentType, valid }) => {
        const headers: Record<string, string> = {};
        if (contentType !== undefined) headers['content-type'] = contentType;
        const options = postLead(payload, headers);
        if (contentType === undefined) delete (options.headers as Record<string, string>)['content-type'];
        const res = await send(options);
        if (res.statusCode === 201) {
          expect(valid, `accepted ${String(contentType)}: ${String(payload).slice(0, 200)}`).toBeDefined();
          await expectReadsBackAsSent(res, valid!);
        }
      }),
      { numRuns: RUNS.rawBodies },
    );
  });

  it('survives odd headers and answers with a request id', async () => {
    await fc.assert(
      fc.asyncProperty(validLeadBody(), oddHeaders(), async (body, headers) => {
        const res = await send(postLead(JSON.stringify(body), headers));
        expect(res.headers['x-request-id']).toBeTruthy();
        // The other brand's key creates in the other brand, so only that brand can read the lead back.
        const otherBrand = headers['x-api-key']?.trim() === ctx.keys.other;
        if (res.statusCode === 201) {
          if (otherBrand) await expectReadsBackAsSent(res, body, ctx.keys.other, 'BE');
          else await expectReadsBackAsSent(res, body);
        }
      }),
      { numRuns: RUNS.oddHeaders },
    );
  });

  it('answers every list query with a page or a 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...LIST_PATHS), queryString(), async (path, query) => {
        const res = await send({
          method: 'GET',
          url: `${path}?${query}`,
          headers: { 'x-api-key': ctx.keys.full },
        });
        if (res.statusCode === 200) {
          const page = res.json();
          expect(Array.isArray(page.data)).toBe(true);
          expect(page.data.length).toBeLessThanOrEqual(page.limit);
          expect(page.limit).toBeLessThanOrEqual(100);
          expect(typeof page.hasMore).toBe('boolean');
          expect(page.nextCursor === null || typeof page.nextCursor === 'string').toBe(true);
        } else {
          expect([400, 404, 414, 422]).toContain(res.statusCode);
        }
      }),
      { numRuns: RUNS.queries },
    );
  });

  it('answers any method on any path, and any id, without a 5xx', async () => {
    const existing = String((await ctx.createLead()).id);
    const foreign = String((await ctx.createLead({}, ctx.keys.other)).id);
    const segment = fc.oneof(
      fc.constantFrom(
        existing,
        foreign,
        'wrk_00000000000000000000000000',
        '..',
        '%2e%2e%2f',
        'x'.repeat(300),
      ),
      fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '%C0%AF'),
      fc.string({ unit: 'binary', maxLength: 60 }).map(pct),
    );
    const path = fc.oneof(
      fc.constantFrom('/v1/leads', '/v1/work-items', '/v1/addresses', '/address', '/healthz', '/readyz'),
      fc.constantFrom('/v1/leads/', '/v1/work-items/', '/v1/').chain((p) => segment.map((s) => p + s)),
      fc.constantFrom('/metrics', '/v1/openapi.json', '/', '/v2/leads', '//v1//leads'),
    );
    const method = fc.constantFrom<InjectOptions['method']>(
      'GET',
      'POST',
      'PUT',
      'PATCH',
      'DELETE',
      'OPTIONS',
      'HEAD',
    );
    const body = fc.oneof(
      fc.constantFrom('{"status":"quoted"}', '{"status":"cancelled"}', '{"status":"nope"}', '{}', '[]', '{'),
      fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
    );
    await fc.assert(
      fc.asyncProperty(
        method,
        path,
        body,
        fc.constantFrom(...Object.values(ctx.keys)),
        async (m, p, b, key) => {
          const withBody = m === 'POST' || m === 'PUT' || m === 'PATCH';
          await send({
            method: m,
            url: p,
            headers: { 'x-api-key': key, ...(withBody ? { 'content-type': 'application/json' } : {}) },
            ...(withBody ? { payload: b } : {}),
          });
        },
      ),
      { numRuns: RUNS.pathsAndMethods },
    );
  });

  it('answers URLs Fastify rejects before routing in the problem shape, with a request id', async () => {
    const tooLong = await send({ method: 'GET', url: `/v1/leads/${'x'.repeat(300)}`, headers: {} });
    expect(tooLong.statusCode).toBe(404);
    expect(tooLong.headers['x-request-id']).toBeTruthy();
    const badEncoding = await send({ method: 'GET', url: '/v1/leads/%zz', headers: {} });
    expect(badEncoding.statusCode).toBe(400);
    expect(badEncoding.headers['x-request-id']).toBeTruthy();
  });

  it('refuses a lone surrogate, which could not be stored as sent', async () => {
    const res = await send(postLead(JSON.stringify({ ...validLead(), title: 'a\uD800b' })));
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([{ field: 'title', message: expect.stringMatching(/Unicode/) }]);
  });

  it(`sent at least ${MIN_REQUESTS} generated requests, and the app is still up`, async () => {
    expect(generated).toBeGreaterThanOrEqual(MIN_REQUESTS);
    const health = await ctx.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    await ctx.createLead();
  });
});
