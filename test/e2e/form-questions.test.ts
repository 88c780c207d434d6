// A form with the business's own question and the country select, in real Chromium (Debian's /usr/bin/chromium via
// playwright-core): a person opens the Dutch hosted page, picks an answer to the question and a country by its
// Dutch name, leaves a required question unticked and reads the Dutch problem, then sends it; the lead keeps the
// answers and the country's code. SQLite only, like the other end-to-end tests: the dialects are in test/forms.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrand } from '../../src/accounts/brands.js';
import { type App, buildApp } from '../../src/app.js';
import { createForm } from '../../src/forms/forms.js';
import { getLead } from '../../src/leads/index.js';
import { loadConfig } from '../../src/platform/config.js';
import { freePort } from '../helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];
const ci = process.env.CI === 'true' || process.env.CI === '1';
const haveChromium = existsSync(CHROMIUM);

if (!haveChromium && !ci) {
  console.warn(
    `Skipping the form-questions end-to-end test: ${CHROMIUM} is missing. Install it with "apt-get install -y chromium". Under CI=true this is a failure.`,
  );
}

describe.skipIf(!haveChromium && !ci)('a form with own questions and a country select in Chromium', () => {
  let dir: string;
  let app: App;
  let base: string;
  let browser: Browser;
  let formId: string;
  let brandId: string;

  beforeAll(async () => {
    if (!haveChromium) {
      throw new Error(`CI=true but ${CHROMIUM} is missing: install it with "apt-get install -y chromium".`);
    }
    dir = mkdtempSync(path.join(tmpdir(), 'lead-intake-form-questions-e2e-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const config = loadConfig({
      DATA_DIR: dir,
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: base,
      LOG_LEVEL: 'silent',
    });
    app = await buildApp(config, { logger: false, defaultMetrics: false });
    await app.listen({ host: '127.0.0.1', port });
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
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
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
