// A form with the business's own question and the country select, in real Chromium (Debian's /usr/bin/chromium via
// playwright-core): a person opens the Dutch hosted page, picks an answer to the question and a country by its
// Dutch name, leaves a required question unticked and reads the Dutch problem, then sends it; the lead keeps the
// answers and the country's code. SQLite only, like the other end-to-end tests: the dialects are in test/forms.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrand } from '../../src/accounts/brands.js';
import type { App } from '../../src/app.js';
import { createForm } from '../../src/forms/forms.js';
import { getLead } from '../../src/leads/index.js';
import { chromiumRuns, launchChromium, requireChromium } from './chromium.js';
import { type E2eServer, startServer } from './server.js';

const withChromium = chromiumRuns('the form-questions end-to-end test');

describe.skipIf(!withChromium)('a form with own questions and a country select in Chromium', () => {
  let server: E2eServer;
  let app: App;
  let base: string;
  let browser: Browser;
  let formId: string;
  let brandId: string;

  beforeAll(async () => {
    requireChromium();
    server = await startServer('form-questions-e2e');
    ({ app, base } = server);
    const brand = await createBrand(app.deps.database, {
      language: 'nl',
      name: 'Verwarming Jansen',
      country: 'NL',
    });
    brandId = brand.id;
    const form = await createForm(app.deps.database, brand.id, {
      name: 'Ketel',
      allowedOrigins: [],
      fields: [
        { name: 'title' },
        { name: 'customerName' },
        { name: 'phone', required: true },
        { name: 'street' },
        { name: 'postalCode' },
        { name: 'city' },
        { name: 'country' },
      ],
      questions: [
        {
          key: 'boilerType',
          label: 'Wat voor ketel heeft u?',
          type: 'select',
          options: ['Combi', 'Solo'],
          required: true,
        },
        { key: 'owner', label: 'Ik ben eigenaar van de woning', type: 'checkbox', required: true },
      ],
    });
    formId = form.id;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('is filled in with an answer and a country, a missing answer explained in Dutch', async () => {
    const context = await browser.newContext({ locale: 'en-GB' });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    await page.goto(`${base}/f/${formId}`);
    // The brand's country is chosen, by its Dutch name.
    await expect(page.getByLabel('Land').inputValue()).resolves.toBe('NL');
    await expect(page.locator('#field-country option:checked').textContent()).resolves.toBe('Nederland');
    await page.getByLabel('Waarmee kunnen we u helpen?').fill('Ketel maakt lawaai');
    await page.getByLabel('Wat voor ketel heeft u?').selectOption('Solo');
    await page.getByLabel('Uw naam').fill('Sanne Jansen');
    await page.getByLabel('Telefoon').fill('0470 12 34 56');
    await page.getByLabel('Straat').fill('Meir');
    await page.getByLabel('Postcode').fill('2000');
    await page.getByLabel('Plaats').fill('Antwerpen');
    await page.getByLabel('Land').selectOption({ label: 'België' });
    // The browser would stop a post with the required box unticked: the server's own check is what is tested.
    await page.locator('form').evaluate((form) => form.setAttribute('novalidate', ''));
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Versturen' }).click(),
    ]);
    expect(refused.status()).toBe(422);
    await expect(page.locator('#field-owner-error').textContent()).resolves.toBe(
      'Ik ben eigenaar van de woning is verplicht.',
    );
    // What was chosen is kept.
    await expect(page.getByLabel('Wat voor ketel heeft u?').inputValue()).resolves.toBe('Solo');
    await expect(page.getByLabel('Land').inputValue()).resolves.toBe('BE');

    await page.getByLabel('Ik ben eigenaar van de woning').check();
    await page.getByRole('button', { name: 'Versturen' }).click();
    await page.waitForURL(`${base}/f/${formId}/thanks`);
    const row = await app.deps.database.db
      .selectFrom('leads')
      .select('id')
      .where('source_form_id', '=', formId)
      .executeTakeFirstOrThrow();
    const lead = await getLead(app.deps.database, brandId, row.id);
    expect(lead.extraFields).toEqual({ boilerType: 'Solo', owner: 'yes' });
    expect(lead.address.country).toBe('BE');
    // The phone was read in the chosen country.
    expect(lead.customer.phone).toBe('+32470123456');
    await context.close();
  });
});
