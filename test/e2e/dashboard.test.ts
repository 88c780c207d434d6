// The dashboard end to end in real Chromium (Debian's /usr/bin/chromium via playwright-core), against the real
// server listening on a random port with a temporary SQLite file. Screenshots go to test-results/dashboard/.
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { chromiumRuns, launchChromium, requireChromium, waitForText as waitFor } from './chromium.js';
import { collectPolicyViolations, type E2eServer, startServer } from './server.js';

const withChromium = chromiumRuns('the dashboard end-to-end tests');

const SHOTS = path.resolve('test-results/dashboard');

const OWNER = { email: 'owner@acme-plumbing.example', password: 'a long test password' };
const XSS_TITLE = '<script>window.__xss = 1</script><img src=x onerror="alert(1)"> Shower drain';

describe.skipIf(!withChromium)('the dashboard in Chromium', () => {
  let server: E2eServer;
  let app: App;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const logLines: string[] = [];
  const dialogs: string[] = [];
  /** Console messages about CSP violations: the pages must never trigger one. */
  const policyViolations: string[] = [];
  let apiKey = '';
  let leadId = '';

  const api = (method: string, url: string, body?: unknown, key = apiKey) =>
    fetch(`${base}${url}`, {
      method,
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  /** Waits until the element shows the text; on a timeout the error says what the page showed instead. */
  const waitForText = (selector: string, text: string, target: Page = page) =>
    waitFor(target, selector, text);
  const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name });
  const shot = (name: string, target: Page = page) =>
    target.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    requireChromium();
    mkdirSync(SHOTS, { recursive: true });
    const stream = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    server = await startServer('e2e', {
      publicUrl: false,
      env: { LOG_LEVEL: 'info' },
      build: { logger: { stream } },
    });
    ({ app, base } = server);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    page = await context.newPage();
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    collectPolicyViolations(page, policyViolations);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function setupUrlFromLog(): Promise<string> {
    for (let i = 0; i < 100; i++) {
      for (const line of logLines) {
        const url = (JSON.parse(line) as { setupUrl?: string }).setupUrl;
        if (url) return url;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no setup URL in the log:\n${logLines.join('\n')}`);
  }

  it('first run: the logged setup link creates the brand and the owner, once', async () => {
    const setupUrl = await setupUrlFromLog();
    expect(setupUrl).toMatch(new RegExp(`^${base}/setup\\?token=[A-Za-z0-9_-]{43}$`));
    expect(logLines.filter((l) => l.includes('setupUrl'))).toHaveLength(1);

    await page.goto(base);
    await expect(page.locator('h1').textContent()).resolves.toBe('Open the setup link');

    await page.goto(setupUrl);
    await shot('01-setup');
    await page.getByLabel('Company name').fill('Acme Plumbing');
    await page.getByLabel('Country').fill('nl');
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password', { exact: true }).fill(OWNER.password);
    await page.getByLabel('Password again').fill(OWNER.password);
    await page.getByRole('button', { name: 'Create company and account' }).click();
    await page.waitForURL(`${base}/dashboard/start?done=welcome`);
    await waitForText('[role=status]', 'Acme Plumbing is set up');

    const again = await page.goto(setupUrl);
    expect(again?.status()).toBe(404);
  });

  it('signs out and in; a wrong password gets the generic message', async () => {
    await page.goto(`${base}/dashboard/leads`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/sign-in?notice=signed-out`);
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await waitForText('[role=alert]', 'Email or password is wrong.');
    await shot('02-sign-in-error');
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/dashboard/leads`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Leads');
    await shot('03-leads-empty');
  });

  it('creates an API key in settings and shows it once, with a working copy button', async () => {
    await nav('API keys').click();
    await page.getByLabel('Name').fill('Website form');
    await page.getByLabel('leads:write').check();
    await page.getByLabel('leads:read').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    apiKey = await page.locator('#new-key').inputValue();
    expect(apiKey).toMatch(/^lik_[A-Za-z0-9_-]{43}$/);
    await expect(page.getByText('You will not see it again').count()).resolves.toBe(1);
    await page.getByRole('button', { name: 'Copy' }).click();
    await waitForText('button[data-copy]', 'Copied');
    expect(await page.locator('[data-copy-status="new-key"]').textContent()).toBe('Copied.');
    // Page-side expressions are strings: this project compiles without the DOM library.
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(apiKey);
    await shot('04-api-key-created');

    await page.goto(`${base}/dashboard/settings/api-keys`);
    expect(await page.content()).not.toContain(apiKey);
    await expect(page.locator('table.list').textContent()).resolves.toContain(`lik_${apiKey.slice(4, 12)}`);
  });

  it('the key works at once: leads sent with it appear in the dashboard, user data shown as text', async () => {
    const samples = [
      {
        title: 'Boiler makes a banging noise',
        customerName: 'Sam Jansen',
        priority: 'high',
        city: 'Utrecht',
      },
      {
        title: 'New bathroom: quote for tiling',
        customerName: 'De Vries Bouw',
        companyName: 'De Vries Bouw BV',
      },
      {
        title: 'Leaking kitchen tap',
        customerName: 'Noor Bakker',
        priority: 'low',
        phone: '+31 6 1234 5678',
      },
      { title: 'Radiator cold upstairs', customerName: 'Tim de Groot', priority: 'urgent' },
    ];
    for (const sample of samples) {
      const res = await api('POST', '/v1/leads', {
        street: 'Keizersgracht',
        streetNumber: '123',
        postalCode: '1015 CJ',
        city: 'Amsterdam',
        email: `${sample.customerName.toLowerCase().replace(/\W+/g, '.')}@example.com`,
        description: 'Please call before visiting.\nThe side door is open on weekdays.',
        ...sample,
      });
      expect(res.status).toBe(201);
      leadId = ((await res.json()) as { id: string }).id;
    }
    // Spread them over the last weeks so the per-day chart shows a shape.
    const day = 24 * 60 * 60 * 1000;
    const ids = (await app.deps.database.db.selectFrom('leads').select('id').orderBy('id').execute()).map(
      (r) => r.id,
    );
    for (const [i, id] of ids.slice(0, -1).entries()) {
      await app.deps.database.db
        .updateTable('leads')
        .set({ received_at: Date.now() - (i * 6 + 2) * day })
        .where('id', '=', id)
        .execute();
    }
    const xss = await api('POST', '/v1/leads', {
      street: 'Damrak',
      postalCode: '1012 LG',
      city: 'Amsterdam',
      customerName: '<b onmouseover="alert(2)">Eve</b>',
      title: XSS_TITLE,
      notes: '</textarea><script>alert(3)</script>',
    });
    expect(xss.status).toBe(201);
    const xssId = ((await xss.json()) as { id: string }).id;

    await page.goto(`${base}/dashboard/leads`);
    await expect(page.getByRole('link', { name: 'Radiator cold upstairs' }).count()).resolves.toBe(1);
    await expect(page.getByText(XSS_TITLE, { exact: true }).count()).resolves.toBe(1);
    await expect(page.locator('.chart svg rect.bar').count()).resolves.toBeGreaterThan(3);
    await shot('05-leads');

    await page.goto(`${base}/dashboard/leads/${xssId}`);
    await expect(page.locator('h1').textContent()).resolves.toBe(XSS_TITLE);
    await expect(page.getByText('</textarea><script>alert(3)</script>').count()).resolves.toBe(1);
    await page.getByText('Eve', { exact: false }).first().hover();
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(dialogs).toEqual([]);

    await page.goto(`${base}/dashboard/leads?q=bakker`);
    await expect(page.locator('table.list tbody tr').count()).resolves.toBe(1);
  });

  it('moves a lead to quoted, then scheduled, and finds it among the work items', async () => {
    await page.goto(`${base}/dashboard/leads/${leadId}`);
    // Schedule is a form of its own (date, start time, duration, who); the other moves are buttons.
    await expect(page.locator('.actions button').allTextContents()).resolves.toEqual([
      'Mark as quoted',
      'Cancel lead',
    ]);
    await page.getByRole('button', { name: 'Mark as quoted' }).click();
    await waitForText('[role=status]', 'Moved to Quoted');
    await page.getByLabel('Date', { exact: true }).fill('2026-12-01');
    await page.getByLabel('Start time', { exact: true }).fill('09:00');
    await page.getByRole('button', { name: 'Schedule' }).click();
    await waitForText('[role=status]', 'Moved to Scheduled');
    await expect(page.locator('.feed li').count()).resolves.toBe(3);
    await shot('06-lead');

    await nav('Work items').click();
    await waitForText('table.list a', 'Radiator cold upstairs');
    await shot('07-work-items');
    await nav('Leads').click();
    await page.waitForURL(`${base}/dashboard/leads`);
    await expect(page.getByRole('link', { name: 'Radiator cold upstairs' }).count()).resolves.toBe(0);
  });

  it('opens the customer from a lead page and applies the details a later lead was submitted with', async () => {
    // Noor's second lead: same email, so it links to her; her record keeps its name and phone.
    const res = await api('POST', '/v1/leads', {
      street: 'Prinsengracht',
      streetNumber: '7',
      postalCode: '1015 DK',
      city: 'Amsterdam',
      customerName: 'Noor Bakker-de Jong',
      email: 'noor.bakker@example.com',
      phone: '+31 6 8765 4321',
      title: 'Dripping shower head',
    });
    expect(res.status).toBe(201);
    const id = ((await res.json()) as { id: string }).id;

    await page.goto(`${base}/dashboard/leads/${id}`);
    await waitForText('h2', 'Submitted with this lead');
    await expect(page.locator('table.compare tbody tr').allTextContents()).resolves.toEqual([
      expect.stringMatching(/Name\s+Noor Bakker-de Jong\s+Noor Bakker\s*$/),
      expect.stringMatching(/Phone\s+06 87654321\s+06 12345678\s*$/),
    ]);
    await shot('13-submitted-details');

    await page.getByRole('link', { name: 'Noor Bakker', exact: true }).click();
    await page.waitForURL(/\/dashboard\/customers\/cus_[0-9a-z]{26}$/);
    await expect(page.locator('h1').textContent()).resolves.toBe('Noor Bakker');
    await expect(
      page.locator('table.customer-leads tbody tr td.cell-title').allTextContents(),
    ).resolves.toEqual(['Dripping shower head', 'Leaking kitchen tap']);
    await shot('14-customer');

    await page.getByRole('link', { name: 'Dripping shower head' }).click();
    await page.getByRole('button', { name: 'Use these details' }).click();
    await waitForText('[role=status]', 'Customer details updated: name, phone.');
    await waitForText('.feed li', 'Applied the submitted details to the customer');
    await waitForText('.feed li', `by ${OWNER.email}`);
    await expect(page.getByText('Submitted with this lead').count()).resolves.toBe(0);
    await expect(page.getByRole('link', { name: 'Noor Bakker-de Jong', exact: true }).count()).resolves.toBe(
      1,
    );
    await shot('15-details-applied');
  });

  it('refuses a forged form post without the CSRF token, same-site or cross-site', async () => {
    // The real form with its token field removed, submitted from the dashboard's own page.
    await page.goto(`${base}/dashboard/settings/api-keys`);
    await page.getByLabel('Name').fill('forged');
    await page.getByLabel('full').check();
    await page.locator('main form input[name="_csrf"]').evaluateAll((inputs) => {
      for (const input of inputs) input.remove();
    });
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Create key' }).click(),
    ]);
    expect(response.status()).toBe(403);
    await waitForText('h1', 'This form has expired');

    // The session cookie alone, without the page: refused too.
    const direct = await page.request.post(`${base}/dashboard/settings/api-keys`, {
      form: { name: 'forged', scopes: 'full' },
    });
    expect(direct.status()).toBe(403);

    // A page on another site that posts to the dashboard when the signed-in user clicks its button.
    const evil: Server = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end(
        `<form method="post" action="${base}/dashboard/settings/api-keys"><input name="name" value="evil"><input name="scopes" value="full"><button>Win a prize</button></form>`,
      );
    });
    await new Promise<void>((resolve) => evil.listen(0, 'localhost', resolve));
    try {
      await page.goto(`http://localhost:${(evil.address() as AddressInfo).port}/`);
      await page.getByRole('button', { name: 'Win a prize' }).click();
      await page.waitForLoadState();
      expect(page.url()).not.toBe(`${base}/dashboard/settings/api-keys`);
    } finally {
      evil.close();
    }
    const names = (await app.deps.database.db.selectFrom('api_keys').select('name').execute()).map(
      (r) => r.name,
    );
    expect(names).toEqual(['Website form']);
  });

  it('revokes the key after a confirmation; the API answers 401 at once', async () => {
    expect((await api('GET', '/v1/leads')).status).toBe(200);
    await page.goto(`${base}/dashboard/settings/api-keys`);
    await page.getByRole('link', { name: 'Revoke Website form' }).click();
    await shot('08-revoke-confirm');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await waitForText('[role=status]', 'is revoked');
    await shot('09-api-keys');
    expect((await api('GET', '/v1/leads')).status).toBe(401);
    expect((await api('POST', '/v1/leads', { title: 'x' })).status).toBe(401);
  });

  it('invites a colleague; the one-time link lets them in', async () => {
    await nav('Users').click();
    await page.getByLabel('Email').fill('planner@acme-plumbing.example');
    await page.getByRole('button', { name: 'Add person' }).click();
    const link = await page.locator('#invite-link').inputValue();
    expect(link).toMatch(new RegExp(`^${base}/invite\\?token=`));
    await shot('10-users');

    const colleague = await browser.newContext();
    try {
      const other = await colleague.newPage();
      await other.goto(link);
      await other.getByLabel('Password', { exact: true }).fill('planner password 1');
      await other.getByLabel('Password again').fill('planner password 1');
      await other.getByRole('button', { name: 'Create my account' }).click();
      await other.waitForURL(`${base}/dashboard/leads`);
      expect(await other.locator('.who').textContent()).toBe('planner@acme-plumbing.example');
      expect((await other.goto(link))?.status()).toBe(404);
    } finally {
      await colleague.close();
    }
  });

  it('reads well on a phone', async () => {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    try {
      await phone.addCookies(await context.cookies());
      const small = await phone.newPage();
      await small.goto(`${base}/dashboard/leads`);
      const overflow = await small.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await shot('11-phone-leads', small);
      await small.goto(`${base}/dashboard/leads/${leadId}`);
      await shot('12-phone-lead', small);
      // The planning week stacks its days on a phone: nothing wider than the screen.
      await small.goto(`${base}/dashboard/planning`);
      await expect(
        small.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth'),
      ).resolves.toBeLessThanOrEqual(0);
      await shot('13-phone-planning', small);
    } finally {
      await phone.close();
    }
    expect(policyViolations).toEqual([]);
  });
});
