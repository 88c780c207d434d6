// The dashboard on a phone, in real Chromium (Debian's /usr/bin/chromium via playwright-core) against the real server
// on a random port with a temporary SQLite file: no page scrolls sideways at 390 px, the menu holds the whole
// navigation, the first lead is on the first screen, and every form survives reload and Back without being sent
// twice. Screenshots go to test-results/mobile/.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { createBrand } from '../../src/accounts/brands.js';
import type { App } from '../../src/app.js';
import { createForm } from '../../src/forms/forms.js';
import { createLead } from '../../src/leads/index.js';
import { parseLeadInput } from '../../src/leads/input.js';
import { addNote } from '../../src/leads/notes.js';
import { changeLeadStatus } from '../../src/leads/status-change.js';
import { createWebhookEndpoint } from '../../src/webhooks/endpoints.js';
import { addUser, PASSWORD } from '../dashboard/helpers.js';
import { chromiumRuns, launchChromium, requireChromium } from './chromium.js';
import { collectPolicyViolations, type E2eServer, signIn, startServer } from './server.js';

const withChromium = chromiumRuns('the dashboard-on-a-phone end-to-end test');

const SHOTS = path.resolve('test-results/mobile');
const PHONE = { width: 390, height: 844 };
const OWNER = 'owner@acme.example';
const MEMBER = 'member@acme.example';
const LONG_WORD = `https://www.example.com/${'very-long-path-without-any-spaces-'.repeat(4)}end`;

/** The main navigation's links an admin sees, in order. */
const MAIN_LINKS = [
  'Leads',
  'Work items',
  'Customers',
  'Planning',
  'My visits',
  'API keys',
  'Webhooks',
  'Forms',
  'Users',
  'Brand',
];

/**
 * Every GET route under /dashboard that is no page (CSV, JSON): the rest are all visited. A new page without
 * parameters is visited by itself; one with parameters needs its line in `routeUrls` below.
 */
const NOT_PAGES = new Set([
  '/dashboard/leads/export.csv',
  '/dashboard/work-items/export.csv',
  '/dashboard/customers/match',
  // A photo's or file's bytes (the lead page shows them).
  '/dashboard/attachments/:id/content',
  // A customer's personal data as a ZIP download.
  '/dashboard/customers/:id/personal-data.zip',
]);

/** The GET routes of the app, with full paths, from Fastify's route tree. */
function getRoutes(app: App): string[] {
  const paths: string[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ method: 'GET', commonPrefix: false }).split('\n')) {
    const match = /^([│├└─\s]*)(\S.*?) \(GET[^)]*\)$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    const route = `${stack[depth - 1] ?? ''}${match[2]}`;
    stack.push(route);
    paths.push(route);
  }
  return paths;
}

/** What overflows the viewport sideways: the page's scroll width and the first elements reaching past the edge. */
const OVERFLOW = `(() => {
  const width = window.innerWidth;
  const wide = [...document.querySelectorAll('body *')]
    .filter((e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.right > width + 0.5; })
    .slice(0, 5)
    .map((e) => e.tagName.toLowerCase() + (typeof e.className === 'string' && e.className ? '.' + e.className.trim().split(/\\s+/).join('.') : ''));
  return { scrollWidth: document.documentElement.scrollWidth, innerWidth: width, wide };
})()`;

type Counted =
  | 'api_keys'
  | 'users'
  | 'webhook_endpoints'
  | 'forms'
  | 'leads'
  | 'lead_activity'
  | 'lead_notes'
  | 'lead_status_history';

describe.skipIf(!withChromium)('the dashboard on a phone in Chromium', () => {
  let server: E2eServer;
  let app: App;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const policyViolations: string[] = [];
  const dialogs: string[] = [];
  const ids = {} as Record<
    | 'brand'
    | 'owner'
    | 'member'
    | 'key'
    | 'webhook'
    | 'form'
    | 'lead'
    | 'work'
    | 'customer'
    | 'otherCustomer',
    string
  >;

  const db = () => app.deps.database.db;
  /** How many rows of a table belong to the brand, or match the given column. */
  const count = async (table: Counted, where: [column: string, value: string] = ['brand_id', ids.brand]) =>
    Number(
      (
        await db()
          .selectFrom(table as 'leads')
          .select((eb) => eb.fn.countAll().as('n'))
          .where(where[0] as 'brand_id', '=', where[1])
          .executeTakeFirstOrThrow()
      ).n,
    );
  const shot = (name: string, target: Page = page, fullPage = false) =>
    target.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage });

  beforeAll(async () => {
    requireChromium();
    mkdirSync(SHOTS, { recursive: true });
    server = await startServer('mobile', {
      publicUrl: false,
      env: { WEBHOOKS_ALLOW_HTTP: 'true', WEBHOOKS_ALLOW_PRIVATE: 'true' },
    });
    ({ app, base } = server);

    // Content on every page: leads and a work item with phones, a lead whose submitted details differ from its
    // customer's, a note, spam, a key, a webhook endpoint, a form, a second person.
    const store = app.deps.database;
    const brand = await createBrand(store, {
      language: 'en',
      name: 'Acme Plumbing & Heating Amsterdam',
      country: 'NL',
    });
    ids.brand = brand.id;
    ids.owner = (await addUser(app, brand.id, OWNER)).id;
    ids.member = (await addUser(app, brand.id, MEMBER, 'member')).id;
    const key = await createApiKey(store, {
      brandId: brand.id,
      name: 'Website form',
      scopes: ['leads:write'],
    });
    ids.key = key.id;
    const endpoint = await createWebhookEndpoint(
      store,
      brand.id,
      { url: `http://127.0.0.1:9/${'hooks/'.repeat(12)}lead-intake`, description: 'Planning tool' },
      async (url) => url,
    );
    ids.webhook = endpoint.id;
    const form = await createForm(store, brand.id, {
      name: 'Contact form on the website',
      allowedOrigins: ['https://www.acme-plumbing-and-heating-amsterdam.example'],
    });
    ids.form = form.id;
    const origin = { brandId: brand.id, source: 'website', keyId: key.id, keyName: key.name };
    const lead = (fields: Record<string, unknown>) =>
      createLead(
        store,
        origin,
        parseLeadInput({
          street: 'Keizersgracht',
          streetNumber: '123',
          postalCode: '1015 CJ',
          city: 'Amsterdam',
          ...fields,
        }),
      );
    const first = await lead({
      title: 'Boiler makes a banging noise',
      customerName: 'Sam Jansen',
      email: 'sam@example.com',
      phone: '+31611112222',
      priority: 'high',
    });
    const second = await lead({
      title: `Leaking kitchen tap, see ${LONG_WORD}`,
      description: `Photos: ${LONG_WORD}\nPlease call first.`,
      customerName: 'Samuel Jansen',
      email: 'sam@example.com',
      phone: '+32470123456',
      companyName: 'Jansen Installatietechniek en Onderhoud BV',
    });
    const work = await lead({
      title: 'Radiator cold upstairs',
      customerName: 'Noor Bakker',
      phone: '+31687654321',
    });
    await changeLeadStatus(store, brand.id, work.id, 'scheduled', null);
    await addNote(store, brand.id, second.id, `Called back, no answer. ${LONG_WORD}`, {
      type: 'user',
      id: ids.owner,
      name: OWNER,
    });
    await createLead(
      store,
      {
        ...origin,
        form: {
          id: form.id,
          name: form.name,
          spam: true,
          extraFields: null,
          attribution: null,
          consent: null,
        },
      },
      parseLeadInput({
        title: 'Cheap pills',
        customerName: 'Bot',
        phone: '+31612345678',
        description: LONG_WORD,
        street: 'Damrak',
        postalCode: '1012 LG',
        city: 'Amsterdam',
      }),
    );
    ids.lead = second.id;
    ids.work = work.id;
    ids.customer = first.customerId;
    ids.otherCustomer = work.customerId;

    browser = await launchChromium();
    context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    page = await context.newPage();
    page.setDefaultTimeout(8000);
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    collectPolicyViolations(page, policyViolations);
    await signIn(page, base, OWNER);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Where each dashboard route with parameters is visited. One line per page. */
  const routeUrls = (): Record<string, string[]> => ({
    '/dashboard/leads/:id': [`/dashboard/leads/${ids.lead}`, `/dashboard/leads/${ids.work}`],
    '/dashboard/leads/:id/edit': [`/dashboard/leads/${ids.lead}/edit`],
    '/dashboard/customers/:id': [`/dashboard/customers/${ids.customer}`],
    '/dashboard/customers/:id/edit': [`/dashboard/customers/${ids.customer}/edit`],
    '/dashboard/customers/:id/merge': [
      `/dashboard/customers/${ids.customer}/merge?from=${ids.otherCustomer}`,
    ],
    '/dashboard/customers/:id/erase': [`/dashboard/customers/${ids.customer}/erase`],
    '/dashboard/settings/api-keys/:id/revoke': [`/dashboard/settings/api-keys/${ids.key}/revoke`],
    '/dashboard/settings/users/:id/remove': [`/dashboard/settings/users/${ids.member}/remove`],
    '/dashboard/settings/webhooks/:id': [`/dashboard/settings/webhooks/${ids.webhook}`],
    '/dashboard/settings/webhooks/:id/delete': [`/dashboard/settings/webhooks/${ids.webhook}/delete`],
    '/dashboard/settings/forms/:id': [`/dashboard/settings/forms/${ids.form}`],
    '/dashboard/settings/forms/:id/delete': [`/dashboard/settings/forms/${ids.form}/delete`],
  });
  /** Pages beyond one per route: other states of a list. */
  const EXTRA_URLS = [
    '/dashboard/leads?status=all',
    '/dashboard/leads?q=nothing-matches-this',
    '/dashboard/leads?status=request%2Cquoted%2Ccancelled&q=Jansen',
    '/dashboard/customers?q=Jansen',
    '/dashboard/customers?q=nothing-matches-this',
    '/dashboard/search?q=Jansen',
    '/dashboard/search?q=nothing-matches-this',
  ];

  it('no page scrolls sideways at 390 px: every GET page under /dashboard, with content', async () => {
    const routes = getRoutes(app).filter(
      (route) => (route === '/dashboard' || route.startsWith('/dashboard/')) && !NOT_PAGES.has(route),
    );
    const byRoute = routeUrls();
    const missing = routes.filter((route) => route.includes(':') && !byRoute[route]);
    expect(missing, 'routes with parameters need their URLs in routeUrls').toEqual([]);
    const urls = [...routes.flatMap((route) => byRoute[route] ?? [route]), ...EXTRA_URLS];
    // The pages the issue names are all among them.
    for (const needed of [
      '/dashboard/leads',
      '/dashboard/work-items',
      '/dashboard/leads/new',
      '/dashboard/spam',
      '/dashboard/customers',
      '/dashboard/search',
    ]) {
      expect(urls).toContain(needed);
    }
    for (const needed of ['api-keys', 'webhooks', 'forms', 'users', 'account']) {
      expect(urls).toContain(`/dashboard/settings/${needed}`);
    }

    const problems: string[] = [];
    for (const url of urls) {
      const response = await page.goto(`${base}${url}`);
      if (response?.status() !== 200) {
        problems.push(`${url}: HTTP ${response?.status()}`);
        continue;
      }
      const result = await page.evaluate<{ scrollWidth: number; innerWidth: number; wide: string[] }>(
        OVERFLOW,
      );
      if (result.innerWidth !== PHONE.width || result.scrollWidth > result.innerWidth) {
        problems.push(
          `${url}: ${result.scrollWidth} px wide, layout viewport ${result.innerWidth} px, want ${PHONE.width} (${result.wide.join(', ')})`,
        );
      }
    }
    expect(problems).toEqual([]);
    expect(urls.length).toBeGreaterThanOrEqual(20);
    expect(policyViolations).toEqual([]);
  });

  it('the first lead is on the first screen; the overview is one tap away', async () => {
    await page.goto(`${base}/dashboard/leads`);
    await shot('leads-390');
    const firstLead = page.locator('table.list tbody tr').first().locator('td.cell-title a');
    const box = await firstLead.boundingBox();
    expect(box).not.toBeNull();
    expect(box!.y + box!.height).toBeLessThanOrEqual(PHONE.height);
    const chart = page.locator('.chart').first();
    expect(await chart.isVisible()).toBe(false);
    await page.locator('.overview > summary').click();
    expect(await chart.isVisible()).toBe(true);
    const result = await page.evaluate<{ scrollWidth: number; innerWidth: number }>(OVERFLOW);
    expect(result.scrollWidth).toBeLessThanOrEqual(result.innerWidth);
  });

  it('the menu holds every main link, the account and sign-out, and navigates', async () => {
    await page.goto(`${base}/dashboard/leads`);
    const nav = page.getByRole('navigation', { name: 'Main' });
    const menu = page.locator('.menu > summary');
    expect(await menu.isVisible()).toBe(true);
    expect(await nav.getByRole('link', { name: 'Users' }).isVisible()).toBe(false);
    const search = page.getByRole('searchbox', { name: 'Search leads, work items and customers' });
    expect(await search.isVisible()).toBe(false);
    await menu.click();
    await shot('menu-390');
    // The search across everything is the first thing in the menu, the whole width of the phone.
    const searchBox = await search.boundingBox();
    expect(searchBox).not.toBeNull();
    expect(searchBox!.x).toBeGreaterThanOrEqual(0);
    expect(searchBox!.x + searchBox!.width).toBeLessThanOrEqual(PHONE.width);
    expect(searchBox!.width).toBeGreaterThan(PHONE.width / 2);
    expect(searchBox!.y).toBeLessThan((await nav.getByRole('link', { name: 'Leads' }).boundingBox())!.y);
    const links = nav.getByRole('link');
    expect(await links.allTextContents()).toEqual(MAIN_LINKS);
    for (const name of MAIN_LINKS) {
      const box = await nav.getByRole('link', { name, exact: true }).boundingBox();
      expect(box, name).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width, name).toBeLessThanOrEqual(PHONE.width);
      expect(box!.y + box!.height, name).toBeLessThanOrEqual(PHONE.height);
    }
    expect(await nav.getByRole('link', { name: 'Leads' }).getAttribute('aria-current')).toBe('page');
    expect(await page.getByRole('link', { name: OWNER }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);

    await nav.getByRole('link', { name: 'Users' }).click();
    await page.waitForURL(`${base}/dashboard/settings/users`);
    expect(await nav.getByRole('link', { name: 'Users' }).isVisible()).toBe(false);
    await menu.click();
    expect(await nav.getByRole('link', { name: 'Users' }).getAttribute('aria-current')).toBe('page');
    expect(await nav.getByRole('link', { name: 'Leads' }).getAttribute('aria-current')).toBeNull();

    // By keyboard: the menu button, then the search (its field and button), the links in order, then the
    // account and sign-out.
    await page.goto(`${base}/dashboard/work-items`);
    await menu.focus();
    await page.keyboard.press('Enter');
    const focused = async () =>
      page.evaluate<string>(
        "document.activeElement.getAttribute('aria-label') ?? (document.activeElement.labels?.[0]?.textContent ?? document.activeElement.textContent).trim()",
      );
    const order: string[] = [];
    for (let i = 0; i < MAIN_LINKS.length + 4; i++) {
      await page.keyboard.press('Tab');
      order.push(await focused());
    }
    expect(order).toEqual([
      'Search leads, work items and customers',
      'Search',
      ...MAIN_LINKS,
      OWNER,
      'Sign out',
    ]);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/sign-in?notice=signed-out`);
    await page.getByLabel('Email').fill(OWNER);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/dashboard/leads`);
  });

  it('from 768 px the whole navigation shows in the header, without the menu button', async () => {
    for (const width of [768, 1024, 1280]) {
      const wide = await browser.newContext({ viewport: { width, height: 900 } });
      const widePage = await wide.newPage();
      await signIn(widePage, base, OWNER);
      await shot(`leads-${width}`, widePage);
      expect(await widePage.locator('.menu > summary').isVisible()).toBe(false);
      const nav = widePage.getByRole('navigation', { name: 'Main' });
      for (const name of MAIN_LINKS) {
        expect(await nav.getByRole('link', { name, exact: true }).isVisible(), `${name} at ${width}`).toBe(
          true,
        );
      }
      expect(await widePage.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
      // The search sits in the header row, beside the account, at a width one can type a name in.
      const search = await widePage
        .getByRole('searchbox', { name: 'Search leads, work items and customers' })
        .boundingBox();
      const account = await widePage.getByRole('link', { name: OWNER }).boundingBox();
      expect(search, `search at ${width}`).not.toBeNull();
      expect(search!.width, `search at ${width}`).toBeGreaterThanOrEqual(160);
      expect(Math.abs(search!.y + search!.height / 2 - (account!.y + account!.height / 2))).toBeLessThan(12);
      expect(await widePage.locator('.chart').first().isVisible()).toBe(true);
      const result = await widePage.evaluate<{ scrollWidth: number; innerWidth: number }>(OVERFLOW);
      expect(result.scrollWidth).toBeLessThanOrEqual(result.innerWidth);
      await nav.getByRole('link', { name: 'Forms' }).click();
      await widePage.waitForURL(`${base}/dashboard/settings/forms`);
      await wide.close();
    }
  }, 60_000);

  describe('reload and Back after each form send nothing twice', () => {
    /**
     * Opens `formUrl`, fills and sends the form, and expects a 303 to a page matching `target`. Then reloads and
     * goes Back: each a plain GET with a 200, and `rows` (what the form adds) grows by one only once.
     */
    async function sendReloadBack(options: {
      formUrl: string;
      fill: () => Promise<void>;
      submit: string;
      target: RegExp;
      rows: () => Promise<number>;
      added?: number;
    }) {
      await page.goto(`${base}${options.formUrl}`);
      const before = await options.rows();
      await options.fill();
      const [response] = await Promise.all([
        page.waitForResponse((r) => options.target.test(r.url()) && r.request().method() === 'GET'),
        page.getByRole('button', { name: options.submit, exact: true }).click(),
      ]);
      expect(response.status()).toBe(200);
      expect(response.request().redirectedFrom()?.method()).toBe('POST');
      await page.waitForURL(options.target);
      const after = await options.rows();
      expect(after).toBe(before + (options.added ?? 1));
      const target = page.url();

      const reloaded = (await page.reload()) as Response;
      expect(reloaded.request().method()).toBe('GET');
      expect(reloaded.request().redirectedFrom()).toBeNull();
      expect(reloaded.status()).toBe(200);
      expect(page.url()).toBe(target);
      expect(await options.rows()).toBe(after);

      const back = await page.goBack();
      if (back) {
        expect(back.request().method()).toBe('GET');
        expect(back.status()).toBe(200);
      }
      expect(page.url()).toBe(`${base}${options.formUrl}`);
      expect(await options.rows()).toBe(after);
      const forward = await page.goForward();
      if (forward) expect(forward.request().method()).toBe('GET');
      expect(await options.rows()).toBe(after);
      expect(dialogs).toEqual([]);
    }

    it('create an API key', async () => {
      await sendReloadBack({
        formUrl: '/dashboard/settings/api-keys',
        fill: async () => {
          await page.getByLabel('Name').fill('Phone app');
          await page.getByLabel('leads:read').check();
        },
        submit: 'Create key',
        target: /\/dashboard\/settings\/api-keys\?created=/,
        rows: () => count('api_keys'),
      });
    });

    it('add a person', async () => {
      await sendReloadBack({
        formUrl: '/dashboard/settings/users',
        fill: async () => {
          await page.getByLabel('Email').fill('planner@acme.example');
          await page.getByLabel('Initial password').fill('a long initial password');
        },
        submit: 'Add person',
        target: /\/dashboard\/settings\/users\?done=added$/,
        rows: () => count('users'),
      });
    });

    it('add a webhook endpoint', async () => {
      await sendReloadBack({
        formUrl: '/dashboard/settings/webhooks',
        fill: async () => {
          await page.getByLabel('URL').fill('http://127.0.0.1:9/another-hook');
        },
        submit: 'Add endpoint',
        target: /\/dashboard\/settings\/webhooks(\/|\?)/,
        rows: () => count('webhook_endpoints'),
      });
    });

    it('create a form', async () => {
      await sendReloadBack({
        formUrl: '/dashboard/settings/forms/new',
        fill: async () => {
          await page.getByLabel('Name', { exact: true }).fill('Quote form');
          await page.getByLabel('Allowed origins').fill('https://quotes.example');
        },
        submit: 'Create form',
        target: /\/dashboard\/settings\/forms\/frm_[0-9A-Za-z]+\?done=created$/,
        rows: () => count('forms'),
      });
    });

    it('type in a new lead', async () => {
      await sendReloadBack({
        formUrl: '/dashboard/leads/new',
        fill: async () => {
          await page.locator('#field-customerName').fill('Bram Visser');
          await page.locator('#field-phone').fill('06 5555 1234');
          await page.locator('#field-title').fill('Radiator leaks');
          await page.locator('#field-street').fill('Oudegracht');
          await page.locator('#field-postalCode').fill('3511 AB');
          await page.locator('#field-city').fill('Utrecht');
        },
        submit: 'Save lead',
        target: /\/dashboard\/leads\/wrk_[0-9A-Za-z]+\?created=1$/,
        rows: () => count('leads'),
      });
      expect(await page.locator('main').textContent()).not.toContain('+31655551234');
    });

    it('edit a lead', async () => {
      await sendReloadBack({
        formUrl: `/dashboard/leads/${ids.work}/edit`,
        fill: async () => {
          await page.locator('#field-title').fill('Radiator cold upstairs and downstairs');
        },
        submit: 'Save changes',
        target: new RegExp(`/dashboard/leads/${ids.work}\\?edited=`),
        rows: () => count('lead_activity', ['lead_id', ids.work]),
      });
    });

    it('add a note', async () => {
      await sendReloadBack({
        formUrl: `/dashboard/leads/${ids.work}`,
        fill: async () => {
          await page.getByLabel('Add a note').fill('Customer asks for a morning visit.');
        },
        submit: 'Add note',
        target: new RegExp(`/dashboard/leads/${ids.work}\\?noted=1`),
        rows: () => count('lead_notes', ['lead_id', ids.work]),
      });
    });

    it('change the state', async () => {
      await sendReloadBack({
        formUrl: `/dashboard/leads/${ids.lead}`,
        fill: async () => {},
        submit: 'Mark as quoted',
        target: new RegExp(`/dashboard/leads/${ids.lead}\\?moved=quoted$`),
        rows: () => count('lead_status_history', ['lead_id', ids.lead]),
      });
    });

    it('change your password', async () => {
      const hash = async () =>
        (
          await db()
            .selectFrom('users')
            .select('password_hash')
            .where('id', '=', ids.owner)
            .executeTakeFirstOrThrow()
        ).password_hash;
      const hashes: string[] = [];
      const NEW_PASSWORD = 'another long test password';
      await sendReloadBack({
        formUrl: '/dashboard/settings/account',
        fill: async () => {
          await page.getByLabel('Current password').fill(PASSWORD);
          await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
          await page.getByLabel('New password again').fill(NEW_PASSWORD);
        },
        submit: 'Change password',
        target: /\/dashboard\/settings\/account\?done=password-changed$/,
        // Changed once: a second change would need the old password, which the form no longer has.
        rows: async () => {
          const now = await hash();
          if (!hashes.includes(now)) hashes.push(now);
          return hashes.length - 1;
        },
      });
      expect(hashes).toHaveLength(2);
    });
  });
});
