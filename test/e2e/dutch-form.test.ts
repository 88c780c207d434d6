// A Dutch website form in real Chromium (Debian's /usr/bin/chromium via playwright-core): a brand that speaks
// Dutch gets a form in Dutch by default; a person opens the hosted page, types an email address the service
// refuses (the browser's own check lets it through), reads the Dutch problem, corrects it and lands on the Dutch
// thank-you page. SQLite only, like the other end-to-end tests: the dialects are covered in test/forms.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrand } from '../../src/accounts/brands.js';
import type { App } from '../../src/app.js';
import { createForm } from '../../src/forms/forms.js';
import { chromiumRuns, launchChromium, requireChromium } from './chromium.js';
import { type E2eServer, startServer } from './server.js';

const withChromium = chromiumRuns('the Dutch website form end-to-end test');

const CONSENT = 'Ik ga ermee akkoord dat Loodgietersbedrijf De Vries contact met mij opneemt.';

describe.skipIf(!withChromium)('a Dutch website form in Chromium', () => {
  let server: E2eServer;
  let app: App;
  let base: string;
  let browser: Browser;
  let formId: string;

  beforeAll(async () => {
    requireChromium();
    server = await startServer('dutch-form-e2e');
    ({ app, base } = server);
    const brand = await createBrand(app.deps.database, {
      language: 'nl',
      name: 'Loodgietersbedrijf De Vries',
      country: 'NL',
    });
    // No language given: the form takes the brand's.
    const form = await createForm(app.deps.database, brand.id, {
      name: 'Contact',
      allowedOrigins: [],
      consentText: CONSENT,
    });
    expect(form.language).toBe('nl');
    formId = form.id;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function fillIn(page: Page, email: string) {
    await page.getByLabel('Waarmee kunnen we u helpen?').fill('De cv-ketel lekt');
    await page.getByLabel('Uw naam').fill('Sanne de Vries');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Telefoon').fill('06 1234 5678');
    await page.getByLabel('Straat').fill('Keizersgracht');
    await page.getByLabel('Huisnummer').fill('101');
    await page.getByLabel('Postcode').fill('1015 CJ');
    await page.getByLabel('Plaats').fill('Amsterdam');
    await page.getByLabel(CONSENT).check();
  }

  it('is filled in and sent in Dutch: a refused email explained in Dutch, then the Dutch thank-you page', async () => {
    const context = await browser.newContext({ locale: 'en-GB' });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    const opened = await page.goto(`${base}/f/${formId}`);
    expect(opened?.status()).toBe(200);
    expect(opened?.headers()['content-language']).toBe('nl');
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('nl');
    await expect(page.locator('h1').textContent()).resolves.toBe('Loodgietersbedrijf De Vries');
    await expect(page.getByText('Velden met een sterretje (*) zijn verplicht.').count()).resolves.toBe(1);

    // An address the browser's own check takes but the service does not (no dot in the domain).
    await fillIn(page, 'sanne@voorbeeld');
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && r.url() === `${base}/f/${formId}`),
      page.getByRole('button', { name: 'Versturen' }).click(),
    ]);
    expect(refused.status()).toBe(422);
    await expect(page.title()).resolves.toBe('Fout: Loodgietersbedrijf De Vries');
    const summary = page.getByRole('alert');
    await expect(summary.locator('h2').textContent()).resolves.toBe('Er is een probleem');
    const problem = (await summary.locator('li').allTextContents()).join(' ');
    expect(problem).toMatch(/^E-mail (is niet geldig|moet een geldig e-mailadres zijn)/);
    await expect(page.locator('#field-email-error').textContent()).resolves.toBe(problem);
    await expect(page.locator('#field-email').getAttribute('aria-invalid')).resolves.toBe('true');
    // What was typed is kept.
    await expect(page.getByLabel('Uw naam').inputValue()).resolves.toBe('Sanne de Vries');

    await page.getByLabel('E-mail').fill(`sanne.${Date.now()}@voorbeeld.nl`);
    await page.getByLabel(CONSENT).check();
    await page.getByRole('button', { name: 'Versturen' }).click();
    await page.waitForURL(`${base}/f/${formId}/thanks`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('nl');
    await expect(page.title()).resolves.toBe('Bedankt · Loodgietersbedrijf De Vries');
    await expect(page.getByRole('status').textContent()).resolves.toBe(
      'Bedankt. We hebben uw aanvraag ontvangen en nemen contact met u op.',
    );
    const lead = await app.deps.database.db
      .selectFrom('leads')
      .select(['id', 'source_form_id'])
      .where('source_form_id', '=', formId)
      .execute();
    expect(lead).toHaveLength(1);
    await context.close();
  });

  it('shows the hosted page in English with ?lang=en, and the switch back to Dutch', async () => {
    const context = await browser.newContext();
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    await page.goto(`${base}/f/${formId}?lang=en`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await expect(page.getByLabel('Your name').count()).resolves.toBe(1);
    await page.getByRole('link', { name: 'Nederlands' }).click();
    await page.waitForURL(`${base}/f/${formId}?lang=nl`);
    await expect(page.getByLabel('Uw naam').count()).resolves.toBe(1);
    await context.close();
  });
});
