// New lead in real Chromium (Debian's /usr/bin/chromium via playwright-core): as the phone number is typed the
// page names the customer the lead will be added to, and saving leads to the new lead's page. Real server on a
// random port with a temporary SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrand } from '../../src/accounts/brands.js';
import { type App, buildApp } from '../../src/app.js';
import { createLead } from '../../src/leads/index.js';
import { parseLeadInput } from '../../src/leads/input.js';
import { loadConfig } from '../../src/platform/config.js';
import { addUser, PASSWORD } from '../dashboard/helpers.js';
import { chromiumRuns, launchChromium, requireChromium } from './chromium.js';

const withChromium = chromiumRuns('the New lead end-to-end test');

const OFFICE = 'sanne@acme.example';

describe.skipIf(!withChromium)('New lead in Chromium', () => {
  let dir: string;
  let app: App;
  let base: string;
  let browser: Browser;
  let page: Page;
  const policyViolations: string[] = [];

  beforeAll(async () => {
    requireChromium();
    dir = mkdtempSync(path.join(tmpdir(), 'lead-intake-new-lead-'));
    app = await buildApp(loadConfig({ DATA_DIR: dir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent' }), {
      logger: false,
      defaultMetrics: false,
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
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
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) policyViolations.push(message.text());
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('names the customer as the phone is typed, and saves the lead', async () => {
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('Email').fill(OFFICE);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/dashboard/leads`);
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
