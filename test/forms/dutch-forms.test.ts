// A website form in Dutch: the forms API's `language`, the hosted page (and `?lang=en`), the snippet's labels, the
// JSON and HTML 422 of a post, the thank-you and error pages, and Settings > Forms for a Dutch-speaking user.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession } from '../../src/accounts/sessions.js';
import { SESSION_COOKIE } from '../../src/platform/web/cookies.js';
import { formPoster } from '../api.js';
import { addUser, Browser, textOf } from '../dashboard/helpers.js';
import { expectToContain } from '../expect-text.js';
import { createTestContext, dialects, formRateLimit, type TestContext } from '../helpers.js';

const SITE = 'https://www.loodgieter.example';
const BASE = '/dashboard/settings/forms';

/** English a Dutch form page must not show (the labels, button and notes of the English form). */
const ENGLISH = [
  'Your name',
  'What do you need?',
  '>Send<',
  'Fields marked',
  '(optional)',
  'Leave this field empty',
  'Thank you',
  'is required',
  'must be',
  'There is a problem',
  'There are',
];

function expectNoEnglish(body: string) {
  for (const phrase of ENGLISH) expect(body, phrase).not.toContain(phrase);
}

describe.each(dialects())('a Dutch website form on %s', (dialect) => {
  let ctx: TestContext;
  let form: { id: string; endpoint: string; snippet: string; language: string };
  let address = 0;
  /** Each post from its own address, so only the rate-limit test meets the limit. */
  const from = () => ({ remoteAddress: `10.9.0.${++address}` });
  const site = formPoster(() => ctx.app, SITE);
  let n = 0;
  const fields = (extra: Record<string, string> = {}) => ({
    customerName: `Jan de Vries ${++n}`,
    email: `jan${n}-${dialect}-${Date.now()}@example.nl`,
    street: 'Damrak',
    streetNumber: '1',
    postalCode: '1012 LG',
    city: 'Amsterdam',
    title: 'Cv-ketel lekt',
    consent: 'yes',
    ...extra,
  });

  beforeAll(async () => {
    ctx = await createTestContext(dialect, {
      rateLimit: formRateLimit(2),
    });
    const res = await ctx.api.post('/v1/forms', {
      name: 'Contact',
      allowedOrigins: [SITE],
      consentText: 'Ik ga akkoord dat Acme contact met mij opneemt.',
      language: 'nl',
    });
    expect(res.statusCode, res.body).toBe(201);
    form = res.json();
  });
  afterAll(async () => {
    await ctx?.close();
  });

  describe('the forms API', () => {
    it('takes language on create and change, answers it, and defaults to the brand’s', async () => {
      expect(form.language).toBe('nl');
      expect((await ctx.api.get(`/v1/forms/${form.id}`)).json().language).toBe('nl');
      const plain = await ctx.api.post('/v1/forms', { name: 'Plain', allowedOrigins: [] });
      expect(plain.statusCode).toBe(201);
      // The test brand speaks English.
      expect(plain.json().language).toBe('en');
      const changed = await ctx.api.patch(`/v1/forms/${plain.json().id}`, { language: 'nl' });
      expect(changed.statusCode, changed.body).toBe(200);
      expect(changed.json().language).toBe('nl');
      expect(changed.json().snippet).toContain('Uw naam');
      const back = await ctx.api.patch(`/v1/forms/${plain.json().id}`, { language: 'en' });
      expect(back.json()).toMatchObject({ language: 'en' });
      expect(back.json().snippet).toContain('Your name');
    });

    it('refuses a language other than nl or en with a 422 naming language', async () => {
      for (const res of [
        await ctx.api.post('/v1/forms', { name: 'German', allowedOrigins: [], language: 'de' }),
        await ctx.api.patch(`/v1/forms/${form.id}`, { language: 'de' }),
      ]) {
        expect(res.statusCode).toBe(422);
        expect(res.json().type).toBe('https://lead-intake.dev/errors/validation');
        expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual(['language']);
      }
      expect((await ctx.api.get(`/v1/forms/${form.id}`)).json().language).toBe('nl');
    });

    it('gives the snippet Dutch labels', () => {
      const { snippet } = form;
      expectToContain(snippet, [
        '<label for="field-customerName">Uw naam',
        '<label for="field-title">Waarmee kunnen we u helpen?',
        '<label for="field-email">E-mail <span class="optional">(optioneel)</span>',
        '<label for="field-postalCode">Postcode',
        'Velden met een sterretje (*) zijn verplicht.',
        'Laat dit veld leeg',
        '>Versturen</button>',
      ]);
      expectNoEnglish(snippet);
    });
  });

  describe('the hosted page', () => {
    it('speaks Dutch, formally, with lang and Content-Language', async () => {
      const res = await ctx.app.inject({ method: 'GET', url: `/f/${form.id}` });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-language']).toBe('nl');
      expectToContain(res.body, [
        '<html lang="nl">',
        'Uw naam',
        'Waarmee kunnen we u helpen?',
        '>Versturen</button>',
        `<form method="post" action="/f/${form.id}" `,
      ]);
      // The switch to the other language.
      expect(res.body).toContain(`href="/f/${form.id}?lang=en" hreflang="en" lang="en">English</a>`);
      expectNoEnglish(res.body);
    });

    it('?lang=en shows it in English, and its post keeps English', async () => {
      const res = await ctx.app.inject({ method: 'GET', url: `/f/${form.id}?lang=en` });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-language']).toBe('en');
      expectToContain(res.body, ['<html lang="en">', 'Your name', '>Send</button>']);
      expect(res.body).not.toContain('Uw naam');
      expect(res.body).toContain(`<form method="post" action="/f/${form.id}?lang=en" `);
      const post = await ctx.app.inject({
        method: 'POST',
        url: `/f/${form.id}?lang=en`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: SITE },
        payload: new URLSearchParams(fields()).toString(),
        ...from(),
      });
      expect(post.statusCode, post.body).toBe(303);
      expect(post.headers.location).toBe(`/f/${form.id}/thanks?lang=en`);
      const thanks = await ctx.app.inject({ method: 'GET', url: String(post.headers.location) });
      expect(thanks.body).toContain('Thank you. We have received your request and will be in touch.');
      expect(thanks.headers['content-language']).toBe('en');
    });

    it('says thank you in Dutch after a post', async () => {
      const post = await site.form(form.id, fields(), from());
      expect(post.statusCode, post.body).toBe(303);
      expect(post.headers.location).toBe(`/f/${form.id}/thanks`);
      const thanks = await ctx.app.inject({ method: 'GET', url: `/f/${form.id}/thanks` });
      expect(thanks.statusCode).toBe(200);
      expect(thanks.headers['content-language']).toBe('nl');
      expectToContain(thanks.body, [
        '<html lang="nl">',
        '<title>Bedankt · Acme Plumbing</title>',
        'Bedankt. We hebben uw aanvraag ontvangen en nemen contact met u op.',
      ]);
      expectNoEnglish(thanks.body);
    });
  });

  describe('a post that fails', () => {
    it('JSON: each entry’s message is a Dutch sentence; field, type, title and detail stay the API’s', async () => {
      const res = await site.json(form.id, { ...fields({ email: 'geen-adres' }), consent: '' }, from());
      expect(res.statusCode).toBe(422);
      const body = res.json();
      expect(body.type).toBe('https://lead-intake.dev/errors/validation');
      expect(body.title).toBe('Validation failed');
      expect(body.detail).toMatch(/^2 fields are invalid: /);
      expect(body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['consent', 'email']);
      const message = (field: string) =>
        body.errors.find((e: { field: string }) => e.field === field).message;
      expect(message('consent')).toBe('Toestemming is verplicht: vink het vakje aan om akkoord te gaan.');
      expect(message('email')).toMatch(/^E-mail (is niet geldig|moet een geldig e-mailadres zijn)/);
      expect(JSON.stringify(body.errors)).not.toMatch(/must|required|valid email/);
    });

    it('JSON: a national phone number gets the Dutch hint with examples', async () => {
      const res = await site.json(form.id, fields({ phone: '12' }), from());
      expect(res.statusCode).toBe(422);
      expect(res.json().errors).toEqual([
        {
          field: 'phone',
          message: 'Telefoon moet een telefoonnummer zijn, zoals 06 12345678 of +31 6 12345678.',
        },
      ]);
    });

    it('a form post: the hosted page again, in Dutch, problems listed, values kept', async () => {
      const res = await site.form(form.id, { ...fields({ email: 'geen-adres' }), consent: '' }, from());
      expect(res.statusCode).toBe(422);
      expect(res.headers['content-language']).toBe('nl');
      expectToContain(res.body, [
        '<html lang="nl">',
        '<title>Fout: Acme Plumbing</title>',
        'Er zijn 2 problemen',
        '<p class="error" id="field-consent-error">Toestemming is verplicht: vink het vakje aan om akkoord te gaan.</p>',
      ]);
      expect(res.body).toMatch(/<p class="error" id="field-email-error">E-mail [^<]+\.<\/p>/);
      expect(res.body).toContain('value="geen-adres"');
      expectNoEnglish(res.body);
    });

    it('error pages: a refused origin, an unknown form, too many posts', async () => {
      const refused = await site.form(form.id, fields(), { origin: 'https://elders.example', ...from() });
      expect(refused.statusCode).toBe(403);
      expect(refused.headers['content-language']).toBe('nl');
      expectToContain(refused.body, [
        '<html lang="nl">',
        'Dit formulier kan niet vanaf hier worden verstuurd',
        'Deze website (https://elders.example) mag geen aanvragen naar dit formulier sturen.',
      ]);

      for (const [accept, title, lang] of [
        ['nl-NL,nl;q=0.9,en;q=0.5', 'Formulier niet gevonden', 'nl'],
        ['en-GB,en;q=0.9', 'Form not found', 'en'],
      ] as const) {
        const unknown = await ctx.app.inject({
          method: 'GET',
          url: '/f/frm_00000000000000000000000000',
          headers: { 'accept-language': accept },
        });
        expect(unknown.statusCode).toBe(404);
        expect(unknown.headers['content-language']).toBe(lang);
        expect(unknown.body).toContain(`<html lang="${lang}">`);
        expect(unknown.body).toContain(`<h1>${title}</h1>`);
      }

      // A body past the limit fails before the route runs: the page still speaks the form's language.
      const tooLarge = await site.form(form.id, { ...fields(), description: 'x'.repeat(70 * 1024) }, from());
      expect(tooLarge.statusCode).toBe(413);
      expect(tooLarge.headers['content-language']).toBe('nl');
      expect(tooLarge.body).toContain('<h1>Te veel gegevens</h1>');
      expect(tooLarge.body).toContain('Het formulier stuurde meer dan deze dienst aanneemt');

      const one = { remoteAddress: '10.9.1.1' };
      let limited = await site.form(form.id, fields(), one);
      for (let i = 0; i < 3 && limited.statusCode !== 429; i++)
        limited = await site.form(form.id, fields(), one);
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['retry-after']).toBeDefined();
      expect(limited.headers['content-language']).toBe('nl');
      expect(limited.body).toContain('<h1>Te veel aanvragen</h1>');
      expect(limited.body).toMatch(
        /Er zijn te veel aanvragen via dit formulier verstuurd vanaf uw adres\. Probeer het over \d+ (seconde|seconden) opnieuw\./,
      );
      // JSON clients keep the API's English problem.
      const json = await site.json(form.id, fields(), one);
      expect(json.statusCode).toBe(429);
      expect(json.json().detail).toMatch(
        /^Too many posts to this form from your address; try again in \d+ seconds?\.$/,
      );
    });
  });

  describe('Settings > Forms for a Dutch-speaking user', () => {
    let browser: Browser;
    beforeAll(async () => {
      const user = await addUser(ctx.app, ctx.brandId, `kantoor-${dialect}@acme.example`, 'owner');
      await ctx.app.deps.database.db
        .updateTable('users')
        .set({ language: 'nl' })
        .where('id', '=', user.id)
        .execute();
      const session = await createSession(ctx.app.deps.database, user.id);
      browser = new Browser(ctx.app);
      browser.cookies.set(SESSION_COOKIE, session.token);
    });

    it('shows the list, the new form and a form’s page in Dutch, with the form’s language to choose', async () => {
      const list = await browser.get(BASE);
      expect(list.statusCode, list.body).toBe(200);
      expect(list.headers['content-language']).toBe('nl');
      expect(textOf(list.body)).toContain('Formulieren op je website waarmee klanten een aanvraag bij');
      expect(textOf(list.body)).toContain('Nieuw formulier');

      const blank = await browser.get(`${BASE}/new`);
      expect(blank.statusCode).toBe(200);
      expect(blank.body).toContain('<label for="field-language">Taal</label>');
      // A new form takes the brand's language (English here) until someone picks another.
      expect(blank.body).toContain('<option value="en" lang="en" selected>English</option>');
      expect(blank.body).toContain('<option value="nl" lang="nl">Nederlands</option>');
      expect(textOf(blank.body)).toContain('Formulier aanmaken');

      const page = await browser.get(`${BASE}/${form.id}`);
      expect(page.statusCode).toBe(200);
      const text = textOf(page.body);
      for (const phrase of [
        'Op je website zetten',
        'Het formulier om te plakken',
        'Instellingen',
        'Wijzigingen opslaan',
      ]) {
        expect(text, phrase).toContain(phrase);
      }
      expect(page.body).toContain('<option value="nl" lang="nl" selected>Nederlands</option>');
      for (const phrase of ['Put it on your website', 'Save changes', 'Allowed origins', 'Disable form']) {
        expect(text, phrase).not.toContain(phrase);
      }
    });

    it('saves the language chosen, and shows problems in Dutch', async () => {
      const created = await browser.post(BASE, {
        name: 'Offerteaanvraag',
        language: 'nl',
        allowedOrigins: SITE,
        honeypotField: '_gotcha',
      });
      expect(created.statusCode, created.body).toBe(303);
      const id = /\/(frm_[0-9a-z]+)\?done=created$/.exec(String(created.headers.location))?.[1];
      expect(id).toBeDefined();
      expect((await ctx.api.get(`/v1/forms/${id}`)).json().language).toBe('nl');
      const done = await browser.get(String(created.headers.location));
      expect(textOf(done.body)).toContain('Het formulier is klaar.');

      const changed = await browser.post(`${BASE}/${id}`, {
        name: 'Offerteaanvraag',
        language: 'en',
        allowedOrigins: SITE,
        honeypotField: '_gotcha',
      });
      expect(changed.statusCode, changed.body).toBe(303);
      expect((await ctx.api.get(`/v1/forms/${id}`)).json().language).toBe('en');

      const wrong = await browser.post(`${BASE}/${id}`, {
        name: '',
        language: 'de',
        allowedOrigins: 'ftp://elders.example',
        honeypotField: '_gotcha',
      });
      expect(wrong.statusCode).toBe(422);
      expectToContain(wrong.body, [
        '<p class="error" id="field-name-error">Naam is verplicht.</p>',
        '<p class="error" id="field-language-error">Taal: kies Nederlands of English.</p>',
        'Toegestane websites: ftp://elders.example moet https gebruiken (http alleen voor localhost of 127.0.0.1).',
      ]);
      expect(textOf(wrong.body)).toContain('Er zijn 3 problemen');
      expect((await ctx.api.get(`/v1/forms/${id}`)).json().language).toBe('en');
    });
  });
});
