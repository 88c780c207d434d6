// Emailed invitations in Chromium: with email on, an admin adds a colleague by address, is told the invitation is
// emailed and still sees the link once; the colleague opens the link from the mail a real SMTP server received,
// chooses a password and is in. The link shown to the admin dies with the invitation.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrand } from '../../src/accounts/brands.js';
import { addUser } from '../dashboard/helpers.js';
import { waitFor } from '../helpers.js';
import { type SmtpReceiver, startSmtp } from '../mail/smtp.js';
import { chromiumRuns, launchChromium, requireChromium, waitForText } from './chromium.js';
import { collectPolicyViolations, type E2eServer, signIn, startServer } from './server.js';

const withChromium = chromiumRuns('the emailed invitation end-to-end test');

const ADMIN = 'owner@acme-plumbing.example';
const COLLEAGUE = 'planner@acme-plumbing.example';

describe.skipIf(!withChromium)('Emailed invitations in Chromium', () => {
  let server: E2eServer;
  let smtp: SmtpReceiver;
  let base: string;
  let browser: Browser;
  let page: Page;
  const policyViolations: string[] = [];

  beforeAll(async () => {
    requireChromium();
    smtp = await startSmtp();
    server = await startServer('invitation-mail', {
      env: { SMTP_URL: smtp.url(), MAIL_FROM: 'Acme Leads <leads@acme-plumbing.example>' },
    });
    base = server.base;
    const brand = await createBrand(server.app.deps.database, {
      language: 'en',
      name: 'Acme Plumbing',
      country: 'NL',
    });
    await addUser(server.app, brand.id, ADMIN);
    browser = await launchChromium();
    page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(8000);
    collectPolicyViolations(page, policyViolations);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await smtp?.close();
  });

  it('emails the invitation; the link in the mail lets the colleague in', async () => {
    await signIn(page, base, ADMIN);
    await page.goto(`${base}/dashboard/settings/users`);
    await page.getByLabel('Email').fill(COLLEAGUE);
    await page.getByRole('button', { name: 'Add person' }).click();
    await waitForText(page, '[role=status]', `Invitation emailed to ${COLLEAGUE}.`);
    const shown = await page.locator('#invite-link').inputValue();
    expect(shown).toMatch(new RegExp(`^${base}/invite\\?token=[A-Za-z0-9_-]{43}$`));

    const [mail] = await waitFor(
      () => smtp.to(COLLEAGUE).length && smtp.to(COLLEAGUE),
      'the invitation mail',
    );
    expect(mail!.parsed.subject).toBe('You are invited to Acme Plumbing on lead-intake');
    const link = new RegExp(`${base}/invite\\?token=[A-Za-z0-9_-]{43}`).exec(mail!.parsed.text ?? '')?.[0];
    expect(link).toBeDefined();
    expect(link).not.toBe(shown);

    const colleague = await browser.newContext();
    try {
      const other = await colleague.newPage();
      await other.goto(link!);
      await other.getByLabel('Password', { exact: true }).fill('planner password 1');
      await other.getByLabel('Password again').fill('planner password 1');
      await other.getByRole('button', { name: 'Create my account' }).click();
      await other.waitForURL(`${base}/dashboard/leads`);
      expect(await other.locator('.who').textContent()).toBe(COLLEAGUE);
      expect((await other.goto(link!))?.status()).toBe(404);
      expect((await other.goto(shown))?.status()).toBe(404);
    } finally {
      await colleague.close();
    }
    expect(policyViolations).toEqual([]);
  });
});
