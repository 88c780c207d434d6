import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrand } from '../../src/accounts/brands.js';
import type { App } from '../../src/app.js';
import { createLead } from '../../src/leads/index.js';
import { parseLeadInput } from '../../src/leads/input.js';
import { addUser } from '../dashboard/helpers.js';
import { chromiumRuns, launchChromium, requireChromium } from './chromium.js';
import { collectPolicyViolations, type E2eServer, signIn, startServer } from './server.js';

const withChromium = chromiumRuns('the New lead end-to-end test');

const OFFICE = 'sanne@acme.example';

describe.skipIf(!withChromium)('New lead in Chromium', () => {
  let server: E2eServer;
  let app: App;
  let base: string;
  let browser: Browser;
  let page: Page;
  const policyViolations: string[] = [];

  beforeAll(async () => {
    requireChromium();
    server = await startServer('new-lead', { publicUrl: false });
    ({ app, base } = server);
    const brand = await createBrand(app.deps.database, {
      language: 'en',
      name: 'Acme Plumbing',
      country: 'NL',
    });
    await addUser(app, brand.id, OFFICE);
    await createLead(
      app.deps.database,
      { brandId: brand.id, source: 'website', keyId: null, keyName: null },
      parseLeadInput({
        title: 'Earlier job',
        customerName: 'Bram Visser',
        phone: '+31 6 5555 1234',
        street: 'Oudegracht',
        postalCode: '3511 AB',
        city: 'Utrecht',
      }),
    );
    browser = await launchChromium();
    page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(8000);
    collectPolicyViolations(page, policyViolations);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('names the customer as the phone is typed, and saves the lead', async () => {
    await signIn(page, base, OFFICE);
    await page.getByRole('link', { name: 'New lead' }).click();
    await page.waitForURL(`${base}/dashboard/leads/new`);

    const suggestion = (text: string) =>
      page.locator('#customer-match', { hasText: text }).waitFor({ timeout: 20_000 });
    await page.locator('#field-phone').fill('06 5555 1234');
    await suggestion('Will be added to Bram Visser (1 earlier job), who has this phone number.');
    await page.locator('#field-phone').fill('06 1111 2222');
    await suggestion('New customer: nobody has this email or phone number yet.');
    // A new email with the phone of a customer who has no email: that customer (the contract's rule).
    await page.locator('#field-email').fill('bram@example.com');
    await page.locator('#field-phone').fill('0655551234');
    await suggestion('Will be added to Bram Visser (1 earlier job), who has this phone number.');
    expect(await page.locator('#customer-match').getAttribute('aria-live')).toBe('polite');

    await page.locator('#field-customerName').fill('Bram Visser');
    await page.locator('#field-title').fill('Radiator cold');
    await page.locator('#field-street').fill('Oudegracht');
    await page.locator('#field-postalCode').fill('3511 AB');
    await page.locator('#field-city').fill('Utrecht');
    await page.getByRole('button', { name: 'Save lead' }).click();
    await page.waitForURL(/\/dashboard\/leads\/wrk_[0-9A-Za-z]+\?created=1$/);
    const text = await page.locator('main').textContent();
    expect(text).toContain('Lead created.');
    expect(text).toContain(`Phone (typed in by ${OFFICE})`);
    expect(text).toContain('06 55551234');
    expect(text).toContain('bram@example.com');
    expect(policyViolations).toEqual([]);
  });
});
