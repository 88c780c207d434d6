// The first-run path in Chromium (issue 30): setup leads a new business to "Get started", its website form first.
// The owner makes the form in one click, copies the snippet, allows their website, opens the hosted form in a new
// tab and sends a test lead as a customer would, then sees the new-lead mail (a real SMTP server receives it) tick
// the last step; Settings > Brand changes the sender name of that mail. Screenshots go to test-results/first-run/,
// and with UPDATE_SCREENSHOTS=1 the checklist also to docs/screenshots/first-run.png (in the README).
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSetupLink } from '../../src/accounts/setup.js';
import { waitFor } from '../helpers.js';
import { type SmtpReceiver, startSmtp } from '../mail/smtp.js';
import { chromiumRuns, launchChromium, requireChromium, waitForText } from './chromium.js';
import { collectPolicyViolations, type E2eServer, startServer } from './server.js';

const withChromium = chromiumRuns('the first-run end-to-end test');

const SHOTS = path.resolve('test-results/first-run');
const DOC_SHOTS = path.resolve('docs/screenshots');
const OWNER = { email: 'owner@jansen-installaties.example', password: 'a long test password' };

describe.skipIf(!withChromium)('the first-run path in Chromium', () => {
  let server: E2eServer;
  let smtp: SmtpReceiver;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const policyViolations: string[] = [];

  const shot = async (name: string, docs = false) => {
    const file = path.join(SHOTS, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    if (docs && process.env.UPDATE_SCREENSHOTS === '1') {
      mkdirSync(DOC_SHOTS, { recursive: true });
      copyFileSync(file, path.join(DOC_SHOTS, `${name}.png`));
    }
  };
  const step = (key: string) => page.locator(`[data-step="${key}"]`);

  beforeAll(async () => {
    requireChromium();
    mkdirSync(SHOTS, { recursive: true });
    smtp = await startSmtp();
    server = await startServer('first-run', {
      env: { SMTP_URL: smtp.url(), MAIL_FROM: 'Lead intake <leads@jansen-installaties.example>' },
    });
    base = server.base;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    collectPolicyViolations(page, policyViolations);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await smtp?.close();
  });

  it('setup leads to Get started, not to API keys', async () => {
    const link = (await createSetupLink(server.app.deps.database, base))!;
    await page.goto(link);
    await page.getByLabel('Company name').fill('Jansen Installaties');
    await page.getByLabel('Country').fill('nl');
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password', { exact: true }).fill(OWNER.password);
    await page.getByLabel('Password again').fill(OWNER.password);
    await page.getByRole('button', { name: 'Create company and account' }).click();
    await page.waitForURL(`${base}/dashboard/start?done=welcome`);
    await waitForText(page, '[role=status]', 'Jansen Installaties is set up.');
    await expect(page.locator('h1').textContent()).resolves.toBe('Get started');
    await waitForText(page, '[data-start-progress]', '0 of 4 steps done.');
    expect(await step('form').getAttribute('data-done')).toBe('no');
  });

  it('makes the website form in one click and hands over its snippet', async () => {
    await page.getByRole('button', { name: 'Create my website form' }).click();
    await page.waitForURL(/\/dashboard\/start\?done=form/);
    await waitForText(page, '[role=status]', 'Your website form is made.');
    expect(await step('form').getAttribute('data-done')).toBe('yes');
    const snippet = await page.locator('#start-snippet').inputValue();
    expect(snippet).toMatch(new RegExp(`^<form method="post" action="${base}/f/frm_`));
    // The script shows the copy button; it puts the snippet on the clipboard.
    await step('snippet').getByRole('button', { name: 'Copy', exact: true }).click();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(snippet);

    await page.getByLabel('Your website’s address').fill('https://www.jansen-installaties.example/contact');
    await page.getByRole('button', { name: 'Allow posts from this website' }).click();
    await waitForText(page, '[role=status]', 'Your website may now send leads to the form.');
    await waitForText(page, '[data-step="snippet"]', 'https://www.jansen-installaties.example');
  });

  it('sends a test lead through the hosted form, and the steps tick themselves off', async () => {
    const [tab] = await Promise.all([
      context.waitForEvent('page'),
      page.getByRole('link', { name: 'Open my form' }).click(),
    ]);
    await tab.waitForLoadState();
    await expect(tab.locator('h1').textContent()).resolves.toContain('Jansen Installaties');
    await tab.getByLabel('What do you need?').fill('Test: leaking tap');
    await tab.getByLabel('Your name').fill('Piet Jansen');
    await tab.getByLabel('Email').fill('piet@jansen-installaties.example');
    await tab.getByLabel('Street').fill('Oudegracht');
    await tab.getByLabel('Postal code').fill('3511 AB');
    await tab.getByLabel('City').fill('Utrecht');
    await tab.getByRole('button', { name: 'Send' }).click();
    await waitForText(tab, 'main', 'Thank you. We have received your request');
    await tab.close();

    const mail = await waitFor(() => smtp.to(OWNER.email)[0], 'the new-lead mail to the owner');
    expect(mail.parsed.subject).toContain('Test: leaking tap');
    expect(mail.parsed.from?.value).toEqual([
      { name: 'Jansen Installaties', address: 'leads@jansen-installaties.example' },
    ]);
    // "Check again" reloads the page; the mail step follows the outbox.
    await waitFor(async () => {
      await page.getByRole('link', { name: 'Check again' }).first().click();
      await page.waitForLoadState();
      return (await step('mail').getAttribute('data-done')) === 'yes' ? true : undefined;
    }, 'the mail step ticked');
    await waitForText(page, '[data-start-progress]', '4 of 4 steps done.');
    await waitForText(page, '[data-step="lead"]', 'Your test lead Test: leaking tap arrived.');
    await waitForText(page, '[data-step="mail"]', `The new-lead mail went to ${OWNER.email}`);
    await expect(page.getByRole('link', { name: 'Erase the test lead' }).count()).resolves.toBe(1);
    await shot('first-run', true);

    await page.getByRole('link', { name: 'Test: leaking tap' }).click();
    await expect(page.locator('h1').textContent()).resolves.toContain('Test: leaking tap');
  });

  it('Settings > Brand sets the sender name of the next mail', async () => {
    await page.goto(`${base}/dashboard/settings/brand`);
    await page.getByLabel('Sender name of mails').fill('Jansen Loodgieters');
    await page.getByLabel('Default priority').selectOption('high');
    await page.locator('#company-title').locator('..').getByRole('button', { name: 'Save' }).click();
    await waitForText(page, '[role=status]', 'The brand settings are saved.');
    await shot('brand-settings');
    const res = await fetch(`${base}/f/${await formId()}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
      body: new URLSearchParams({
        title: 'Second request',
        customerName: 'Sanne',
        email: 'sanne@example.nl',
        street: 'Oudegracht',
        postalCode: '3511 AB',
        city: 'Utrecht',
      }),
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    const mail = await waitFor(
      () => smtp.to(OWNER.email).find((m) => m.parsed.subject?.includes('Second request')),
      'the second mail',
    );
    expect(mail.parsed.from?.value).toEqual([
      { name: 'Jansen Loodgieters', address: 'leads@jansen-installaties.example' },
    ]);
    expect(mail.parsed.text).toContain('High');
    expect(policyViolations).toEqual([]);
  });

  async function formId(): Promise<string> {
    const row = await server.app.deps.database.db.selectFrom('forms').select('id').executeTakeFirstOrThrow();
    return row.id;
  }
});
