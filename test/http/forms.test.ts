// Website forms: the forms API (CRUD, validation, brand isolation) and the public endpoint and pages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formPoster } from '../api.js';
import { createTestContext, dialects, formPeople, formRateLimit, type TestContext } from '../helpers.js';

describe.each(dialects())('website forms on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect, {
      rateLimit: formRateLimit(),
    });
  });
  afterAll(async () => {
    await ctx?.close();
  });

  const newForm = async (fields: Record<string, unknown> = {}, key = ctx.keys.full) => {
    const res = await ctx.api.post(
      '/v1/forms',
      { name: 'Contact', allowedOrigins: ['https://www.example.nl'], ...fields },
      { key: key },
    );
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };

  describe('the forms API', () => {
    it('creates a form with its endpoint and a snippet, never the captcha secret', async () => {
      const form = await newForm({
        redirectUrl: 'https://www.example.nl/thanks',
        captcha: { provider: 'turnstile', siteKey: 'site-1', secret: 'very-secret' },
        consentText: 'I agree to be contacted',
        defaults: { priority: 'high', category: 'Plumbing' },
        autoReply: true,
      });
      expect(form.id).toMatch(/^frm_[0-9a-z]{26}$/);
      expect(form).toMatchObject({
        name: 'Contact',
        allowedOrigins: ['https://www.example.nl'],
        redirectUrl: 'https://www.example.nl/thanks',
        honeypotField: '_gotcha',
        captcha: { provider: 'turnstile', siteKey: 'site-1' },
        consentText: 'I agree to be contacted',
        autoReply: true,
        defaults: { priority: 'high', category: 'Plumbing' },
        enabled: true,
      });
      expect(form.endpoint).toBe(`${ctx.app.deps.config.publicUrl.replace(/\/+$/, '')}/f/${form.id}`);
      expect(JSON.stringify(form)).not.toContain('very-secret');
      const snippet = form.snippet as string;
      expect(snippet).toContain(`<form method="post" action="${form.endpoint}"`);
      for (const name of ['street', 'postalCode', 'city', 'customerName', 'email', 'phone', 'title']) {
        expect(snippet).toContain(`name="${name}"`);
        expect(snippet).toContain(`<label for="field-${name}">`);
      }
      expect(snippet).toMatch(/name="_gotcha" value="" tabindex="-1" autocomplete="off"/);
      expect(snippet).toContain('name="consent" value="yes"');
      // The captcha widget and the provider's script line; no other script.
      expect(snippet).toContain('<div class="cf-turnstile" data-sitekey="site-1"></div>');
      expect(snippet.match(/<script\b[^>]*>/g)).toEqual([
        '<script src="https://challenges.cloudflare.com/turnstile/v0/api.js" async defer>',
      ]);
      const read = await ctx.api.get(`/v1/forms/${form.id}`);
      expect(read.statusCode).toBe(200);
      expect(read.json()).toEqual(form);
    });

    it('lists, pages, changes, disables and deletes', async () => {
      const a = await newForm({ name: 'A' });
      const b = await newForm({ name: 'B' });
      const page = await ctx.api.get('/v1/forms?limit=1');
      expect(page.statusCode).toBe(200);
      expect(page.json().data.map((f: { id: string }) => f.id)).toEqual([b.id]);
      expect(page.json().hasMore).toBe(true);
      const next = await ctx.api.get(`/v1/forms?limit=1&cursor=${page.json().nextCursor}`);
      expect(next.json().data.map((f: { id: string }) => f.id)).toEqual([a.id]);

      const changed = await ctx.api.patch(`/v1/forms/${a.id}`, {
        enabled: false,
        consentText: 'Yes',
        redirectUrl: null,
        allowedOrigins: ['http://localhost:8080'],
      });
      expect(changed.statusCode, changed.body).toBe(200);
      expect(changed.json()).toMatchObject({
        enabled: false,
        consentText: 'Yes',
        allowedOrigins: ['http://localhost:8080'],
      });
      expect((await ctx.api.delete(`/v1/forms/${a.id}`)).statusCode).toBe(204);
      expect((await ctx.api.get(`/v1/forms/${a.id}`)).statusCode).toBe(404);
      expect((await ctx.api.delete(`/v1/forms/${a.id}`)).statusCode).toBe(404);
    });

    it('refuses bad origins and URLs with named errors', async () => {
      const res = await ctx.api.post('/v1/forms', {
        name: ' ',
        allowedOrigins: [
          'http://www.example.nl',
          'https://www.example.nl/contact',
          'not a url',
          'http://127.0.0.1:3000',
        ],
        redirectUrl: '/thanks',
        honeypotField: 'bad name',
        captcha: { provider: 'turnstile', siteKey: '', secret: 'x' },
      });
      expect(res.statusCode).toBe(422);
      const fields = res.json().errors.map((e: { field: string }) => e.field);
      expect(fields).toEqual(
        expect.arrayContaining([
          'name',
          'allowedOrigins[0]',
          'allowedOrigins[1]',
          'allowedOrigins[2]',
          'redirectUrl',
          'honeypotField',
          'captcha.siteKey',
        ]),
      );
      expect(fields).not.toContain('allowedOrigins[3]');
      const reserved = await ctx.api.post('/v1/forms', {
        name: 'x',
        allowedOrigins: [],
        honeypotField: 'email',
      });
      expect(reserved.json().errors.map((e: { field: string }) => e.field)).toEqual(['honeypotField']);
      const missing = await ctx.api.post('/v1/forms', { name: 'x' });
      expect(missing.statusCode).toBe(422);
    });

    it("keeps brands apart: another brand's form is a 404 and is not listed", async () => {
      const mine = await newForm();
      for (const method of ['GET', 'DELETE'] as const) {
        expect(
          (await ctx.api.request(method, `/v1/forms/${mine.id}`, undefined, { key: ctx.keys.other }))
            .statusCode,
        ).toBe(404);
      }
      expect(
        (await ctx.api.patch(`/v1/forms/${mine.id}`, { name: 'x' }, { key: ctx.keys.other })).statusCode,
      ).toBe(404);
      const list = await ctx.api.get('/v1/forms', { key: ctx.keys.other });
      expect(list.json().data.map((f: { id: string }) => f.id)).not.toContain(mine.id);
    });
  });

  describe('the public endpoint POST /f/{formId}', () => {
    const SITE = 'https://www.example.nl';
    let form: { id: string };
    let consentForm: { id: string };
    beforeAll(async () => {
      form = await newForm({ name: 'Website', allowedOrigins: [SITE], defaults: { category: 'Plumbing' } });
      consentForm = await newForm({
        name: 'Consent',
        allowedOrigins: [SITE],
        consentText: 'I agree <to> "be" contacted',
        redirectUrl: `${SITE}/thanks`,
      });
    });
    const fields = formPeople('Form person', (n) => `form${n}-${dialect}-${Date.now()}@example.com`);
    /** Posts to a form as a browser on SITE. */
    const site = formPoster(() => ctx.app, SITE);
    const readLead = async (id: string) => (await ctx.api.get(`/v1/leads/${id}`)).json();
    const leadByEmail = async (email: string | undefined) => {
      const row = await ctx.app.deps.database.db
        .selectFrom('leads as l')
        .innerJoin('customers as c', 'c.id', 'l.customer_id')
        .select(['l.id', 'l.spam'])
        .where('c.email', '=', email ?? '')
        .orderBy('l.id', 'desc')
        .executeTakeFirstOrThrow();
      return row;
    };
    const eventsFor = async (leadId: string) =>
      ctx.app.deps.database.db
        .selectFrom('events')
        .select(['type', 'data'])
        .where('brand_id', '=', ctx.brandId)
        .execute()
        .then((rows) => rows.filter((r) => String(r.data).includes(leadId)));

    it('form-encoded: 303 to the thanks page, and the lead keeps form, extra fields and attribution', async () => {
      const values = fields({
        phone: '06 1234 5678',
        utm_source: 'google',
        landingPage: '/cv-ketel',
        houseType: 'flat',
      });
      const res = await site.form(form.id, values);
      expect(res.statusCode, res.body).toBe(303);
      expect(res.headers.location).toBe(`/f/${form.id}/thanks`);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      const { id } = await leadByEmail(values.email);
      const lead = await readLead(id);
      expect(lead).toMatchObject({
        source: 'form',
        sourceFormId: form.id,
        sourceFormName: 'Website',
        category: 'Plumbing',
        extraFields: { houseType: 'flat' },
        attribution: { utm_source: 'google', landingPage: '/cv-ketel' },
        consent: null,
        sourceKeyName: null,
      });
      expect(lead.submitted).toMatchObject({
        customerName: values.customerName,
        phone: '+31612345678',
        city: 'Amsterdam',
      });
      expect(lead.customer.phone).toBe('+31612345678');
      expect((await eventsFor(id)).map((e) => e.type)).toContain('lead.created');
      const thanks = await ctx.app.inject({ method: 'GET', url: `/f/${form.id}/thanks` });
      expect(thanks.statusCode).toBe(200);
      expect(thanks.body).toContain('Thank you');
    });

    it('multipart fields are taken like form-encoded ones; a file of another type is a 422', async () => {
      const values = fields();
      const boundary = '----formtest';
      const part = (name: string, value: string) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
      const payload = `${Object.entries(values)
        .map(([k, v]) => part(k, v))
        .join('')}--${boundary}--\r\n`;
      const res = await ctx.app.inject({
        method: 'POST',
        url: `/f/${form.id}`,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, origin: SITE },
        payload,
      });
      expect(res.statusCode, res.body).toBe(303);
      expect((await leadByEmail(values.email)).spam).toBe(0);
      const file = `--${boundary}\r\nContent-Disposition: form-data; name="upload"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`;
      const refused = await ctx.app.inject({
        method: 'POST',
        url: `/f/${form.id}`,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, origin: SITE },
        payload: file,
      });
      expect(refused.statusCode).toBe(422);
      expect(refused.headers['content-type']).toMatch(/^text\/html/);
      expect(refused.body).toContain('a.txt');
    });

    it('JSON: 201 with exactly id, status and receivedAt, and CORS for the allowed origin', async () => {
      const res = await site.json(form.id, fields({ phone: '020 123 4567' }));
      expect(res.statusCode, res.body).toBe(201);
      const body = res.json();
      expect(Object.keys(body).sort()).toEqual(['id', 'receivedAt', 'status']);
      expect(body.status).toBe('request');
      expect(res.headers['access-control-allow-origin']).toBe(SITE);
      expect(res.headers.vary).toMatch(/Origin/);
      expect((await readLead(body.id)).customer.phone).toBe('+31201234567');
    });

    it('a failing form post is a 422 page listing each problem and keeping what was typed', async () => {
      const res = await site.form(form.id, {
        customerName: 'Kees <b>',
        email: 'not-an-email',
        phone: '12',
        title: '',
      });
      expect(res.statusCode).toBe(422);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      for (const field of ['street', 'postalCode', 'city', 'email', 'phone', 'title']) {
        expect(res.body).toContain(`href="#field-${field}"`);
        expect(res.body).toMatch(new RegExp(`id="field-${field}"[^>]*aria-invalid="true"`));
      }
      expect(res.body).toContain('value="Kees &lt;b&gt;"');
      expect(res.body).toContain('value="not-an-email"');
    });

    it('a failing JSON post is a 422 problem naming the fields', async () => {
      const res = await site.json(form.id, { customerName: 'x', email: 'nope' });
      expect(res.statusCode).toBe(422);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      const names = res.json().errors.map((e: { field: string }) => e.field);
      expect(names).toEqual(expect.arrayContaining(['street', 'title', 'email']));
      expect(res.headers['access-control-allow-origin']).toBe(SITE);
    });

    it('checks the origin: another origin is 403, Referer stands in for Origin, none or "null" is 403', async () => {
      const evil = await site.form(form.id, fields(), { origin: 'https://evil.example' });
      expect(evil.statusCode).toBe(403);
      expect(evil.headers['content-type']).toMatch(/^text\/html/);
      const evilJson = await site.json(form.id, fields(), { origin: 'https://evil.example' });
      expect(evilJson.statusCode).toBe(403);
      expect(evilJson.headers['access-control-allow-origin']).toBeUndefined();
      expect(
        (await site.form(form.id, fields(), { origin: null, headers: { referer: `${SITE}/contact?x=1` } }))
          .statusCode,
      ).toBe(303);
      expect(
        (
          await site.form(form.id, fields(), {
            origin: null,
            headers: { referer: 'https://evil.example/contact' },
          })
        ).statusCode,
      ).toBe(403);
      expect((await site.form(form.id, fields(), { origin: null })).statusCode).toBe(403);
      expect(
        (await site.form(form.id, fields(), { origin: 'null', headers: { referer: `${SITE}/` } })).statusCode,
      ).toBe(403);
      // The service's own origin (the hosted page) is allowed, without CORS headers.
      const own = new URL(ctx.app.deps.config.publicUrl).origin;
      const ownJson = await site.json(form.id, fields(), { origin: own });
      expect(ownJson.statusCode).toBe(201);
      expect(ownJson.headers['access-control-allow-origin']).toBeUndefined();
      // So is the host the hosted page was served by (a proxy's name, PUBLIC_URL unset), but only that host.
      const served = await site.json(form.id, fields(), {
        origin: 'http://leads.proxy.example',
        headers: { host: 'leads.proxy.example' },
      });
      expect(served.statusCode, served.body).toBe(201);
      const elsewhere = await site.json(form.id, fields(), {
        origin: 'http://other.proxy.example',
        headers: { host: 'leads.proxy.example' },
      });
      expect(elsewhere.statusCode).toBe(403);
    });

    it('tells people who wrote a national phone number how to write it, with examples of the country', async () => {
      const res = await site.json(form.id, { ...fields(), phone: '12' });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors).toEqual([
        { field: 'phone', message: 'Phone must be a phone number, such as 06 12345678 or +31 6 12345678.' },
      ]);
      // The problem's detail stays the API's English; an entry's message is the sentence people read.
      expect(res.json().detail).toBe('phone: must be a phone number, such as 06 12345678 or +31 6 12345678');
      const international = await site.json(form.id, { ...fields(), phone: '+12' });
      expect(international.json().detail).toBe('phone: must hold 8 to 15 digits');
      expect(international.json().errors[0].message).toMatch(/^Phone .+\.$/);
    });

    it('answers the CORS preflight for allowed origins only; no other route grants CORS', async () => {
      const ok = await ctx.app.inject({
        method: 'OPTIONS',
        url: `/f/${form.id}`,
        headers: {
          origin: SITE,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(ok.statusCode).toBe(204);
      expect(ok.headers['access-control-allow-origin']).toBe(SITE);
      expect(ok.headers['access-control-allow-methods']).toMatch(/POST/);
      expect(ok.headers['access-control-allow-headers']).toMatch(/content-type/i);
      const evil = await ctx.app.inject({
        method: 'OPTIONS',
        url: `/f/${form.id}`,
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      });
      expect(evil.headers['access-control-allow-origin']).toBeUndefined();
      const api = await ctx.app.inject({
        method: 'GET',
        url: '/v1/leads',
        headers: { origin: SITE, 'x-api-key': ctx.keys.full },
      });
      expect(api.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('a filled honeypot is answered like success, and the lead is spam: in no list, no event', async () => {
      const values = fields({ _gotcha: 'I am a bot' });
      const res = await site.form(form.id, values);
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe(`/f/${form.id}/thanks`);
      const spam = await leadByEmail(values.email);
      expect(spam.spam).toBe(1);
      const jsonRes = await site.json(form.id, fields({ _gotcha: 'x' }));
      expect(jsonRes.statusCode).toBe(201);
      expect(Object.keys(jsonRes.json()).sort()).toEqual(['id', 'receivedAt', 'status']);
      const list = await ctx.api.get('/v1/leads?limit=100');
      const ids = list.json().data.map((l: { id: string }) => l.id);
      expect(ids).not.toContain(spam.id);
      expect(ids).not.toContain(jsonRes.json().id);
      expect(await eventsFor(spam.id)).toEqual([]);
      // Nor a customer event: nothing in the brand's events names the spam submission's email.
      const events = await ctx.app.deps.database.db
        .selectFrom('events')
        .select('data')
        .where('brand_id', '=', ctx.brandId)
        .execute();
      const customerEvents = events.filter((r) => String(r.data).includes(values.email ?? '-')).length;
      expect(customerEvents).toBe(0);
      // Nor readable or movable through the API until it is released: a 404 like an unknown id.
      expect((await ctx.api.get(`/v1/leads/${spam.id}`)).statusCode).toBe(404);
      const moved = await ctx.api.patch(`/v1/leads/${spam.id}`, { status: 'cancelled' });
      expect(moved.statusCode).toBe(404);
      expect(await eventsFor(spam.id)).toEqual([]);
    });

    it('requires consent when the form asks for it, and keeps it with the lead', async () => {
      const missing = await site.form(consentForm.id, fields());
      expect(missing.statusCode).toBe(422);
      expect(missing.body).toContain('href="#field-consent"');
      const missingJson = await site.json(consentForm.id, fields({}));
      expect(missingJson.json().errors.map((e: { field: string }) => e.field)).toEqual(['consent']);
      const falseJson = await site.json(consentForm.id, { ...fields(), consent: false });
      expect(falseJson.statusCode).toBe(422);
      const values = fields({ consent: 'yes' });
      const ok = await site.form(consentForm.id, values);
      expect(ok.statusCode).toBe(303);
      expect(ok.headers.location).toBe(`${SITE}/thanks`);
      const lead = await readLead((await leadByEmail(values.email)).id);
      expect(lead.consent.text).toBe('I agree <to> "be" contacted');
      expect(Date.parse(lead.consent.at)).toBeGreaterThan(Date.now() - 60_000);
      const jsonOk = await site.json(consentForm.id, { ...fields(), consent: true });
      expect(jsonOk.statusCode).toBe(201);
    });

    it('limits extra fields: 21 fields or 1,001 characters is a 422 naming the field', async () => {
      const many: Record<string, string> = {};
      for (let i = 1; i <= 21; i++) many[`extra${i}`] = 'x';
      const tooMany = await site.json(form.id, { ...fields(), ...many });
      expect(tooMany.statusCode).toBe(422);
      expect(tooMany.json().errors.map((e: { field: string }) => e.field)).toEqual(['extra21']);
      const twenty = { ...many };
      delete twenty.extra21;
      expect((await site.json(form.id, { ...fields(), ...twenty })).statusCode).toBe(201);
      const long = await site.json(form.id, { ...fields(), note2: 'y'.repeat(1001) });
      expect(long.statusCode).toBe(422);
      expect(long.json().errors.map((e: { field: string }) => e.field)).toEqual(['note2']);
      expect((await site.json(form.id, { ...fields(), note2: 'y'.repeat(1000) })).statusCode).toBe(201);
    });

    it('a disabled or unknown form is a 404: HTML for form posts, problem+json for JSON', async () => {
      const off = await newForm({ allowedOrigins: [SITE] });
      await ctx.api.patch(`/v1/forms/${off.id}`, { enabled: false });
      const html = await site.form(off.id, fields());
      expect(html.statusCode).toBe(404);
      expect(html.headers['content-type']).toMatch(/^text\/html/);
      const json = await site.json(off.id, fields());
      expect(json.statusCode).toBe(404);
      expect(json.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect((await site.form('frm_00000000000000000000000000', fields())).statusCode).toBe(404);
      expect((await ctx.app.inject({ method: 'GET', url: `/f/${off.id}` })).statusCode).toBe(404);
    });

    it('limits posts per client address and form: then 429 (HTML for form posts, problem+json for JSON)', async () => {
      const limited = await createTestContext(dialect, {
        rateLimit: formRateLimit(2),
      });
      try {
        const created = await limited.api.post('/v1/forms', { name: 'Limited', allowedOrigins: [SITE] });
        const id = created.json().id as string;
        const limitedSite = formPoster(limited.app, SITE);
        expect((await limitedSite.form(id, fields(), { remoteAddress: '10.0.0.1' })).statusCode).toBe(303);
        expect((await limitedSite.json(id, fields(), { remoteAddress: '10.0.0.1' })).statusCode).toBe(201);
        const html = await limitedSite.form(id, fields(), { remoteAddress: '10.0.0.1' });
        expect(html.statusCode).toBe(429);
        expect(html.headers['content-type']).toMatch(/^text\/html/);
        expect(html.headers['retry-after']).toBeDefined();
        const problem = await limitedSite.json(id, fields(), { remoteAddress: '10.0.0.1' });
        expect(problem.statusCode).toBe(429);
        expect(problem.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect((await limitedSite.form(id, fields(), { remoteAddress: '10.0.0.2' })).statusCode).toBe(303);
      } finally {
        await limited.close();
      }
    });

    it('a body over 64 KiB is a 413', async () => {
      const res = await site.form(form.id, fields({ description: 'z'.repeat(70 * 1024) }));
      expect(res.statusCode).toBe(413);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      const json = await site.json(form.id, fields({ description: 'z'.repeat(70 * 1024) }));
      expect(json.statusCode).toBe(413);
      expect(json.headers['content-type']).toMatch(/^application\/problem\+json/);
    });
  });

  it('documents the public endpoint without security and the forms API under the Forms tag', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(doc.tags.map((t: { name: string }) => t.name)).toContain('Forms');
    const post = doc.paths['/f/{formId}'].post;
    expect(post.security).toEqual([]);
    expect(post.tags).toEqual(['Forms']);
    expect(doc.paths['/f/{formId}'].get.security).toEqual([]);
    expect(doc.paths['/v1/forms'].post.security).toEqual([
      { ApiKeyAuth: ['full'] },
      { BearerAuth: ['full'] },
    ]);
  });

  describe('the hosted page GET /f/{formId}', () => {
    it('renders labelled fields, the consent box, the brand name escaped, and frames only for allowed origins', async () => {
      await ctx.app.deps.database.db
        .updateTable('brands')
        .set({ name: 'Acme <script>alert(1)</script> & Sons' })
        .where('id', '=', ctx.brandId)
        .execute();
      const form = await newForm({
        allowedOrigins: ['https://www.example.nl', 'https://shop.example.nl'],
        consentText: 'Contact me',
      });
      const res = await ctx.app.inject({ method: 'GET', url: `/f/${form.id}` });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('<h1>Acme &lt;script&gt;alert(1)&lt;/script&gt; &amp; Sons</h1>');
      expect(res.body).not.toContain('<script>alert');
      for (const name of ['customerName', 'email', 'phone', 'street', 'postalCode', 'city', 'title']) {
        expect(res.body).toContain(`<label for="field-${name}">`);
        expect(res.body).toContain(`id="field-${name}" name="${name}"`);
      }
      expect(res.body).toContain('name="consent" value="yes"');
      expect(res.body).toContain(`action="/f/${form.id}"`);
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain('frame-ancestors https://www.example.nl https://shop.example.nl');
      expect(csp).not.toContain('unsafe-inline');
      expect(res.headers['x-frame-options']).toBeUndefined();
      expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    });
  });
});
