// The office's daily loop end to end in real Chromium (Debian's /usr/bin/chromium via playwright-core), against
// the real server on a random port with a temporary SQLite file: a customer phones in, the office types the job
// in, plans the visit for tomorrow 09:00 for a colleague, who finds it on "My visits"; a note is added; the job is
// cancelled with a reason and found under Cancelled. Screenshots go to test-results/daily-loop/, and with
// UPDATE_SCREENSHOTS=1 also to docs/screenshots/ (the README shows those).
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrand } from '../../src/accounts/brands.js';
import type { App } from '../../src/app.js';
import { addUser } from '../dashboard/helpers.js';
import { chromiumRuns, launchChromium, requireChromium } from './chromium.js';
import { collectPolicyViolations, type E2eServer, signIn as signInOn, startServer } from './server.js';

const withChromium = chromiumRuns("the office's daily loop end-to-end test");

const SHOTS = path.resolve('test-results/daily-loop');
const DOC_SHOTS = path.resolve('docs/screenshots');
const ZONE = 'Europe/Amsterdam';

/** Tomorrow's date in the brand's time zone, as a date input takes it (YYYY-MM-DD). */
function tomorrowInZone(): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: ZONE,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(Date.now() + 24 * 60 * 60 * 1000));
}

describe.skipIf(!withChromium)("the office's daily loop in Chromium", () => {
  let server: E2eServer;
  let app: App;
  let base: string;
  let browser: Browser;
  let office: Page;
  let colleague: Page;
  let leadId = '';
  const policyViolations: string[] = [];

  const shot = async (name: string, target: Page = office) => {
    const file = path.join(SHOTS, `${name}.png`);
    await target.screenshot({ path: file, fullPage: true });
    if (process.env.UPDATE_SCREENSHOTS === '1') {
      mkdirSync(DOC_SHOTS, { recursive: true });
      copyFileSync(file, path.join(DOC_SHOTS, `${name}.png`));
    }
  };

  async function signIn(email: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    collectPolicyViolations(page, policyViolations);
    await signInOn(page, base, email);
    return page;
  }

  beforeAll(async () => {
    requireChromium();
    mkdirSync(SHOTS, { recursive: true });
    server = await startServer('loop', { publicUrl: false });
    ({ app, base } = server);
    const brand = await createBrand(app.deps.database, {
      language: 'en',
      name: 'Acme Plumbing',
      country: 'NL',
    });
    const sanne = await addUser(app, brand.id, 'sanne@acme-plumbing.example', 'owner');
    const piet = await addUser(app, brand.id, 'piet@acme-plumbing.example', 'member');
    for (const [user, name] of [
      [sanne, 'Sanne de Vries'],
      [piet, 'Piet Bakker'],
    ] as const) {
      await app.deps.database.db.updateTable('users').set({ name }).where('id', '=', user.id).execute();
    }
    browser = await launchChromium();
    office = await signIn('sanne@acme-plumbing.example');
    colleague = await signIn('piet@acme-plumbing.example');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('types in a phoned-in job: national phone, source Phone, the person who typed it', async () => {
    await office.getByRole('link', { name: 'New lead' }).click();
    await office.waitForURL(`${base}/dashboard/leads/new`);
    await office.locator('#field-customerName').fill('Joris van Dam');
    await office.locator('#field-phone').fill('06 1234 5678');
    await office.locator('#field-email').fill('joris@vandam.example');
    await office.locator('#field-title').fill('Radiator leaks in the living room');
    await office.locator('#field-description').fill('Two radiators; drips since the weekend.');
    await office.locator('#field-street').fill('Keizersgracht');
    await office.locator('#field-streetNumber').fill('123');
    await office.locator('#field-postalCode').fill('1015 CJ');
    await office.locator('#field-city').fill('Amsterdam');
    await shot('loop-01-new-lead');
    await office.getByRole('button', { name: 'Save lead' }).click();
    await office.waitForURL(/\/dashboard\/leads\/wrk_[0-9a-z]{26}\?created=1$/);
    leadId = /\/leads\/(wrk_[0-9a-z]{26})/.exec(office.url())![1]!;
    await office.getByText('Lead created.').waitFor();
    await expect(office.locator('main').textContent()).resolves.toContain('typed in by Sanne de Vries');

    const lead = await app.deps.database.db
      .selectFrom('leads as l')
      .innerJoin('customers as c', 'c.id', 'l.customer_id')
      .select(['l.source', 'l.source_user_name', 'c.phone'])
      .where('l.id', '=', leadId)
      .executeTakeFirstOrThrow();
    expect(lead).toEqual({ source: 'phone', source_user_name: 'Sanne de Vries', phone: '+31612345678' });
  });

  it('plans the visit for tomorrow at 09:00 for a colleague, who finds it on My visits', async () => {
    const tomorrow = tomorrowInZone();
    await office.locator('#field-scheduledDate').fill(tomorrow);
    await office.locator('#field-scheduledTime').fill('09:00');
    await office.locator('#field-durationMinutes').selectOption('90');
    await office.locator('#field-assigneeId').selectOption({ label: 'Piet Bakker' });
    await shot('loop-02-schedule');
    await office.getByRole('button', { name: 'Schedule', exact: true }).click();
    await office.waitForURL(`${base}/dashboard/leads/${leadId}?moved=scheduled`);

    // Stored as that moment in the brand's zone (09:00 Amsterdam), for Piet, for an hour and a half.
    const stored = await app.deps.database.db
      .selectFrom('leads')
      .select(['status', 'scheduled_for', 'duration_minutes', 'assignee_id'])
      .where('id', '=', leadId)
      .executeTakeFirstOrThrow();
    expect(stored.status).toBe('scheduled');
    expect(stored.duration_minutes).toBe(90);
    const local = new Intl.DateTimeFormat('en-CA', {
      timeZone: ZONE,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(new Date(Number(stored.scheduled_for)));
    expect(local).toBe(`${tomorrow}, 09:00`);

    await colleague.goto(`${base}/dashboard/my-visits`);
    const visit = colleague.locator('main').getByRole('link', { name: /Radiator leaks in the living room/ });
    await visit.waitFor();
    await expect(colleague.locator('main').textContent()).resolves.toMatch(/09:00/);
    await shot('loop-03-my-visits', colleague);
    await visit.click();
    await colleague.waitForURL(`${base}/dashboard/leads/${leadId}`);

    await office.goto(`${base}/dashboard/planning`);
    await expect(office.locator('main').textContent()).resolves.toContain('Piet Bakker');
    await office
      .locator('main')
      .getByRole('link', { name: /Radiator leaks/ })
      .first()
      .waitFor();
    await shot('loop-04-planning');
  });

  it('adds an internal note, shown with its author in the timeline', async () => {
    await office.goto(`${base}/dashboard/leads/${leadId}`);
    await office.locator('#field-text').fill('Called back: wants a quote for\ntwo radiators.');
    await office.getByRole('button', { name: 'Add note' }).click();
    await office.waitForURL(new RegExp(`/dashboard/leads/${leadId}\\?noted=1`));
    const feed = office.locator('main');
    await expect(feed.textContent()).resolves.toContain('Called back: wants a quote for');
    await expect(feed.textContent()).resolves.toContain('by Sanne de Vries');
    await shot('loop-05-note');
  });

  it('cancels with a reason after a confirmation, and finds the job under Cancelled', async () => {
    await office.goto(`${base}/dashboard/leads/${leadId}`);
    await office.locator('form[action$="/status"] button[value="cancelled"]').click();
    await office.locator('#field-reason').fill('Customer found someone else');
    await shot('loop-06-cancel');
    await office.locator('button[name="confirm"][value="yes"]').click();
    await office.waitForURL(`${base}/dashboard/leads/${leadId}?moved=cancelled`);
    await expect(office.locator('main').textContent()).resolves.toContain('Customer found someone else');

    await office.goto(`${base}/dashboard/leads`);
    await expect(office.locator('main').textContent()).resolves.not.toContain('Radiator leaks');
    await office.getByRole('link', { name: 'Cancelled', exact: true }).first().click();
    await office.waitForURL(/status=cancelled/);
    await office.locator('main').getByRole('link', { name: 'Radiator leaks in the living room' }).waitFor();
    await shot('loop-07-cancelled');

    const history = await app.deps.database.db
      .selectFrom('lead_status_history')
      .select(['status', 'actor_name', 'reason'])
      .where('lead_id', '=', leadId)
      .orderBy('seq')
      .execute();
    expect(history).toEqual([
      { status: 'request', actor_name: 'Sanne de Vries', reason: null },
      { status: 'scheduled', actor_name: 'Sanne de Vries', reason: null },
      { status: 'cancelled', actor_name: 'Sanne de Vries', reason: 'Customer found someone else' },
    ]);
    expect(policyViolations).toEqual([]);
  });
});
