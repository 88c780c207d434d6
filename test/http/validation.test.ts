// Every rule of the contract's "Lead creation" section, and the list query rules, positive and negative.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw } from '../api.js';
import { createTestContext, dialects, type TestContext, validLead } from '../helpers.js';

const REQUIRED = ['street', 'postalCode', 'city', 'customerName', 'title'] as const;
const OPTIONAL = [
  'streetNumber',
  'streetNumberAddition',
  'country',
  'firstName',
  'lastName',
  'email',
  'phone',
  'companyName',
  'description',
  'category',
  'priority',
  'budgetQuote',
  'notes',
] as const;

/** The contract's maximum lengths, in characters. */
const MAX_LENGTHS: Record<string, number> = {
  title: 200,
  description: 5000,
  notes: 5000,
  budgetQuote: 200,
  category: 100,
  customerName: 200,
  firstName: 200,
  lastName: 200,
  companyName: 200,
  email: 254,
  street: 200,
  streetNumber: 20,
  streetNumberAddition: 20,
  postalCode: 16,
  city: 100,
};

const NOT_STRINGS: [string, unknown][] = [
  ['a number', 42],
  ['a boolean', true],
  ['an object', { value: 'x' }],
  ['an array', ['x']],
];

const EMOJI = '😀'; // one character, two UTF-16 code units, four UTF-8 bytes

/** A valid email address of exactly `length` characters (local part at most 64, labels at most 63). */
function emailOfLength(length: number): string {
  const local = 'a'.repeat(64);
  let domain = '';
  while (local.length + 1 + domain.length + 4 < length) {
    const room = length - (local.length + 1 + domain.length + 4) - 1;
    domain += `${domain ? '.' : ''}${'b'.repeat(Math.min(63, Math.max(1, room)))}`;
  }
  const email = `${local}@${domain}.com`;
  if (email.length !== length) throw new Error(`built an email of ${email.length}, wanted ${length}`);
  return email;
}

/** A value of exactly `length` characters, ending in an emoji so that code units and characters differ. */
function textOfLength(field: string, length: number): string {
  if (field === 'email') return emailOfLength(length);
  return 'x'.repeat(length - 1) + EMOJI;
}

type Counts = { leads: number; customers: number; addresses: number };

describe.each(dialects())('lead and query validation on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
  });
  afterAll(async () => ctx?.close());

  async function counts(): Promise<Counts> {
    const count = async (table: 'leads' | 'customers' | 'addresses') => {
      const row = await ctx.app.deps.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    };
    return {
      leads: await count('leads'),
      customers: await count('customers'),
      addresses: await count('addresses'),
    };
  }

  /**
   * Sends a body that must fail (a string is the body's text); checks the 422 names exactly `fields` and that
   * nothing was stored.
   */
  async function rejects(payload: unknown, fields: string[]): Promise<LightMyRequestResponse> {
    const before = await counts();
    const sent = typeof payload === 'string' ? raw(payload) : payload;
    const res = await ctx.api.post('/v1/leads', sent, { key: ctx.keys['leads:write'] });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = res.json();
    expect(body.type).toBe('https://lead-intake.dev/errors/validation');
    expect(body.requestId).toBe(res.headers['x-request-id']);
    expect((body.errors as { field: string }[]).map((e) => e.field).sort()).toEqual([...fields].sort());
    expect(await counts()).toEqual(before);
    return res;
  }

  /** Sends a body that must succeed and returns the stored lead as the single read shows it. */
  async function accepts(payload: Record<string, unknown>, key = ctx.keys['leads:write']) {
    const res = await ctx.api.post('/v1/leads', payload, { key });
    expect(res.statusCode, res.body).toBe(201);
    const detail = await ctx.api.get(`/v1/leads/${res.json().id}`, {
      key: key === ctx.keys.other ? ctx.keys.other : ctx.keys.full,
    });
    expect(detail.statusCode).toBe(200);
    return detail.json();
  }

  describe('required fields', () => {
    it.each(REQUIRED)('%s missing', async (field) => {
      const body = validLead();
      delete body[field];
      const res = await rejects(body, [field]);
      expect(res.json().errors[0].message).toMatch(/required/);
    });

    it.each(REQUIRED)('%s null', async (field) => {
      await rejects(validLead({ [field]: null }), [field]);
    });

    for (const [label, value] of NOT_STRINGS) {
      it.each(REQUIRED)(`%s as ${label}`, async (field) => {
        const res = await rejects(validLead({ [field]: value }), [field]);
        expect(res.json().errors[0].message).toMatch(/string/);
      });
    }

    it.each(REQUIRED)('%s empty after trimming', async (field) => {
      await rejects(validLead({ [field]: ' \t\n ' }), [field]);
    });

    it('all of them missing: every one is named', async () => {
      await rejects({}, [...REQUIRED]);
    });
  });

  describe('optional fields', () => {
    for (const [label, value] of NOT_STRINGS) {
      it.each(OPTIONAL)(`%s as ${label} is a 422`, async (field) => {
        await rejects(validLead({ [field]: value }), [field]);
      });
    }

    it('empty, blank and null optional fields count as absent', async () => {
      const blanks = Object.fromEntries(
        OPTIONAL.map((field, i) => [field, i % 3 === 0 ? null : i % 3 === 1 ? '' : '  ']),
      );
      const lead = await accepts(validLead(blanks));
      expect(lead.priority).toBe('medium');
      expect(lead.address.country).toBe('NL');
      expect(lead.customer).toMatchObject({ email: null, phone: null, firstName: null, companyName: null });
      expect(lead.description).toBeNull();
    });
  });

  it('trims every string field', async () => {
    const pad = (value: string) => `  \t${value} \n`;
    const email = `trim-${Date.now()}@example.com`;
    const lead = await accepts({
      street: pad('Prinsengracht'),
      streetNumber: pad('263'),
      streetNumberAddition: pad('B'),
      postalCode: pad('1016 GV'),
      city: pad('Amsterdam'),
      country: pad('nl'),
      customerName: pad('Anne Frank'),
      firstName: pad('Anne'),
      lastName: pad('Frank'),
      email: pad(email),
      phone: pad('+31 20 556 7105'),
      companyName: pad('Huis BV'),
      title: pad('New roof'),
      description: pad('Leaks  when it rains'),
      category: pad('roofing'),
      priority: pad('urgent'),
      budgetQuote: pad('EUR 5000-8000'),
      notes: pad('Call first'),
    });
    expect(lead).toMatchObject({
      title: 'New roof',
      description: 'Leaks  when it rains',
      category: 'roofing',
      priority: 'urgent',
      budgetQuote: 'EUR 5000-8000',
      notes: 'Call first',
      customer: {
        name: 'Anne Frank',
        firstName: 'Anne',
        lastName: 'Frank',
        email,
        phone: '+31205567105',
        companyName: 'Huis BV',
        type: 'business',
      },
      address: {
        street: 'Prinsengracht',
        streetNumber: '263',
        streetNumberAddition: 'B',
        postalCode: '1016 GV',
        city: 'Amsterdam',
        country: 'NL',
      },
    });
  });

  describe('maximum lengths, in characters', () => {
    it.each(Object.entries(MAX_LENGTHS))('%s: %i characters pass', async (field, max) => {
      const value = textOfLength(field, max);
      const lead = await accepts(validLead({ [field]: value }));
      const stored =
        field === 'title' ||
        field === 'description' ||
        field === 'notes' ||
        field === 'budgetQuote' ||
        field === 'category'
          ? lead[field]
          : field === 'customerName'
            ? lead.customer.name
            : field in lead.customer
              ? lead.customer[field]
              : lead.address[field];
      expect(stored).toBe(value);
    });

    it.each(Object.entries(MAX_LENGTHS))('%s: %i + 1 characters fail', async (field, max) => {
      const res = await rejects(validLead({ [field]: textOfLength(field, max + 1) }), [field]);
      if (field !== 'email') expect(res.json().errors[0].message).toContain(String(max));
    });

    it('surrounding whitespace does not count towards the limit', async () => {
      const title = 'x'.repeat(200);
      const lead = await accepts(validLead({ title: `   ${title}   ` }));
      expect(lead.title).toBe(title);
    });

    it('every field too long at once: all are named', async () => {
      const body = validLead(
        Object.fromEntries(
          Object.entries(MAX_LENGTHS).map(([field, max]) => [field, textOfLength(field, max + 1)]),
        ),
      );
      await rejects(body, Object.keys(MAX_LENGTHS));
    });
  });

  describe('unknown fields', () => {
    it('a typo such as postcode is a 422 naming it, and nothing is stored', async () => {
      const res = await rejects(validLead({ postcode: '1015 CJ' }), ['postcode']);
      expect(res.json().detail).toContain('postcode');
    });

    it('several unknown fields are all named, together with other failures', async () => {
      const body = validLead({ zip: '1', phoneNumber: '+31', address: { street: 'x' } });
      delete body.city;
      await rejects(body, ['zip', 'phoneNumber', 'address', 'city']);
    });

    it('a field named constructor is an unknown field', async () => {
      await rejects(validLead({ constructor: 'x' }), ['constructor']);
    });

    it.each([
      ['__proto__', '{"__proto__": {"isAdmin": true}, "street": "x"}'],
      ['constructor.prototype', '{"constructor": {"prototype": {"isAdmin": true}}, "street": "x"}'],
    ])('a %s key is refused and nothing is stored', async (_label, payload) => {
      const before = await counts();
      const res = await ctx.api.post(
        '/v1/leads',
        raw(payload.replace('"street": "x"', JSON.stringify(validLead()).slice(1, -1))),
        { key: ctx.keys['leads:write'] },
      );
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(await counts()).toEqual(before);
      expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    });
  });

  describe('email', () => {
    it.each([
      'a@b.co',
      'first.last+tag@sub.example.org',
      "o'brien@example.ie",
      'UPPER@EXAMPLE.COM',
      'x_y-z@e-xample.nl',
    ])('%s is accepted and stored as sent', async (email) => {
      const unique = email.replace('@', `+${Math.random().toString(36).slice(2, 8)}@`);
      const lead = await accepts(validLead({ email: unique }));
      expect(lead.customer.email).toBe(unique);
    });

    it.each([
      'plainaddress',
      '@example.com',
      'user@',
      'user@localhost',
      'user@@example.com',
      'user name@example.com',
      'user@exam ple.com',
      '.user@example.com',
      'user.@example.com',
      'us..er@example.com',
      'user@-example.com',
      'user@example-.com',
      'user@example..com',
      'user@.example.com',
      '"quoted"@example.com',
      'user@example.com.',
      `${'a'.repeat(65)}@example.com`,
    ])('%s is refused', async (email) => {
      await rejects(validLead({ email }), ['email']);
    });
  });

  describe('phone', () => {
    it.each([
      ['+31 6 1234 5678', '+31612345678'],
      ['+1 (555) 123-4567', '+15551234567'],
      ['+44.20.7946.0958', '+442079460958'],
      ['+3212345678', '+3212345678'],
      ['+12345678', '+12345678'],
      ['+123456789012345', '+123456789012345'],
      ['+49-(0)30-1234567', '+490301234567'],
    ])('%s is stored as %s', async (phone, e164) => {
      const lead = await accepts(validLead({ phone }));
      expect(lead.customer.phone).toBe(e164);
    });

    it.each([
      ['no plus sign', '0612345678'],
      ['digits only', '31612345678'],
      ['7 digits', '+1234567'],
      ['16 digits', '+1234567890123456'],
      ['letters', '+31 6 CALL NOW'],
      ['two plus signs', '++31612345678'],
      ['a plus sign inside', '+31 6+12345678'],
      ['a slash', '+31/612345678'],
      ['an extension', '+31612345678 ext 12'],
      ['only a plus', '+'],
    ])('%s is refused', async (_label, phone) => {
      await rejects(validLead({ phone }), ['phone']);
    });
  });

  describe('priority', () => {
    it.each(['low', 'medium', 'high', 'urgent'])('%s is accepted', async (priority) => {
      const lead = await accepts(validLead({ priority }));
      expect(lead.priority).toBe(priority);
    });

    it('defaults to medium', async () => {
      const lead = await accepts(validLead());
      expect(lead.priority).toBe('medium');
    });

    it.each(['critical', 'asap', 'lowest', 'medium-high'])('%s is refused', async (priority) => {
      const res = await rejects(validLead({ priority }), ['priority']);
      expect(res.json().errors[0].message).toMatch(/low.*medium.*high.*urgent/);
    });
  });

  describe('country', () => {
    it.each([
      ['NL', 'NL'],
      ['de', 'DE'],
      ['Be', 'BE'],
      [' fr ', 'FR'],
      // Its Dutch or English name, in any letter case (never a guess: see test/forms/form-fields.test.ts).
      ['Netherlands', 'NL'],
      ['nederland', 'NL'],
      ['Duitsland', 'DE'],
    ])('%s is stored as %s', async (country, stored) => {
      const lead = await accepts(validLead({ country }));
      expect(lead.address.country).toBe(stored);
    });

    it.each([
      ['three letters', 'NLD'],
      ['one letter', 'N'],
      ['a digit', 'N1'],
      ['a misspelled name', 'Nederlandd'],
      ['a name in another language', 'Deutschland'],
      ['an unassigned code', 'XX'],
      ['the unknown-region code', 'ZZ'],
      ['a user-assigned code', 'AA'],
      ['a grouping that is no country', 'EU'],
      ['a withdrawn code', 'AN'],
    ])('%s is refused', async (_label, country) => {
      await rejects(validLead({ country }), ['country']);
    });

    it("defaults to the brand's country: NL for the main brand, BE for the other", async () => {
      expect((await accepts(validLead())).address.country).toBe('NL');
      expect((await accepts(validLead(), ctx.keys.other)).address.country).toBe('BE');
    });
  });

  describe('the body itself', () => {
    it.each([
      ['an array', '[]'],
      ['an array of a lead', JSON.stringify([validLead()])],
      ['a string', '"street"'],
      ['a number', '42'],
      ['true', 'true'],
      ['null', 'null'],
    ])('%s is a 422', async (_label, payload) => {
      const res = await rejects(payload, ['(body)']);
      expect(res.json().errors[0].message).toMatch(/object/);
    });
  });

  it('no 4xx stores anything: a mixed run leaves the counts unchanged', async () => {
    const before = await counts();
    const headers = { 'x-api-key': ctx.keys['leads:write'], 'content-type': 'application/json' };
    const statuses = [];
    for (const request of [
      { headers, payload: '{"street":' },
      { headers, payload: '' },
      { headers: { ...headers, 'content-type': 'text/plain' }, payload: JSON.stringify(validLead()) },
      { headers, payload: JSON.stringify({ ...validLead(), notes: 'x'.repeat(70_000) }) },
      { headers: { ...headers, 'x-api-key': ctx.keys['leads:read'] }, payload: JSON.stringify(validLead()) },
      { headers: { ...headers, 'x-api-key': ctx.keys.revoked }, payload: JSON.stringify(validLead()) },
      { headers, payload: JSON.stringify(validLead({ phone: '12' })) },
    ]) {
      const res = await ctx.app.inject({ method: 'POST', url: '/v1/leads', ...request });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([400, 400, 415, 413, 403, 401, 422]);
    expect(await counts()).toEqual(before);
  });

  describe('list query parameters', () => {
    const LISTS = ['/v1/leads', '/v1/work-items', '/v1/addresses', '/address'];
    async function queryRejected(url: string, field: string) {
      const res = await ctx.api.get(url);
      expect(res.statusCode, res.body).toBe(422);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual([field]);
    }

    describe.each(LISTS)('%s', (list) => {
      it.each(['0', '-1', '1.5', 'abc', '', '10abc', 'ten'])(
        'limit=%s is a 422 naming limit',
        async (value) => {
          await queryRejected(`${list}?limit=${value}`, 'limit');
        },
      );

      it.each([
        ['1', 1],
        ['100', 100],
        ['101', 100],
        ['500', 100],
      ])('limit=%s is served as %i', async (value, served) => {
        const res = await ctx.api.get(`${list}?limit=${value}`);
        expect(res.statusCode).toBe(200);
        expect(res.json().limit).toBe(served);
        expect(res.json().data.length).toBeLessThanOrEqual(served);
      });

      it('limit defaults to 50', async () => {
        const res = await ctx.api.get(list);
        expect(res.statusCode).toBe(200);
        expect(res.json().limit).toBe(50);
      });

      it.each(['postcode', 'page', 'offset', 'sort'])(
        'an unknown parameter %s is a 422 naming it',
        async (name) => {
          const res = await ctx.api.get(`${list}?${name}=1`);
          expect(res.statusCode).toBe(422);
          expect(res.json().errors).toEqual([
            { field: name, message: expect.stringMatching(/query parameter/) },
          ]);
        },
      );

      it.each([
        'abc',
        'l1.',
        'l1.!!!',
        `l1.${Buffer.from('not.a.position').toString('base64url')}`,
        `l1.${Buffer.from("1.wrk_' OR 1=1 --").toString('base64url')}`,
        `l2.${Buffer.from(`1700000000000.wrk_${'0'.repeat(26)}`).toString('base64url')}`,
        'x'.repeat(300),
      ])('a forged cursor %s is a 422', async (cursor) => {
        await queryRejected(`${list}?cursor=${encodeURIComponent(cursor)}`, 'cursor');
      });

      it('order must be asc or desc', async () => {
        await queryRejected(`${list}?order=sideways`, 'order');
        expect((await ctx.api.get(`${list}?order=asc`)).statusCode).toBe(200);
      });
    });

    describe.each(['/v1/leads', '/v1/work-items'])('%s filters', (list) => {
      it.each(['yesterday', '2026-13-45', '2026-02-30T10:00:00Z', '21-11-2026', '1700000000000', 'now'])(
        'receivedAfter=%s is a 422',
        async (value) => {
          await queryRejected(`${list}?receivedAfter=${encodeURIComponent(value)}`, 'receivedAfter');
        },
      );

      it.each(['receivedAfter', 'receivedBefore', 'updatedAfter'])(
        '%s accepts an ISO timestamp',
        async (name) => {
          const res = await ctx.api.get(`${list}?${name}=${encodeURIComponent('2026-11-21T09:30:00.000Z')}`);
          expect(res.statusCode).toBe(200);
        },
      );

      it('several bad timestamps are all named', async () => {
        const res = await ctx.api.get(`${list}?receivedBefore=x&updatedAfter=y&receivedAfter=z`);
        expect(res.statusCode).toBe(422);
        expect(
          res
            .json()
            .errors.map((e: { field: string }) => e.field)
            .sort(),
        ).toEqual(['receivedAfter', 'receivedBefore', 'updatedAfter']);
      });

      it.each(['bogus', 'cancelled', ',', 'request,bogus'])('status=%s is a 422', async (value) => {
        await queryRejected(`${list}?status=${encodeURIComponent(value)}`, 'status');
      });
    });

    it('status must be a state the list serves', async () => {
      await queryRejected('/v1/leads?status=scheduled', 'status');
      await queryRejected('/v1/work-items?status=request', 'status');
      expect((await ctx.api.get('/v1/leads?status=request,quoted')).statusCode).toBe(200);
      expect((await ctx.api.get('/v1/work-items?status=scheduled,in_progress')).statusCode).toBe(200);
    });

    it('addresses take createdAfter and createdBefore, checked like the other timestamps', async () => {
      await queryRejected('/v1/addresses?createdAfter=soon', 'createdAfter');
      expect((await ctx.api.get('/v1/addresses?createdBefore=2026-11-21T09:30:00Z')).statusCode).toBe(200);
    });
  });
});
