// Settings > Forms: create (problems at their fields, values kept, Post/Redirect/Get), the form's page with the
// snippet, the fetch example and the hosted link (the captcha secret nowhere), edit keeping the secret, disable,
// delete with confirmation, brand isolation, CSRF and escaping.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createForm, formCaptchaSecret, getForm } from '../../src/forms/forms.js';
import { formFetchExample, formSnippet } from '../../src/forms/views.js';
import { formPoster } from '../api.js';
import { expectToContain } from '../expect-text.js';
import { createTestContext, dialects, formRateLimit, type TestContext, validLead } from '../helpers.js';
import { addUser, type Browser, signedIn, textOf } from './helpers.js';

const BASE = '/dashboard/settings/forms';
const SITE = 'https://www.acme-plumbing.example';
const SECRET = 'captcha-secret-never-shown-1234';

/** The text of the element with this id (a textarea or a link), as the browser reads it. */
function textarea(body: string, id: string): string | undefined {
  const match = new RegExp(`<textarea id="${id}"[^>]*>([\\s\\S]*?)</textarea>`).exec(body);
  return match ? decode(match[1]!) : undefined;
}
function decode(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

const FULL = {
  name: 'Contact page',
  allowedOrigins: `${SITE}\nhttp://localhost:8080`,
  redirectUrl: `${SITE}/thanks`,
  honeypotField: 'website_url',
  captchaProvider: 'turnstile',
  captchaSiteKey: 'site-key-1',
  captchaSecret: SECRET,
  consentText: 'I agree that Acme contacts me.',
  autoReply: 'yes',
  defaultPriority: 'high',
  defaultCategory: 'Plumbing',
};

describe.each(dialects())('dashboard forms on %s', (dialect) => {
  let ctx: TestContext;
  let browser: Browser;
  const pages: string[] = [];

  beforeAll(async () => {
    ctx = await createTestContext(dialect, {
      rateLimit: formRateLimit(),
    });
    await addUser(ctx.app, ctx.brandId, 'office@acme.example', 'owner');
    browser = await signedIn(ctx.app, 'office@acme.example');
    await browser.get(BASE);
  });
  afterAll(async () => ctx?.close());

  const db = () => ctx.app.deps.database.db;
  const endpointOf = (id: string) => `${ctx.app.deps.config.publicUrl.replace(/\/+$/, '')}/f/${id}`;
  /** Every page a test opened, to look for the secret in all of them at the end. */
  const get = async (url: string) => {
    const res = await browser.get(url);
    pages.push(res.body);
    return res;
  };
  const post = async (url: string, fields: Record<string, string> = {}) => {
    const res = await browser.post(url, fields);
    pages.push(res.body);
    return res;
  };
  const formIds = async () =>
    (await db().selectFrom('forms').select('id').where('brand_id', '=', ctx.brandId).execute()).map(
      (f) => f.id,
    );
  const create = async (fields: Record<string, string> = {}) => {
    await get(`${BASE}/new`);
    const res = await post(BASE, { ...FULL, ...fields });
    expect(res.statusCode, res.body).toBe(303);
    const id = /\/dashboard\/settings\/forms\/(frm_[0-9a-z]{26})\?done=created$/.exec(
      String(res.headers.location),
    )?.[1];
    expect(id).toBeDefined();
    return id!;
  };
  /** A lead sent through the form as a browser on SITE sends it. */
  const site = formPoster(() => ctx.app, SITE);
  const submission = (fields: Record<string, string> = {}) =>
    validLead({ consent: 'yes', ...fields }) as Record<string, string>;

  it('is in the navigation next to Webhooks; without forms it says what a form is for and offers "New form"', async () => {
    const res = await get(BASE);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`<a href="${BASE}" aria-current="page">Forms</a>`);
    expect(res.body).toMatch(/>Webhooks<\/a><\/li><li><a href="\/dashboard\/settings\/forms"/);
    expect(textOf(res.body)).toContain('No forms yet');
    expect(textOf(res.body)).toContain('no API key or other secret in the page');
    expect(res.body).toContain(`<a class="button button-primary" href="${BASE}/new">New form</a>`);
  });

  it('the new form offers every setting of the API, each labelled', async () => {
    const res = await get(`${BASE}/new`);
    expect(res.statusCode).toBe(200);
    for (const name of [
      'name',
      'allowedOrigins',
      'redirectUrl',
      'honeypotField',
      'captchaProvider',
      'captchaSiteKey',
      'captchaSecret',
      'consentText',
      'autoReply',
      'defaultPriority',
      'defaultCategory',
    ]) {
      expect(res.body).toContain(`<label for="field-${name}">`);
      expect(res.body).toContain(`id="field-${name}" name="${name}"`);
    }
    expectToContain(res.body, [
      '<option value="turnstile">Cloudflare Turnstile</option>',
      '<option value="urgent">Urgent</option>',
      'value="_gotcha"',
      'name="captchaSecret" type="password" value=""',
    ]);
  });

  it('refuses a bad form with each problem beside its field, keeps what was typed, and creates nothing', async () => {
    const res = await post(BASE, {
      ...FULL,
      name: '   ',
      allowedOrigins: 'ftp://files.example\nhttps://ok.example',
      redirectUrl: 'not a url',
      honeypotField: 'email',
      captchaSecret: '',
      consentText: 'I agree <b>really</b>',
    });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('<p class="error" id="field-name-error">Name is required.</p>');
    expect(res.body).toMatch(
      /<p class="error" id="field-allowedOrigins-error">Allowed origins &quot;ftp:\/\/files.example&quot; must use https[^<]*\.<\/p>/,
    );
    expectToContain(res.body, [
      '<p class="error" id="field-redirectUrl-error">Redirect URL must be a full web address starting with https:// or http://.</p>',
      '<p class="error" id="field-honeypotField-error">Honeypot field name must not be a field people fill in',
      '<p class="error" id="field-captchaSecret-error">Secret is required with a provider.</p>',
    ]);
    // The summary links to each field; the fields say they are invalid.
    for (const field of ['name', 'allowedOrigins', 'redirectUrl', 'honeypotField', 'captchaSecret']) {
      expect(res.body).toContain(`href="#field-${field}"`);
    }
    expect(res.body).toMatch(/id="field-name" name="name"[^>]*aria-invalid="true"/);
    // What was typed is still there (escaped), the choices still chosen.
    expect(textarea(res.body, 'field-allowedOrigins')).toBe('ftp://files.example\nhttps://ok.example');
    expect(textarea(res.body, 'field-consentText')).toBe('I agree <b>really</b>');
    expect(res.body).not.toContain('<b>really</b>');
    expectToContain(res.body, [
      'value="not a url"',
      '<option value="turnstile" selected>',
      '<option value="high" selected>',
      'value="Plumbing"',
    ]);
    expect(res.body).toMatch(/id="field-autoReply" name="autoReply" value="yes"[^>]* checked/);
    expect(await formIds()).toEqual([]);
  });

  it('creates a form with every setting, then redirects to its page (a reload creates nothing more)', async () => {
    const before = (await formIds()).length;
    const id = await create();
    expect(await formIds()).toHaveLength(before + 1);
    const form = await getForm(ctx.app.deps.database, ctx.brandId, id);
    expect(form).toMatchObject({
      name: 'Contact page',
      allowedOrigins: [SITE, 'http://localhost:8080'],
      redirectUrl: `${SITE}/thanks`,
      honeypotField: 'website_url',
      captcha: { provider: 'turnstile', siteKey: 'site-key-1' },
      consentText: 'I agree that Acme contacts me.',
      autoReply: true,
      defaults: { priority: 'high', category: 'Plumbing' },
      enabled: true,
    });
    expect(await formCaptchaSecret(ctx.app.deps.database, ctx.brandId, id)).toBe(SECRET);
    const page = await get(`${BASE}/${id}?done=created`);
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('The form is ready.');
    // The GET after the redirect can be reloaded: it changes nothing.
    await get(`${BASE}/${id}?done=created`);
    expect(await formIds()).toHaveLength(before + 1);
    const list = await get(BASE);
    expect(list.body).toContain(`<a href="${BASE}/${id}">Contact page</a>`);
    expect(textOf(list.body)).toContain(SITE);
    expect(textOf(list.body)).toContain('Enabled');
  });

  it('a form with only a name is fine: default honeypot, no captcha, hosted page only', async () => {
    const res = await post(BASE, { name: 'Minimal', honeypotField: '' });
    expect(res.statusCode, res.body).toBe(303);
    const id = String(res.headers.location).split('/').pop()!.split('?')[0]!;
    expect(await getForm(ctx.app.deps.database, ctx.brandId, id)).toMatchObject({
      allowedOrigins: [],
      honeypotField: '_gotcha',
      captcha: null,
      redirectUrl: null,
      consentText: null,
      autoReply: false,
      defaults: { priority: null, category: null },
    });
    expect(textOf((await get(BASE)).body)).toContain('Hosted page only');
  });

  it('shows the snippet, the fetch example and the hosted link for the right endpoint, each with a copy button', async () => {
    const id = await create({ name: 'Embed test' });
    const res = await get(`${BASE}/${id}`);
    const form = await getForm(ctx.app.deps.database, ctx.brandId, id);
    const endpoint = endpointOf(id);
    expect(textarea(res.body, 'form-snippet')).toBe(
      formSnippet(form, endpoint, ctx.app.deps.config.attachments),
    );
    expect(textarea(res.body, 'form-fetch-example')).toBe(formFetchExample(endpoint, 'en'));
    expect(res.body).toContain(
      `<a id="form-hosted-link" class="url-text" href="${endpoint}">${endpoint}</a>`,
    );
    for (const target of ['form-snippet', 'form-fetch-example', 'form-hosted-link']) {
      expect(res.body).toMatch(
        new RegExp(`<button type="button" class="button" data-copy="${target}" hidden>`),
      );
      expect(res.body).toContain(`role="status" aria-live="polite" data-copy-status="${target}"`);
    }
    // Readonly, so it can be selected and copied without JavaScript.
    expect(res.body).toMatch(/<textarea id="form-snippet"[^>]* readonly/);
    expect(textOf(res.body)).toContain('Add this after the form to send it without leaving the page');
    // The same endpoint and snippet as the API gives.
    const api = await ctx.api.get(`/v1/forms/${id}`);
    expect(api.json()).toMatchObject({
      endpoint,
      snippet: formSnippet(form, endpoint, ctx.app.deps.config.attachments),
    });
  });

  it('editing keeps the stored secret when the field is left empty, replaces it when typed', async () => {
    const id = await create({ name: 'Edit me' });
    const page = await get(`${BASE}/${id}`);
    expect(textOf(page.body)).toContain('A secret is stored and is never shown. Leave this empty to keep it');
    const saved = await post(`${BASE}/${id}`, {
      ...FULL,
      name: 'Edited',
      allowedOrigins: 'https://other.example',
      captchaSiteKey: 'site-key-2',
      captchaSecret: '',
      consentText: '',
      autoReply: '',
      defaultPriority: '',
      defaultCategory: '',
      redirectUrl: '',
    } as Record<string, string>);
    expect(saved.statusCode, saved.body).toBe(303);
    expect(saved.headers.location).toBe(`${BASE}/${id}?done=saved`);
    const form = await getForm(ctx.app.deps.database, ctx.brandId, id);
    expect(form).toMatchObject({
      name: 'Edited',
      allowedOrigins: ['https://other.example'],
      captcha: { provider: 'turnstile', siteKey: 'site-key-2' },
      consentText: null,
      autoReply: false,
      redirectUrl: null,
      defaults: { priority: null, category: null },
    });
    expect(await formCaptchaSecret(ctx.app.deps.database, ctx.brandId, id)).toBe(SECRET);

    const replaced = await post(`${BASE}/${id}`, { ...FULL, captchaSecret: 'a-new-secret-5678' });
    expect(replaced.statusCode).toBe(303);
    expect(await formCaptchaSecret(ctx.app.deps.database, ctx.brandId, id)).toBe('a-new-secret-5678');

    // Another provider needs its own secret; choosing none removes the captcha and its secret.
    const other = await post(`${BASE}/${id}`, { ...FULL, captchaProvider: 'hcaptcha', captchaSecret: '' });
    expect(other.statusCode).toBe(422);
    expect(other.body).toContain('Secret is required for another provider.');
    expect(await formCaptchaSecret(ctx.app.deps.database, ctx.brandId, id)).toBe('a-new-secret-5678');
    const none = await post(`${BASE}/${id}`, {
      ...FULL,
      captchaProvider: '',
      captchaSiteKey: '',
      captchaSecret: '',
    });
    expect(none.statusCode).toBe(303);
    expect((await getForm(ctx.app.deps.database, ctx.brandId, id)).captcha).toBeNull();
    expect(await formCaptchaSecret(ctx.app.deps.database, ctx.brandId, id)).toBeNull();
  });

  it('stores line breaks typed in the consent text as the snippet shows them (LF, not the browser’s CRLF)', async () => {
    const id = await create({ name: 'Two lines', consentText: 'I agree.\r\nYou may call me.' });
    const form = await getForm(ctx.app.deps.database, ctx.brandId, id);
    expect(form.consentText).toBe('I agree.\nYou may call me.');
    const res = await get(`${BASE}/${id}`);
    expect(textarea(res.body, 'form-snippet')).toBe(
      formSnippet(form, endpointOf(id), ctx.app.deps.config.attachments),
    );
    expect(textarea(res.body, 'form-snippet')).not.toContain('\r');
  });

  it('a refused edit shows the problems with what was typed, and changes nothing', async () => {
    const id = await create({ name: 'Stays' });
    const res = await post(`${BASE}/${id}`, { ...FULL, name: '', defaultCategory: 'x'.repeat(101) });
    expect(res.statusCode).toBe(422);
    expectToContain(res.body, [
      '<p class="error" id="field-name-error">Name is required.</p>',
      'Default category must be at most 100 characters.',
      `value="${'x'.repeat(101)}"`,
    ]);
    // The page is still the form's page, with its blocks for the stored form.
    expect(textarea(res.body, 'form-snippet')).toContain(`action="${endpointOf(id)}"`);
    expect((await getForm(ctx.app.deps.database, ctx.brandId, id)).name).toBe('Stays');
  });

  it('disabling stops the public endpoint (404) until the form is enabled again', async () => {
    const id = await create({ name: 'Switch', captchaProvider: '', captchaSiteKey: '', captchaSecret: '' });
    expect((await site.form(id, submission())).statusCode).toBe(303);
    const off = await post(`${BASE}/${id}/disable`);
    expect(off.statusCode).toBe(303);
    expect(off.headers.location).toBe(`${BASE}/${id}?done=disabled`);
    expect((await getForm(ctx.app.deps.database, ctx.brandId, id)).enabled).toBe(false);
    expect((await site.form(id, submission())).statusCode).toBe(404);
    expect((await ctx.app.inject({ method: 'GET', url: `/f/${id}` })).statusCode).toBe(404);
    const page = await get(`${BASE}/${id}?done=disabled`);
    expect(textOf(page.body)).toContain('This form is disabled');
    expect(page.body).toContain(`action="${BASE}/${id}/enable"`);
    expect(textOf((await get(BASE)).body)).toContain('Disabled');

    const on = await post(`${BASE}/${id}/enable`);
    expect(on.headers.location).toBe(`${BASE}/${id}?done=enabled`);
    expect((await site.form(id, submission())).statusCode).toBe(303);
  });

  it('deletes after a confirmation page; the endpoint stops, leads it brought in are kept', async () => {
    const id = await create({ name: 'Goner', captchaProvider: '', captchaSiteKey: '', captchaSecret: '' });
    expect((await site.form(id, submission({ title: 'Kept after delete' }))).statusCode).toBe(303);
    const confirm = await get(`${BASE}/${id}/delete`);
    expect(confirm.statusCode).toBe(200);
    expect(textOf(confirm.body)).toContain(
      'Delete form Goner? Its endpoint will stop taking posts; leads already received are kept.',
    );
    expect(confirm.body).toContain(`<form method="post" action="${BASE}/${id}/delete"`);
    // Opening the confirmation deletes nothing.
    expect(await formIds()).toContain(id);
    const res = await post(`${BASE}/${id}/delete`);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${BASE}?done=deleted`);
    expect(await formIds()).not.toContain(id);
    expect((await get(`${BASE}/${id}`)).statusCode).toBe(404);
    expect((await site.form(id, submission())).statusCode).toBe(404);
    expect(textOf((await get(`${BASE}?done=deleted`)).body)).toContain('The form is deleted.');
    const kept = await db()
      .selectFrom('leads')
      .select(['source_form_id', 'source_form_name'])
      .where('title', '=', 'Kept after delete')
      .executeTakeFirst();
    expect(kept).toEqual({ source_form_id: id, source_form_name: 'Goner' });
  });

  it("another brand's form is a 404 on its page and every action, and stays as it was", async () => {
    const foreign = await createForm(ctx.app.deps.database, ctx.otherBrandId, {
      name: 'Not yours',
      allowedOrigins: [SITE],
    });
    for (const path of ['', '/delete']) {
      expect((await get(`${BASE}/${foreign.id}${path}`)).statusCode).toBe(404);
    }
    for (const path of ['', '/disable', '/enable', '/delete']) {
      expect((await post(`${BASE}/${foreign.id}${path}`, { ...FULL, name: 'Taken over' })).statusCode).toBe(
        404,
      );
    }
    expect(await getForm(ctx.app.deps.database, ctx.otherBrandId, foreign.id)).toMatchObject({
      name: 'Not yours',
      enabled: true,
    });
    expect((await get(BASE)).body).not.toContain(foreign.id);
  });

  it('refuses posts without the CSRF token or from another site, changing nothing', async () => {
    const id = await create({ name: 'Guarded' });
    const before = (await formIds()).length;
    expect((await browser.post(BASE, { ...FULL, _csrf: undefined })).statusCode).toBe(403);
    expect((await browser.post(`${BASE}/${id}/disable`, { _csrf: 'x'.repeat(43) })).statusCode).toBe(403);
    expect(
      (await browser.post(`${BASE}/${id}/delete`, {}, { origin: 'https://evil.example' })).statusCode,
    ).toBe(403);
    expect(await formIds()).toHaveLength(before);
    expect((await getForm(ctx.app.deps.database, ctx.brandId, id)).enabled).toBe(true);
  });

  it('escapes the form name and origins everywhere they are shown', async () => {
    const id = await create({ name: '<script>x</script>' });
    for (const url of [BASE, `${BASE}/${id}`, `${BASE}/${id}/delete`]) {
      const res = await get(url);
      expect(res.body).not.toContain('<script>x</script>');
      expect(res.body).toContain('&lt;script&gt;x&lt;/script&gt;');
    }
  });

  it('never shows the captcha secret, on any page opened in these tests', async () => {
    expect(pages.length).toBeGreaterThan(20);
    for (const body of pages) {
      expect(body).not.toContain(SECRET);
      expect(body).not.toContain('a-new-secret-5678');
    }
  });
});
