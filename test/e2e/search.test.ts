// A returning customer found in real Chromium (Debian's /usr/bin/chromium via playwright-core), against the real
// server on a random port with a temporary SQLite file, in Dutch: Anja Visser phones again; the office types her
// name in the search in the header (by keyboard) and finds last year's completed job, the cancelled one and the
// new request, and Anja herself, and nothing of another brand's Anja Visser; her national phone number finds her
// too; the Klanten page lists the plumber's customers and finds her by postal code. Screenshots go to
// test-results/search/, and with UPDATE_SCREENSHOTS=1 also to docs/screenshots/ (customers.png and search.png, in
// the README).
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { createBrand } from '../../src/accounts/brands.js';
import type { App } from '../../src/app.js';
import { createLead, parseLeadPatch, patchLead } from '../../src/leads/index.js';
import { parseLeadInput } from '../../src/leads/input.js';
import { changeLeadStatus } from '../../src/leads/status-change.js';
import { addUser } from '../dashboard/helpers.js';
import { chromiumRuns, launchChromium, requireChromium, waitForText } from './chromium.js';
import { collectPolicyViolations, type E2eServer, signIn, startServer } from './server.js';

const withChromium = chromiumRuns('the search end-to-end test');

const SHOTS = path.resolve('test-results/search');
const DOC_SHOTS = path.resolve('docs/screenshots');
const OFFICE = 'kantoor@devries.example';
const DAY = 24 * 60 * 60 * 1000;
const YEAR = 365 * DAY;

/** The customers of a plumber in Utrecht: name, company, phone, address and their jobs (newest last). */
const CUSTOMERS: {
  customerName: string;
  companyName?: string;
  email?: string;
  phone?: string;
  street: string;
  streetNumber: string;
  postalCode: string;
  jobs: string[];
}[] = [
  {
    customerName: 'Piet Bakker',
    companyName: 'Bakker Vastgoedbeheer B.V.',
    email: 'onderhoud@bakkervastgoed.example',
    phone: '+31 30 234 5678',
    street: 'Maliebaan',
    streetNumber: '44',
    postalCode: '3581 CR',
    jobs: ['Jaarlijks onderhoud cv-ketels (6 woningen)', 'Lekkage dakgoot Maliebaan 44'],
  },
  {
    customerName: 'Fatima El Amrani',
    email: 'fatima.elamrani@example.nl',
    phone: '+31 6 2345 6789',
    street: 'Biltstraat',
    streetNumber: '31',
    postalCode: '3572 AC',
    jobs: ['Lekkage onder de cv-ketel'],
  },
  {
    customerName: 'Joris van Dam',
    phone: '+31 6 8765 4321',
    street: 'Twijnstraat',
    streetNumber: '7',
    postalCode: '3511 ZH',
    jobs: ['Radiator boven blijft koud', 'Thermostaat vervangen', 'Vloerverwarming ontluchten'],
  },
  {
    customerName: 'Sanne Jansen',
    email: 'sanne.jansen@example.nl',
    phone: '+31 6 1234 5678',
    street: 'Oudegracht',
    streetNumber: '12',
    postalCode: '3511 AB',
    jobs: ['Cv-ketel maakt tikkend geluid'],
  },
  {
    customerName: 'Willem Smit',
    email: 'w.smit@example.nl',
    street: 'Amsterdamsestraatweg',
    streetNumber: '210',
    postalCode: '3551 CX',
    jobs: ['Boiler lekt'],
  },
  {
    customerName: 'Lotte Mulder',
    phone: '+31 6 5555 1234',
    street: 'Lange Nieuwstraat',
    streetNumber: '88',
    postalCode: '3512 PK',
    jobs: ['Afvoer keuken verstopt'],
  },
  {
    customerName: 'Noor de Boer',
    email: 'noor.deboer@example.nl',
    phone: '+31 6 1111 2222',
    street: 'Kanaalstraat',
    streetNumber: '150',
    postalCode: '3531 CK',
    jobs: ['Nieuwe badkamerkraan plaatsen'],
  },
];

const ANJA = {
  customerName: 'Anja Visser',
  email: 'anja.visser@example.nl',
  phone: '+31 6 4123 8765',
  street: 'Nachtegaalstraat',
  streetNumber: '19',
  postalCode: '3581 AC',
  city: 'Utrecht',
};

describe.skipIf(!withChromium)('finding a returning customer in Chromium', () => {
  let server: E2eServer;
  let app: App;
  let base: string;
  let browser: Browser;
  let page: Page;
  const policyViolations: string[] = [];
  const ids: Record<string, string> = {};

  const shot = async (name: string) => {
    const file = path.join(SHOTS, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    if (process.env.UPDATE_SCREENSHOTS === '1') {
      mkdirSync(DOC_SHOTS, { recursive: true });
      copyFileSync(file, path.join(DOC_SHOTS, `${name}.png`));
    }
  };

  /** Runs `fn` with the clock (Date only) at `time`: leads and state changes of the past. */
  async function at<T>(time: number, fn: () => Promise<T>): Promise<T> {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(time);
    try {
      return await fn();
    } finally {
      vi.useRealTimers();
    }
  }

  beforeAll(async () => {
    requireChromium();
    mkdirSync(SHOTS, { recursive: true });
    server = await startServer('search');
    ({ app, base } = server);
    const store = app.deps.database;
    const brand = await createBrand(store, {
      name: 'Loodgietersbedrijf De Vries',
      country: 'NL',
      language: 'nl',
    });
    const office = await addUser(app, brand.id, OFFICE);
    await store.db
      .updateTable('users')
      .set({ language: 'nl', name: 'Els' })
      .where('id', '=', office.id)
      .execute();
    const actor = { type: 'user' as const, id: office.id, name: 'Els' };
    const key = await createApiKey(store, { brandId: brand.id, name: 'Website', scopes: ['leads:write'] });
    const origin = { brandId: brand.id, source: 'website', keyId: key.id, keyName: key.name };
    const lead = (fields: Record<string, unknown>) =>
      createLead(store, origin, parseLeadInput({ city: 'Utrecht', ...fields }));

    // Last year: Anja's boiler replaced (planned, done, completed), and a blocked drain she cancelled herself.
    const lastYear = Date.now() - YEAR;
    const boiler = await at(lastYear, () =>
      lead({
        ...ANJA,
        title: 'Cv-ketel vervangen',
        description: 'Oude Nefit-ketel (2009) geeft storing; graag offerte voor een nieuwe HR-ketel.',
      }),
    );
    ids.boiler = boiler.id;
    ids.anja = boiler.customerId;
    const visit = new Date(lastYear + 7 * DAY);
    visit.setUTCHours(8, 0, 0, 0);
    await at(lastYear + DAY, () =>
      patchLead(
        store,
        brand.id,
        boiler.id,
        parseLeadPatch({
          status: 'scheduled',
          scheduledFor: visit.toISOString(),
          durationMinutes: 240,
          assigneeId: office.id,
        }),
        actor,
      ),
    );
    for (const [i, status] of (['planned', 'in_progress', 'completed'] as const).entries()) {
      await at(visit.getTime() + i * 3_600_000, () =>
        changeLeadStatus(store, brand.id, boiler.id, status, actor),
      );
    }
    const drain = await at(lastYear + 60 * DAY, () => lead({ ...ANJA, title: 'Afvoer douche ontstoppen' }));
    await at(lastYear + 61 * DAY, () =>
      changeLeadStatus(store, brand.id, drain.id, 'cancelled', actor, {
        reason: 'Klant heeft het zelf opgelost',
      }),
    );
    // This year: the plumber's other customers, some of them with more than one job.
    for (const [n, { jobs, ...customer }] of CUSTOMERS.entries()) {
      for (const [j, title] of jobs.entries()) {
        await at(Date.now() - (CUSTOMERS.length - n) * 9 * DAY + j * DAY, () => lead({ ...customer, title }));
      }
    }
    // And today Anja phones again.
    ids.tap = (await lead({ ...ANJA, title: 'Kraan lekt in de keuken', priority: 'high' })).id;

    // Another plumber has a customer with the same name: never shown here.
    const other = await createBrand(store, {
      name: 'Installatiebedrijf Zuid',
      country: 'NL',
      language: 'nl',
    });
    const otherKey = await createApiKey(store, { brandId: other.id, name: 'Site', scopes: ['leads:write'] });
    await createLead(
      store,
      { brandId: other.id, source: 'website', keyId: otherKey.id, keyName: otherKey.name },
      parseLeadInput({ ...ANJA, email: 'anja@elders.example', title: 'Geiser vervangen (ander bedrijf)' }),
    );

    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    collectPolicyViolations(page, policyViolations);
    await signIn(page, base, OFFICE);
  }, 120_000);

  afterAll(async () => {
    vi.useRealTimers();
    await browser?.close();
    await server?.close();
  });

  it('by keyboard: the header search finds last year’s completed job, the cancelled one, the new lead and Anja', async () => {
    await page.goto(`${base}/dashboard/planning`);
    // The header in Dutch as in English: brand, search and account on the first row, the navigation below.
    const centre = async (box: { y: number; height: number } | null) => box!.y + box!.height / 2;
    const searchRow = await centre(await page.locator('#site-search-q').boundingBox());
    expect(
      Math.abs((await centre(await page.getByRole('link', { name: OFFICE }).boundingBox())) - searchRow),
    ).toBeLessThan(12);
    expect(
      await centre(await page.getByRole('link', { name: 'Aanvragen', exact: true }).boundingBox()),
    ).toBeGreaterThan(searchRow + 20);
    // From the top of the page, Tab reaches the search box before anything of the page itself.
    const reached: string[] = [];
    for (
      let i = 0;
      i < 5 && (await page.evaluate<string>('document.activeElement.id')) !== 'site-search-q';
      i++
    ) {
      await page.keyboard.press('Tab');
      reached.push(
        await page.evaluate<string>('document.activeElement.id || document.activeElement.tagName'),
      );
    }
    expect(reached.at(-1), `Tab went to ${reached.join(', ')}`).toBe('site-search-q');
    const search = page.getByRole('searchbox', { name: 'Zoek in aanvragen, werkbonnen en klanten' });
    expect(await search.getAttribute('id')).toBe('site-search-q');
    await page.keyboard.type('Visser');
    await Promise.all([page.waitForURL(`${base}/dashboard/search?q=Visser`), page.keyboard.press('Enter')]);
    await waitForText(page, 'h1', 'Zoeken');

    const groupRows = async (id: string) =>
      page
        .locator(`section[aria-labelledby="${id}"] table.list tbody tr`)
        .evaluateAll((rows) =>
          rows.map((row) => [
            row.querySelector('td.cell-title a')?.textContent?.trim() ?? '',
            row.querySelector('td[data-label="Fase"] .badge')?.textContent?.trim() ?? '',
          ]),
        );
    expect(await groupRows('search-leads')).toEqual([
      ['Kraan lekt in de keuken', 'Aanvraag'],
      ['Afvoer douche ontstoppen', 'Geannuleerd'],
    ]);
    expect(await groupRows('search-work-items')).toEqual([['Cv-ketel vervangen', 'Afgerond']]);
    const customers = page.locator('section[aria-labelledby="search-customers"] table.list tbody tr');
    expect(await customers.locator('td.cell-title').allTextContents()).toEqual(['Anja Visser']);
    const main = (await page.locator('main').textContent()) ?? '';
    expect(main).not.toContain('ander bedrijf');
    expect(main).not.toContain('anja@elders.example');
    await shot('search');

    // Last year's job opens from its group's list, where the count agrees.
    await page
      .locator('section[aria-labelledby="search-work-items"]')
      .getByRole('link', { name: '1 resultaat in de lijst' })
      .click();
    await page.waitForURL(`${base}/dashboard/work-items?q=Visser`);
    expect(await page.locator('.list-count').textContent()).toBe('1–1 van 1');
    await page.getByRole('link', { name: 'Cv-ketel vervangen' }).click();
    await page.waitForURL(`${base}/dashboard/leads/${ids.boiler}`);
    await waitForText(page, 'h1', 'Cv-ketel vervangen');
    expect(policyViolations).toEqual([]);
  });

  it('her phone number as people say it finds her too, and her page has every job', async () => {
    const search = page.getByRole('searchbox', { name: 'Zoek in aanvragen, werkbonnen en klanten' });
    await search.fill('0641238765');
    await Promise.all([page.waitForURL(/\/dashboard\/search\?q=0641238765$/), search.press('Enter')]);
    const customers = page.locator('section[aria-labelledby="search-customers"]');
    await customers.getByRole('link', { name: 'Anja Visser' }).click();
    await page.waitForURL(`${base}/dashboard/customers/${ids.anja}`);
    expect(await page.locator('table.customer-leads td.cell-title').allTextContents()).toEqual([
      'Kraan lekt in de keuken',
      'Afvoer douche ontstoppen',
      'Cv-ketel vervangen',
    ]);
  });

  it('Klanten lists the customers, newest first, and finds Anja by postal code', async () => {
    await page.getByRole('navigation', { name: 'Hoofdmenu' }).getByRole('link', { name: 'Klanten' }).click();
    await page.waitForURL(`${base}/dashboard/customers`);
    const names = await page.locator('table.customer-list td.cell-title > a').allTextContents();
    expect(names).toEqual([
      'Noor de Boer',
      'Lotte Mulder',
      'Willem Smit',
      'Sanne Jansen',
      'Joris van Dam',
      'Fatima El Amrani',
      'Bakker Vastgoedbeheer B.V.',
      'Anja Visser',
    ]);
    const joris = page.locator('table.customer-list tr', { hasText: 'Joris van Dam' });
    expect(await joris.locator('td[data-label="Aanvragen"]').textContent()).toBe('3');
    expect(await joris.locator('td[data-label="Telefoon"]').textContent()).toBe('06 87654321');
    expect(await page.locator('.list-count').textContent()).toBe('1–8 van 8');
    await shot('customers');

    await page.getByLabel('Zoek klanten').fill('3581 AC');
    await Promise.all([
      page.waitForURL(`${base}/dashboard/customers?q=3581+AC`),
      page.getByRole('button', { name: 'Zoeken', exact: true }).last().click(),
    ]);
    expect(await page.locator('table.customer-list td.cell-title > a').allTextContents()).toEqual([
      'Anja Visser',
    ]);
    expect(policyViolations).toEqual([]);
  });
});
