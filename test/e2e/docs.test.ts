// /docs in real Chromium (Debian's /usr/bin/chromium via playwright-core), served over plain HTTP and browsed
// under a host name that is not localhost (docs.example.test, mapped to 127.0.0.1 by Chromium's resolver rules):
// the situation of HOST=0.0.0.0 on a LAN, where a CSP with upgrade-insecure-requests rewrote every asset to https
// and left the page blank. Checks the title and logo, that the operations and the Webhooks section render, that
// no request failed, and that the CSP blocked nothing and the page logged no CSP message and no error.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumRuns, launchChromium, requireChromium } from './chromium.js';
import { type E2eServer, startServer } from './server.js';

const withChromium = chromiumRuns('the /docs end-to-end test');

const HOST = 'docs.example.test';

describe.skipIf(!withChromium)('/docs in Chromium over plain HTTP under a LAN-style host name', () => {
  let server: E2eServer;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    requireChromium();
    server = await startServer('docs-e2e', {
      host: HOST,
      build: { webhookWorker: false, mailWorker: false },
    });
    base = server.base;
    browser = await launchChromium([`--host-resolver-rules=MAP ${HOST} 127.0.0.1`]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('renders the title, the logo, every operation and the Webhooks section, with nothing failed or blocked', {
    timeout: 60_000,
  }, async () => {
    const page = await browser.newPage();
    const failed: string[] = [];
    const refused: string[] = [];
    const consoleErrors: string[] = [];
    // Any console message about the Content Security Policy, of any level: Chromium reports a blocked inline
    // style or script as an error ("Applying inline style violates the following Content Security Policy
    // directive …" or "Refused to apply inline style …"), an ignored directive as a warning. Swagger UI's stock
    // logo (an SVG with a <style>) was one on every load.
    const cspMessages: string[] = [];
    const pageErrors: string[] = [];
    page.on('requestfailed', (request) => failed.push(`${request.url()}: ${request.failure()?.errorText}`));
    page.on('response', (response) => {
      if (response.status() >= 400) refused.push(`${response.url()}: ${response.status()}`);
    });
    page.on('console', (message) => {
      if (/Content Security Policy|Content-Security-Policy/i.test(message.text())) {
        cspMessages.push(`${message.type()}: ${message.text()}`);
      }
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    // And the violations themselves, as the page sees them (whether or not Chromium logs them).
    // (Scripts as strings: the tests compile without the DOM's types.)
    await page.addInitScript(`
      window.cspViolations = [];
      document.addEventListener('securitypolicyviolation', (event) =>
        window.cspViolations.push(event.effectiveDirective + ' blocked ' + (event.blockedURI || 'inline') + ': ' + event.sample),
      );
    `);

    const response = await page.goto(`${base}/docs/`);
    expect(response?.status()).toBe(200);
    expect(new URL(page.url()).protocol).toBe('http:');
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');

    // Swagger UI fetched the document and rendered its operations.
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
    expect(await page.title()).toBe('lead-intake API');
    const operations = await page.locator('.opblock').count();
    expect(operations).toBeGreaterThan(20);
    await expect
      .poll(() => page.locator('.opblock-summary-path', { hasText: '/v1/leads' }).count())
      .toBeGreaterThan(0);

    // The 3.1 webhooks section, one entry per event type.
    const webhooks = page.locator('.webhooks');
    await webhooks.waitFor({ timeout: 10_000 });
    expect(await webhooks.locator('h2, h3, h4').first().textContent()).toMatch(/Webhooks/);
    for (const type of ['lead.created', 'lead.status_changed', 'customer.updated']) {
      expect(await webhooks.getByText(type, { exact: true }).count(), type).toBeGreaterThan(0);
    }

    // The lead-intake logo in place of the default one.
    const logo = page.locator('.topbar img');
    await logo.waitFor({ timeout: 10_000 });
    expect(await logo.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);

    expect(failed).toEqual([]);
    expect(refused).toEqual([]);
    expect(cspMessages).toEqual([]);
    expect(await page.evaluate<string[]>('window.cspViolations')).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(pageErrors).toEqual([]);
    // Drawn by the lead-intake Logo plugin, in place of Swagger UI's (never drawn, so its <style> never applied).
    expect(await logo.getAttribute('alt')).toBe('lead-intake API');
    await page.close();
  });
});
