// Forms that ask only what the business needs: the fields a form shows (API and Settings), its own questions, the
// country select and country names, the phone read in the posted country, refused posts counted and shown, and the
// thank-you page's link back to the page a post came from.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { createBrand } from '../../src/accounts/brands.js';
import { createSession } from '../../src/accounts/sessions.js';
import { buildApp } from '../../src/app.js';
import { formRefusals, recordRefusal } from '../../src/forms/refusals.js';
import { SESSION_COOKIE } from '../../src/platform/web/cookies.js';
import { phoneExample } from '../../src/shared/phone.js';
import { apiClient, formPoster } from '../api.js';
import { addUser, Browser, textOf } from '../dashboard/helpers.js';
import {
  createTestContext,
  dialects,
  dropSchema,
  formPeople,
  formRateLimit,
  nextMillisecond,
  type TestContext,
  testConfig,
  validLead,
} from '../helpers.js';
import { captureLogs } from '../observability/support.js';

const SITE = 'https://www.example.nl';
const BASE = '/dashboard/settings/forms';

/** The names of the fields and questions a form's markup asks, in order. */
function askedIn(markup: string): string[] {
  return [
    ...markup.matchAll(
      /<(?:input|select|textarea) id="field-[^"]+" (?:type="(?!file")[^"]+" )?name="([^"]+)"/g,
    ),
  ]
    .map((m) => m[1]!)
    .filter((name) => name !== '_gotcha' && name !== 'consent');
}

const errorFields = (res: { json(): { errors: { field: string }[] } }) =>
  res.json().errors.map((e) => e.field);

describe.each(dialects())('forms that ask only what the business needs, on %s', (dialect) => {
  let ctx: TestContext;
  const site = formPoster(() => ctx.app, SITE);
  let address = 0;
  const from = () => ({ remoteAddress: `10.7.0.${++address % 250}` });
  const person = formPeople<unknown>('Person', (n) => `p${n}-${dialect}-${Date.now()}@example.com`);
  const newForm = async (body: Record<string, unknown> = {}) => {
    const res = await ctx.api.post('/v1/forms', { name: 'Contact', allowedOrigins: [SITE], ...body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const readLead = async (id: string) => (await ctx.api.get(`/v1/leads/${id}`)).json();

  beforeAll(async () => {
    ctx = await createTestContext(dialect, {
      rateLimit: formRateLimit(),
    });
  });
  afterAll(async () => {
    await ctx?.close();
  });

  describe('fields', () => {
    it('gives a new form the default fields, email or phone among them', async () => {
      const form = await newForm();
      expect(form.fields).toEqual([
        { name: 'title', required: true },
        { name: 'description', required: false },
        { name: 'customerName', required: true },
        { name: 'email', required: false },
        { name: 'phone', required: false },
        { name: 'street', required: true },
        { name: 'streetNumber', required: false },
        { name: 'postalCode', required: true },
        { name: 'city', required: true },
      ]);
      expect(form.questions).toEqual([]);
      expect(askedIn(form.snippet)).toEqual(form.fields.map((f: { name: string }) => f.name));
    });

    it('adds the always-required fields where they belong and makes them required', async () => {
      const form = await newForm({
        fields: [
          { name: 'description', required: true },
          { name: 'title', required: false },
          { name: 'phone', required: true },
          { name: 'country' },
        ],
      });
      expect(form.fields).toEqual([
        { name: 'description', required: true },
        { name: 'title', required: true },
        { name: 'customerName', required: true },
        { name: 'phone', required: true },
        { name: 'street', required: true },
        { name: 'postalCode', required: true },
        { name: 'city', required: true },
        { name: 'country', required: false },
      ]);
      const changed = await ctx.api.patch(`/v1/forms/${form.id}`, { fields: [{ name: 'companyName' }] });
      expect(changed.statusCode, changed.body).toBe(200);
      expect(changed.json().fields.map((f: { name: string }) => f.name)).toEqual([
        'title',
        'customerName',
        'companyName',
        'street',
        'postalCode',
        'city',
      ]);
      expect((await ctx.api.get(`/v1/forms/${form.id}`)).json().fields).toEqual(changed.json().fields);
    });

    it('refuses unknown, repeated and unshowable fields and a bad required, naming each', async () => {
      const res = await ctx.api.post('/v1/forms', {
        name: 'Bad',
        allowedOrigins: [],
        fields: [{ name: 'postcode' }, { name: 'email' }, { name: 'email' }, { name: 'priority' }],
      });
      expect(res.statusCode).toBe(422);
      expect(errorFields(res)).toEqual(['fields[0].name', 'fields[2].name', 'fields[3].name']);
      // A value of the wrong type is refused by the body's schema, named as the API names such fields.
      const wrongType = await ctx.api.post('/v1/forms', {
        name: 'Bad',
        allowedOrigins: [],
        fields: [{ name: 'phone', required: 'yes' }],
      });
      expect(wrongType.statusCode).toBe(422);
      expect(errorFields(wrongType)).toEqual(['fields.0.required']);
      const notList = await ctx.api.post('/v1/forms', { name: 'Bad', allowedOrigins: [], fields: 'email' });
      expect(notList.statusCode).toBe(422);
    });

    it('checks a post against the form’s required fields, in the form’s language', async () => {
      const form = await newForm({
        language: 'nl',
        fields: [{ name: 'description', required: true }, { name: 'email' }, { name: 'phone' }],
      });
      const json = await site.json(form.id, person({ description: ' ' }), from());
      expect(json.statusCode).toBe(422);
      expect(json.json().errors).toEqual([{ field: 'description', message: 'Omschrijving is verplicht.' }]);
      const html = await site.form(form.id, person(), from());
      expect(html.statusCode).toBe(422);
      expect(html.body).toContain('href="#field-description"');
      expect(textOf(html.body)).toContain('Omschrijving is verplicht.');
      // Email or phone: at least one of them when both are shown and neither is required.
      const neither = await site.json(form.id, person({ description: 'x', email: '' }), from());
      expect(neither.statusCode).toBe(422);
      expect(errorFields(neither)).toEqual(['email', 'phone']);
      const phoneOnly = await site.json(
        form.id,
        person({ description: 'x', email: undefined, phone: '06 1234 5678' }),
        from(),
      );
      expect(phoneOnly.statusCode, phoneOnly.body).toBe(201);
      // A field the form does not show is still taken, by the lead's rules.
      const extra = await site.json(form.id, person({ description: 'x', companyName: 'Acme BV' }), from());
      expect(extra.statusCode, extra.body).toBe(201);
      expect((await readLead(extra.json().id)).customer.companyName).toBe('Acme BV');
      const bad = await site.json(form.id, person({ description: 'x', country: 'Nederlandd' }), from());
      expect(errorFields(bad)).toEqual(['country']);
    });
  });

  describe('questions', () => {
    const QUESTIONS = [
      {
        key: 'boilerType',
        label: 'What kind of boiler?',
        type: 'select',
        options: ['Combi', 'System'],
        required: true,
      },
      { key: 'notes_2', label: 'Anything else?', type: 'textarea' },
      { key: 'parking', label: 'Can we park in front?', type: 'checkbox' },
      { key: 'floor', label: 'Which floor?', type: 'text', required: false },
    ];

    it('takes questions on create and change and answers them', async () => {
      const form = await newForm({ questions: QUESTIONS });
      expect(form.questions).toEqual([
        {
          key: 'boilerType',
          label: 'What kind of boiler?',
          type: 'select',
          options: ['Combi', 'System'],
          required: true,
        },
        { key: 'notes_2', label: 'Anything else?', type: 'textarea', options: null, required: false },
        { key: 'parking', label: 'Can we park in front?', type: 'checkbox', options: null, required: false },
        { key: 'floor', label: 'Which floor?', type: 'text', options: null, required: false },
      ]);
      const changed = await ctx.api.patch(`/v1/forms/${form.id}`, { questions: [QUESTIONS[2]] });
      expect(changed.json().questions.map((q: { key: string }) => q.key)).toEqual(['parking']);
      const none = await ctx.api.patch(`/v1/forms/${form.id}`, { questions: [] });
      expect(none.json().questions).toEqual([]);
    });

    it('refuses each bad question with a 422 naming it', async () => {
      const bad = async (questions: unknown, field: string) => {
        const res = await ctx.api.post('/v1/forms', { name: 'Q', allowedOrigins: [], questions });
        expect(res.statusCode, JSON.stringify(questions)).toBe(422);
        expect(errorFields(res), JSON.stringify(questions)).toEqual([field]);
      };
      const q = (extra: Record<string, unknown>) => ({ key: 'k', label: 'L', type: 'text', ...extra });
      await bad([q({ key: 'email' })], 'questions[0].key');
      await bad([q({ key: 'utm_source' })], 'questions[0].key');
      await bad([q({ key: 'bad key' })], 'questions[0].key');
      await bad([q({ key: '' })], 'questions[0].key');
      await bad([q({}), q({})], 'questions[1].key');
      await bad([q({ label: 'x'.repeat(201) })], 'questions[0].label');
      await bad([q({ label: ' ' })], 'questions[0].label');
      await bad([q({ type: 'radio' })], 'questions[0].type');
      await bad([q({ type: 'select' })], 'questions[0].options');
      await bad([q({ type: 'select', options: [] })], 'questions[0].options');
      await bad([q({ type: 'select', options: ['a', ' '] })], 'questions[0].options');
      await bad(
        [q({ type: 'select', options: Array.from({ length: 51 }, (_, i) => `o${i}`) })],
        'questions[0].options',
      );
      await bad([q({ options: ['a'] })], 'questions[0].options');
      await bad(
        Array.from({ length: 21 }, (_, i) => q({ key: `k${i}` })),
        'questions',
      );
    });

    it('shows exactly the form’s fields and then its questions, after the job’s fields, in order', async () => {
      const form = await newForm({
        fields: [{ name: 'title' }, { name: 'description' }, { name: 'customerName' }, { name: 'phone' }],
        questions: QUESTIONS,
      });
      const expected = [
        'title',
        'description',
        'boilerType',
        'notes_2',
        'parking',
        'floor',
        'customerName',
        'phone',
        'street',
        'postalCode',
        'city',
      ];
      expect(askedIn(form.snippet)).toEqual(expected);
      const page = await ctx.app.inject({ method: 'GET', url: `/f/${form.id}` });
      expect(askedIn(page.body)).toEqual(expected);
      expect(page.body).toContain(
        '<label for="field-boilerType">What kind of boiler? <span aria-hidden="true">*</span>',
      );
      expect(page.body).toContain('<option>Combi</option><option>System</option>');
      expect(page.body).toContain('name="parking" value="yes"');
      expect(page.body).toMatch(/<select id="field-boilerType" name="boilerType" required>/);
    });

    it('keeps answers in extraFields; a wrong choice or a missing required answer is a 422 naming it', async () => {
      const form = await newForm({ questions: QUESTIONS });
      const ok = await site.json(
        form.id,
        person({ boilerType: 'Combi', parking: true, floor: ' 2nd ', notes_2: '', houseType: 'flat' }),
        from(),
      );
      expect(ok.statusCode, ok.body).toBe(201);
      expect((await readLead(ok.json().id)).extraFields).toEqual({
        houseType: 'flat',
        boilerType: 'Combi',
        parking: 'yes',
        floor: '2nd',
      });
      const formPost = await site.form(form.id, person({ boilerType: 'System', parking: 'yes' }), from());
      expect(formPost.statusCode, formPost.body).toBe(303);

      const wrong = await site.json(form.id, person({ boilerType: 'Gas' }), from());
      expect(wrong.statusCode).toBe(422);
      expect(wrong.json().errors).toEqual([
        { field: 'boilerType', message: 'What kind of boiler?: choose one of the options.' },
      ]);
      const missing = await site.form(form.id, person(), from());
      expect(missing.statusCode).toBe(422);
      expect(textOf(missing.body)).toContain('What kind of boiler? is required.');
      expect(missing.body).toContain('href="#field-boilerType"');
    });

    it('names a missing required checkbox in Dutch for a Dutch form', async () => {
      const form = await newForm({
        language: 'nl',
        questions: [
          { key: 'akkoord', label: 'Ik ben eigenaar van de woning', type: 'checkbox', required: true },
        ],
      });
      const res = await site.json(form.id, person(), from());
      expect(res.json().errors).toEqual([
        { field: 'akkoord', message: 'Ik ben eigenaar van de woning is verplicht.' },
      ]);
      const ok = await site.form(form.id, person({ akkoord: 'yes' }), from());
      expect(ok.statusCode).toBe(303);
    });
  });

  describe('country', () => {
    it('is a select of country names in the form’s language, the brand’s country chosen', async () => {
      const fields = [{ name: 'country' }];
      const nl = await newForm({ language: 'nl', fields });
      expect(nl.snippet).toContain('<select id="field-country" name="country" autocomplete="country">');
      expect(nl.snippet).toContain('<option value="NL" selected>Nederland</option>');
      expect(nl.snippet).toContain('<option value="DE">Duitsland</option>');
      const en = await newForm({ language: 'en', fields });
      expect(en.snippet).toContain('<option value="NL" selected>Netherlands</option>');
      expect(en.snippet).toContain('<option value="DE">Germany</option>');
      const page = await ctx.app.inject({ method: 'GET', url: `/f/${en.id}?lang=nl` });
      expect(page.body).toContain('<option value="NL" selected>Nederland</option>');
    });

    it('takes a code or a Dutch or English name in any case, and nothing else', async () => {
      const form = await newForm({ fields: [{ name: 'country' }] });
      for (const [sent, stored] of [
        ['Nederland', 'NL'],
        ['netherlands', 'NL'],
        ['NL', 'NL'],
        ['nl', 'NL'],
        ['Niger', 'NE'],
        ['België', 'BE'],
        ['belgie', 'BE'],
        ['Germany', 'DE'],
        ['Verenigd Koninkrijk', 'GB'],
        ['UK', 'GB'],
        ['VS', 'US'],
      ]) {
        const res = await site.json(form.id, person({ country: sent }), from());
        expect(res.statusCode, `${sent}: ${res.body}`).toBe(201);
        expect((await readLead(res.json().id)).address.country, sent).toBe(stored);
      }
      for (const sent of ['Nederlandd', 'Nederlan', 'Holland ', 'XX', 'EU', 'Nether lands']) {
        const res = await site.json(form.id, person({ country: sent }), from());
        expect(res.statusCode, sent).toBe(422);
        expect(errorFields(res)).toEqual(['country']);
      }
    });

    it('is read the same way by POST /v1/leads', async () => {
      for (const [sent, stored] of [
        ['Nederland', 'NL'],
        ['NETHERLANDS', 'NL'],
        ['be', 'BE'],
      ]) {
        const res = await ctx.api.post('/v1/leads', validLead({ country: sent }));
        expect(res.statusCode, res.body).toBe(201);
        expect((await ctx.api.get(`/v1/leads/${res.json().id}`)).json().address.country).toBe(stored);
      }
      const bad = await ctx.api.post('/v1/leads', validLead({ country: 'Nederlandd' }));
      expect(bad.statusCode).toBe(422);
      expect(errorFields(bad)).toEqual(['country']);
    });

    it('reads a national phone number in the posted country, and its error shows that country’s format', async () => {
      const form = await newForm({ fields: [{ name: 'phone' }, { name: 'country' }] });
      const belgian = await site.json(form.id, person({ country: 'België', phone: '0470 12 34 56' }), from());
      expect(belgian.statusCode, belgian.body).toBe(201);
      expect((await readLead(belgian.json().id)).customer.phone).toBe('+32470123456');
      const bad = await site.json(form.id, person({ country: 'BE', phone: '12' }), from());
      expect(bad.statusCode).toBe(422);
      const example = phoneExample('BE')!;
      const message = bad.json().errors.find((e: { field: string }) => e.field === 'phone').message;
      expect(message).toContain(example.national);
      expect(message).not.toContain(phoneExample('NL')!.national);
      // Without a country: the brand's (NL).
      const dutch = await site.json(form.id, person({ phone: '12' }), from());
      expect(dutch.json().errors.find((e: { field: string }) => e.field === 'phone').message).toContain(
        phoneExample('NL')!.national,
      );
    });
  });

  describe('the thank-you page', () => {
    it('links back to the page a post came from only when it is on an allowed origin', async () => {
      const form = await newForm();
      const res = await site.form(form.id, person(), {
        ...from(),
        headers: { referer: `${SITE}/contact?x=1` },
      });
      expect(res.statusCode).toBe(303);
      const location = String(res.headers.location);
      expect(location).toBe(`/f/${form.id}/thanks?back=${encodeURIComponent(`${SITE}/contact?x=1`)}`);
      const thanks = await ctx.app.inject({ method: 'GET', url: location });
      expect(thanks.body).toContain(
        `<a id="thanks-back" href="${SITE}/contact?x=1">Back to the page you came from</a>`,
      );
      // The hosted page (this service's own origin) gets no link back; neither does a forged `back`.
      const own = new URL(ctx.app.deps.config.publicUrl).origin;
      const hosted = await site.form(form.id, person(), {
        ...from(),
        origin: own,
        headers: { referer: `${own}/f/${form.id}` },
      });
      expect(hosted.headers.location).toBe(`/f/${form.id}/thanks`);
      for (const back of [
        'https://evil.example/x',
        'javascript:alert(1)',
        `${SITE.replace('https', 'http')}/x`,
      ]) {
        const forged = await ctx.app.inject({
          method: 'GET',
          url: `/f/${form.id}/thanks?back=${encodeURIComponent(back)}`,
        });
        expect(forged.statusCode).toBe(200);
        expect(forged.body, back).not.toContain('thanks-back');
      }
    });
  });

  describe('refused posts', () => {
    it('are counted per form and shown on the form’s settings page, newest origin first', async () => {
      const form = await newForm({ name: 'Refusing' });
      const other = await newForm({ name: 'Other' });
      // Each in a millisecond of its own: the origins are listed by their last refusal, newest first.
      for (const origin of ['https://evil.example', 'https://evil.example', 'https://www.example.com']) {
        await nextMillisecond();
        const res = await site.form(form.id, person(), { ...from(), origin });
        expect(res.statusCode).toBe(403);
      }
      await nextMillisecond();
      expect((await site.form(form.id, person(), { ...from(), origin: null })).statusCode).toBe(403);
      expect(
        (await site.form(other.id, person(), { ...from(), origin: 'https://x.example' })).statusCode,
      ).toBe(403);
      const user = await addUser(ctx.app, ctx.brandId, `office-refusals-${dialect}@acme.example`, 'owner');
      const session = await createSession(ctx.app.deps.database, user.id);
      const browser = new Browser(ctx.app);
      browser.cookies.set(SESSION_COOKIE, session.token);
      const page = await browser.get(`${BASE}/${form.id}`);
      expect(page.statusCode).toBe(200);
      const section = textOf(page.body.slice(page.body.indexOf('id="refused"')));
      expect(section).toContain('4 posts were refused in the last 30 days');
      const origins = [
        ...page.body.matchAll(/<td data-label="Sent from" class="url-text">([^<]+)<\/td>/g),
      ].map((m) => m[1]);
      expect(origins).toEqual(['(no origin sent)', 'https://www.example.com', 'https://evil.example']);
      expect(section).not.toContain('https://x.example');
      const rows = await ctx.app.deps.database.db
        .selectFrom('form_refusals')
        .select(['origin', 'count'])
        .where('form_id', '=', form.id)
        .orderBy('origin')
        .execute();
      expect(rows.map((r) => [r.origin, Number(r.count)])).toEqual([
        ['(none)', 1],
        ['https://evil.example', 2],
        ['https://www.example.com', 1],
      ]);
      const quiet = await browser.get(`${BASE}/${(await newForm({ name: 'Quiet' })).id}`);
      expect(textOf(quiet.body)).toContain('No posts were refused in the last 30 days.');
    });

    it('keep at most 50 origins a form a day (the rest as "(other)") and drop days older than 30', async () => {
      const form = await newForm({ name: 'Flooded' });
      const day = Date.parse('2026-10-01T12:00:00.000Z');
      for (let i = 0; i < 52; i++)
        await recordRefusal(ctx.app.deps.database, form.id, `https://s${i}.example`, day);
      await recordRefusal(ctx.app.deps.database, form.id, 'https://s0.example', day);
      const rows = () =>
        ctx.app.deps.database.db
          .selectFrom('form_refusals')
          .select(['origin', 'count', 'day'])
          .where('form_id', '=', form.id)
          .execute();
      const first = await rows();
      expect(first).toHaveLength(51);
      expect(Number(first.find((r) => r.origin === '(other)')?.count)).toBe(2);
      expect(Number(first.find((r) => r.origin === 'https://s0.example')?.count)).toBe(2);
      const shown = await formRefusals(ctx.app.deps.database, ctx.brandId, form.id, day);
      expect(shown.total).toBe(53);
      // 31 days later the old day is gone, and a new refusal is counted on its own day.
      await recordRefusal(ctx.app.deps.database, form.id, undefined, day + 31 * 24 * 3600 * 1000);
      expect((await rows()).map((r) => [r.origin, Number(r.count), r.day])).toEqual([
        ['(none)', 1, '2026-11-01'],
      ]);
      // Another brand sees none of it.
      expect((await formRefusals(ctx.app.deps.database, ctx.otherBrandId, form.id)).total).toBe(0);
    });

    it('says plainly, in the form’s language, that this website may not send to the form', async () => {
      const form = await newForm({ language: 'nl' });
      const res = await site.form(form.id, person(), { ...from(), origin: 'https://evil.example' });
      expect(res.statusCode).toBe(403);
      expect(textOf(res.body)).toContain(
        'Deze website (https://evil.example) mag geen aanvragen naar dit formulier sturen.',
      );
      expect(res.body).not.toMatch(/verbinding|connection/i);
    });
  });

  describe('Settings > Forms', () => {
    let browser: Browser;
    beforeAll(async () => {
      const user = await addUser(ctx.app, ctx.brandId, `office-editor-${dialect}@acme.example`, 'owner');
      const session = await createSession(ctx.app.deps.database, user.id);
      browser = new Browser(ctx.app);
      browser.cookies.set(SESSION_COOKIE, session.token);
    });

    it('edits fields and questions without JavaScript and previews the saved form', async () => {
      const form = await newForm({ name: 'Editable' });
      const page = await browser.get(`${BASE}/${form.id}`);
      expect(page.statusCode).toBe(200);
      // The editor: a row a field, the shown ones checked, and three empty question rows.
      expect(page.body).toContain('name="fieldShown" value="email"');
      expect(page.body).toMatch(/name="fieldShown" value="title"[^>]* checked disabled/);
      expect(page.body).toContain('name="q2-label"');
      expect(page.body).not.toContain('name="q3-label"');
      // The preview: the hosted form as it is saved, inert, with its own ids.
      expect(page.body).toContain(
        `<form method="post" action="/f/${form.id}" enctype="multipart/form-data" accept-charset="utf-8" inert>`,
      );
      expect(page.body).toContain('id="preview-field-email"');

      const settings = {
        name: 'Editable',
        language: 'en',
        allowedOrigins: SITE,
        honeypotField: '_gotcha',
        fieldOrder: [
          'title',
          'description',
          'category',
          'budgetQuote',
          'customerName',
          'email',
          'phone',
          'street',
          'postalCode',
          'city',
          'country',
        ],
        fieldShown: ['title', 'description', 'customerName', 'phone', 'country'],
        fieldRequired: ['description', 'phone'],
        'q0-label': 'What kind of boiler?',
        'q0-key': '',
        'q0-type': 'select',
        'q0-options': 'Combi\r\nSystem\r\n',
        'q0-required': 'yes',
        'q1-label': '',
        'q1-key': '',
        'q1-type': 'text',
        'q1-options': '',
        'q2-label': 'Parking?',
        'q2-key': 'parking',
        'q2-type': 'checkbox',
        'q2-options': '',
      };
      const saved = await browser.post(`${BASE}/${form.id}`, settings);
      expect(saved.statusCode, saved.body).toBe(303);
      const read = (await ctx.api.get(`/v1/forms/${form.id}`)).json();
      expect(read.fields).toEqual([
        { name: 'title', required: true },
        { name: 'description', required: true },
        { name: 'customerName', required: true },
        { name: 'phone', required: true },
        { name: 'street', required: true },
        { name: 'postalCode', required: true },
        { name: 'city', required: true },
        { name: 'country', required: false },
      ]);
      expect(read.questions).toEqual([
        {
          key: 'what_kind_of_boiler',
          label: 'What kind of boiler?',
          type: 'select',
          options: ['Combi', 'System'],
          required: true,
        },
        { key: 'parking', label: 'Parking?', type: 'checkbox', options: null, required: false },
      ]);
      const after = await browser.get(`${BASE}/${form.id}`);
      const preview = after.body.slice(
        after.body.indexOf('id="preview"'),
        after.body.indexOf('id="refused"'),
      );
      expect(
        [...preview.matchAll(/id="preview-field-[^"]+" (?:type="(?!file")[^"]+" )?name="([^"]+)"/g)].map(
          (m) => m[1],
        ),
      ).toEqual([
        'title',
        'description',
        'what_kind_of_boiler',
        'parking',
        'customerName',
        'phone',
        'street',
        'postalCode',
        'city',
        'country',
        '_gotcha',
      ]);
      // Two questions and three empty rows to fill in.
      expect(after.body).toContain('name="q4-label"');
      expect(after.body).not.toContain('name="q5-label"');

      // A bad question is shown at its row, and nothing is saved.
      const refused = await browser.post(`${BASE}/${form.id}`, {
        ...settings,
        'q1-label': 'Email?',
        'q1-key': 'email',
      });
      expect(refused.statusCode).toBe(422);
      expect(refused.body).toContain('href="#field-q1-key"');
      expect(refused.body).toMatch(
        /id="field-q1-key" name="q1-key" type="text" value="email"[^>]*aria-invalid="true"/,
      );
      expect((await ctx.api.get(`/v1/forms/${form.id}`)).json().questions).toHaveLength(2);
    });

    it('previews the unsaved settings as the hosted form’s markup, and saves nothing', async () => {
      const form = await newForm({
        name: 'Live',
        questions: [{ key: 'a', label: 'Saved question?', type: 'text' }],
      });
      await browser.get(`${BASE}/${form.id}`);
      const unsaved = {
        name: 'Live',
        language: 'nl',
        allowedOrigins: SITE,
        honeypotField: '_gotcha',
        fieldOrder: ['title', 'description', 'customerName', 'email', 'phone'],
        fieldShown: ['title', 'customerName', 'phone'],
        fieldRequired: [],
        'q0-label': 'Welk type ketel?',
        'q0-key': '',
        'q0-type': 'select',
        'q0-options': 'Combi\r\nSysteem',
        'q0-required': 'yes',
        // Still being written: a select without options is left out, not an error.
        'q1-label': 'Merk?',
        'q1-key': '',
        'q1-type': 'select',
        'q1-options': '',
      };
      const res = await browser.post(`${BASE}/${form.id}/preview`, unsaved);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      // A fragment: the hosted form, inert, in the unsaved language, with the unsaved fields and question.
      expect(res.body).not.toContain('<html');
      expect(res.body).toContain(`action="/f/${form.id}"`);
      expect(res.body).toContain(' inert>');
      expect(res.body).toContain('Welk type ketel?');
      expect(res.body).toContain('<option>Combi</option><option>Systeem</option>');
      expect(res.body).not.toContain('Merk?');
      expect(res.body).not.toContain('Saved question?');
      expect(res.body).toContain('id="preview-field-phone"');
      expect(res.body).not.toContain('id="preview-field-email"');
      expect(res.body).toContain('Versturen');
      // Nothing changed.
      const read = (await ctx.api.get(`/v1/forms/${form.id}`)).json();
      expect(read).toEqual(form);
      // Without the CSRF token, or for another brand's form, no preview.
      expect(
        (await browser.post(`${BASE}/${form.id}/preview`, { ...unsaved, _csrf: undefined })).statusCode,
      ).toBe(403);
      expect((await browser.post(`${BASE}/frm_00000000000000000000000000/preview`, unsaved)).statusCode).toBe(
        404,
      );
    });

    it('keeps the fields and questions when a post carries no editor (an older page)', async () => {
      const form = await newForm({ name: 'Old page', questions: [{ key: 'a', label: 'A?', type: 'text' }] });
      const saved = await browser.post(`${BASE}/${form.id}`, {
        name: 'Old page 2',
        language: 'en',
        allowedOrigins: SITE,
        honeypotField: '_gotcha',
      });
      expect(saved.statusCode, saved.body).toBe(303);
      const read = (await ctx.api.get(`/v1/forms/${form.id}`)).json();
      expect(read.name).toBe('Old page 2');
      expect(read.fields).toEqual(form.fields);
      expect(read.questions).toEqual(form.questions);
    });
  });
});

describe.each(dialects())('the log line of a refused post on %s', (dialect) => {
  it('names the form and the origin', async () => {
    const logs = captureLogs();
    const app = await buildApp(testConfig(dialect, { logLevel: 'info', logFormat: 'json' }), {
      logger: { stream: logs.stream },
      defaultMetrics: false,
      webhookWorker: false,
    });
    try {
      await app.ready();
      const brand = await createBrand(app.deps.database, { language: 'en', name: 'Acme', country: 'NL' });
      const key = await createApiKey(app.deps.database, { brandId: brand.id, name: 'k', scopes: ['full'] });
      const api = apiClient(app, key.key);
      const form = (await api.post('/v1/forms', { name: 'F', allowedOrigins: [SITE] })).json();
      const res = await formPoster(app, 'https://evil.example').form(form.id, { title: 'x' });
      expect(res.statusCode).toBe(403);
      const line = logs.lines.find((l) => l.msg === 'form post refused for its origin');
      expect(line).toMatchObject({ formId: form.id, origin: 'https://evil.example' });
    } finally {
      await dropSchema(app);
      await app.close();
    }
  });
});
