// Correcting a customer and merging a duplicate in Chromium: the Edit form, then "Merge into this customer", its
// confirmation page and the button that merges, without a script being needed for any of it.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrand } from '../../src/accounts/brands.js';
import type { App } from '../../src/app.js';
import { createLead } from '../../src/leads/index.js';
import { parseLeadInput } from '../../src/leads/input.js';
import { addUser } from '../dashboard/helpers.js';
import { chromiumRuns, launchChromium, requireChromium } from './chromium.js';
import { collectPolicyViolations, type E2eServer, signIn, startServer } from './server.js';

const withChromium = chromiumRuns('the customer merge end-to-end test');

const OFFICE = 'desk@acme.example';

describe.skipIf(!withChromium)('customer edit and merge in Chromium', () => {
  let server: E2eServer;
  let app: App;
  let base: string;
  let browser: Browser;
  let page: Page;
  let keep: string;
  let duplicate: string;
  const policyViolations: string[] = [];

  beforeAll(async () => {
    requireChromium();
    server = await startServer('customer-merge', { publicUrl: false });
    ({ app, base } = server);
    const brand = await createBrand(app.deps.database, {
      language: 'en',
      name: 'Acme Plumbing',
      country: 'NL',
    });
    await addUser(app, brand.id, OFFICE);
    const lead = (fields: Record<string, string>) =>
      createLead(
        app.deps.database,
        { brandId: brand.id, source: 'website', keyId: null, keyName: null },
        parseLeadInput({ street: 'Oudegracht', postalCode: '3511 AB', city: 'Utrecht', ...fields }),
      );
    keep = (await lead({ title: 'Boiler', customerName: 'Bram Visser', email: 'bram@example.com' }))
      .customerId;
    duplicate = (
      await lead({
        title: 'Gutter',
        customerName: 'Bram Visser',
        email: 'b.visser@example.com',
        phone: '+31 6 5555 1234',
      })
    ).customerId;
    browser = await launchChromium();
    page = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
    page.setDefaultTimeout(8000);
    collectPolicyViolations(page, policyViolations);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('edits the customer, then merges the duplicate it lists', async () => {
    await signIn(page, base, OFFICE);
    await page.goto(`${base}/dashboard/customers/${keep}`);
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.waitForURL(`${base}/dashboard/customers/${keep}/edit`);
    await page.locator('#field-firstName').fill('Bram');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL(`${base}/dashboard/customers/${keep}?done=edited`);
    expect(await page.locator('main').textContent()).toContain('Customer details saved.');
    expect(await page.locator('#history').textContent()).toContain('Changed first name (empty) → “Bram”');

    await page.locator('#duplicates').getByRole('link', { name: 'Merge into this customer' }).click();
    await page.waitForURL(`${base}/dashboard/customers/${keep}/merge?from=${duplicate}`);
    expect(await page.locator('main').textContent()).toContain(`(${duplicate}) is removed`);
    await page.getByRole('button', { name: 'Merge Bram Visser into Bram Visser' }).click();
    await page.waitForURL(`${base}/dashboard/customers/${keep}?done=merged`);
    const text = await page.locator('main').textContent();
    expect(text).toContain('The duplicate customer is merged into this one.');
    expect(text).toContain('Gutter');
    expect(await page.locator('#history').textContent()).toContain(`Merged duplicate ${duplicate}`);
    expect(policyViolations).toEqual([]);
  });
});
