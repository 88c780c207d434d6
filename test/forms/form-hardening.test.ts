// Hostile posts to a website form (issue 29, low findings): broken multipart bodies are a 4xx page or problem+json,
// never a 5xx, and leave no stack in the log and nothing stored; and an anonymous form post never adds a way to
// reach an existing customer (an email to one found by phone, a phone to one found by email), while the lead
// keeps what was sent. On both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { createBrand } from '../../src/accounts/brands.js';
import { type App, buildApp } from '../../src/app.js';
import { apiClient, formPoster } from '../api.js';
import { createTestContext, dialects, dropSchema, type TestContext, testConfig } from '../helpers.js';
import { captureLogs } from '../observability/support.js';

const SITE = 'https://www.example.nl';
const ADDRESS = { street: 'Damrak', streetNumber: '1', postalCode: '1012 LG', city: 'Amsterdam' };

/** Broken multipart bodies: [what, content type, body]. */
const BROKEN: [string, string, string][] = [
  ['no boundary', 'multipart/form-data', 'customerName=x&title=y'],
  ['an empty boundary', 'multipart/form-data; boundary=', '--\r\n\r\n--\r\n'],
  ['a boundary the body never uses', 'multipart/form-data; boundary=abc', 'garbage'],
  [
    'a body cut off in a part',
    'multipart/form-data; boundary=abc',
    '--abc\r\nContent-Disposition: form-data; name="a"\r\n\r\nx',
  ],
  [
    'a part without a name',
    'multipart/form-data; boundary=abc',
    '--abc\r\nContent-Disposition: form-data\r\n\r\nx\r\n--abc--\r\n',
  ],
  ['a part without headers', 'multipart/form-data; boundary=abc', '--abc\r\n\r\nx\r\n--abc--\r\n'],
  [
    'a part with a broken disposition',
    'multipart/form-data; boundary=abc',
    '--abc\r\nContent-Disposition: ;;;\r\n\r\nx\r\n--abc--\r\n',
  ],
  ['only the closing line', 'multipart/form-data; boundary=abc', '--abc--\r\n'],
  ['a quoted boundary never closed', 'multipart/form-data; boundary="abc', '--abc\r\n'],
];

describe.each(dialects())('broken multipart posts on %s', (dialect) => {
  let app: App;
  let key: string;
  let formId: string;
  let leadId: string;
  const logs = captureLogs();

  beforeAll(async () => {
    app = await buildApp(testConfig(dialect, { logLevel: 'info', logFormat: 'json' }), {
      logger: { stream: logs.stream },
      defaultMetrics: false,
      webhookWorker: false,
    });
    await app.ready();
    const brandId = (await createBrand(app.deps.database, { language: 'en', name: 'Acme', country: 'NL' }))
      .id;
    key = (await createApiKey(app.deps.database, { brandId, name: 'site', scopes: ['full'] })).key;
    const api = apiClient(app, key);
    formId = (await api.post('/v1/forms', { name: 'Website', allowedOrigins: [SITE] })).json().id;
    leadId = (
      await api.post('/v1/leads', { ...ADDRESS, customerName: 'A', email: 'a@example.com', title: 'T' })
    ).json().id;
  });
  afterAll(async () => {
    if (app) {
      await dropSchema(app);
      await app.close();
    }
  });

  const stored = async () => {
    const keys: string[] = [];
    for await (const object of app.deps.storage.list()) keys.push(object.key);
    const leads = await app.deps.database.db.selectFrom('leads').select('id').execute();
    const files = await app.deps.database.db.selectFrom('attachments').select('id').execute();
    return { keys: keys.length, leads: leads.length, files: files.length };
  };

  it.each(BROKEN)(
    '%s: a 4xx, as a page or problem+json, no stack logged, nothing stored',
    async (_what, type, body) => {
      const before = await stored();
      const targets = [
        { url: `/f/${formId}`, headers: { origin: SITE }, json: false },
        { url: `/f/${formId}`, headers: { origin: SITE, accept: 'application/json' }, json: true },
        { url: `/v1/leads/${leadId}/attachments`, headers: { 'x-api-key': key }, json: true },
        // The API's form endpoints take JSON only: a multipart body, broken or not, is a 415.
        { url: '/v1/forms', headers: { 'x-api-key': key }, json: true },
      ];
      for (const target of targets) {
        const logged = logs.lines.length;
        const res = await app.inject({
          method: 'POST',
          url: target.url,
          headers: { 'content-type': type, ...target.headers },
          payload: body,
        });
        const context = `${target.url} ${JSON.stringify(target.headers)} -> ${res.statusCode} ${res.body.slice(0, 200)}`;
        expect(res.statusCode, context).toBeGreaterThanOrEqual(400);
        expect(res.statusCode, context).toBeLessThan(500);
        if (target.json) {
          expect(res.headers['content-type'], context).toMatch(/^application\/problem\+json/);
          expect(res.json().status, context).toBe(res.statusCode);
        } else {
          expect(res.headers['content-type'], context).toMatch(/^text\/html/);
          expect(res.body, context).toContain('<html');
        }
        const lines = logs.lines.slice(logged);
        expect(JSON.stringify(lines), context).not.toContain('"stack"');
        expect(
          lines.filter((l) => Number(l.level) >= 50),
          context,
        ).toEqual([]);
      }
      expect(await stored()).toEqual(before);
    },
  );
});

describe.each(dialects())('form fields named like Object.prototype on %s', (dialect) => {
  let ctx: TestContext;
  let formId: string;
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    formId = (await ctx.api.post('/v1/forms', { name: 'Website', allowedOrigins: [SITE] })).json().id;
  });
  afterAll(async () => {
    await ctx?.close();
  });

  // Found by test/faults/hostile-form.test.ts: an extra field "constructor" too long was a 500, its error's label
  // looked up on Object.prototype.
  it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
    'an invalid extra field "%s" is a 422 naming it, as a page and as problem+json',
    async (name) => {
      const fields = {
        ...ADDRESS,
        customerName: 'A',
        email: 'proto@example.com',
        title: 'T',
        [name]: 'x'.repeat(1001),
      };
      const site = formPoster(() => ctx.app, SITE);
      const page = await site.form(formId, fields);
      expect(page.statusCode).toBe(422);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      const json = await site.json(formId, fields);
      expect(json.statusCode).toBe(422);
      expect(json.json().errors).toEqual([{ field: name, message: expect.stringContaining(name) }]);
    },
  );
});

describe.each(dialects())(
  'what an anonymous form post may fill on an existing customer, on %s',
  (dialect) => {
    let ctx: TestContext;
    let formId: string;
    beforeAll(async () => {
      ctx = await createTestContext(dialect);
      formId = (await ctx.api.post('/v1/forms', { name: 'Website', allowedOrigins: [SITE] })).json().id;
    });
    afterAll(async () => {
      await ctx?.close();
    });

    const site = formPoster(() => ctx.app, SITE);
    const customerOf = async (lead: string) => {
      const read = await ctx.api.get(`/v1/leads/${lead}`);
      expect(read.statusCode).toBe(200);
      return read.json();
    };
    const post = async (fields: Record<string, string>) => {
      const res = await site.json(formId, { ...ADDRESS, title: 'Boiler', ...fields });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as string;
    };

    it('never adds an email to a customer found by phone; the lead keeps the email it was sent with', async () => {
      const own = await ctx.createLead({
        customerName: 'Phone only',
        email: undefined,
        phone: '+31612340001',
      });
      const customerId = own.customerId as string;
      const lead = await post({
        customerName: 'Phone only',
        firstName: 'Piet',
        phone: '06 1234 0001',
        email: 'attacker@evil.example',
      });
      const read = await customerOf(lead);
      expect(read.customer.id).toBe(customerId);
      expect(read.customer.email).toBeNull();
      // The harmless fields are filled as before.
      expect(read.customer.firstName).toBe('Piet');
      expect(read.submitted.email).toBe('attacker@evil.example');
      const customer = (await ctx.api.get(`/v1/customers/${customerId}`)).json();
      expect(customer.email).toBeNull();
      expect(customer.phone).toBe('+31612340001');
    });

    it('never adds a phone to a customer found by email', async () => {
      const email = 'email-only@example.com';
      const own = await ctx.createLead({ customerName: 'Email only', email });
      const customerId = own.customerId as string;
      const lead = await post({ customerName: 'Email only', email, phone: '+31699990000' });
      const read = await customerOf(lead);
      expect(read.customer.id).toBe(customerId);
      expect(read.customer.phone).toBeNull();
      expect(read.submitted.phone).toBe('+31699990000');
    });

    it('a lead sent with an API key still fills the email, as the contract says', async () => {
      const own = await ctx.createLead({ customerName: 'Keyed', email: undefined, phone: '+31612340002' });
      const customerId = own.customerId as string;
      const keyed = await ctx.createLead({
        customerName: 'Keyed',
        email: 'keyed@example.com',
        phone: '+31612340002',
      });
      expect(keyed.customerId).toBe(customerId);
      expect((await ctx.api.get(`/v1/customers/${customerId}`)).json().email).toBe('keyed@example.com');
    });
  },
);
