// The README's screenshots: the main pages in Dutch, at desktop and phone sizes, in Debian's Chromium
// (playwright-core) against the real server on a temporary SQLite file with a plumber's week of data.
// Run: npm run screenshots (writes docs/screenshots/*.png).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { createApiKey } from '../src/accounts/api-keys.js';
import { createBrand } from '../src/accounts/brands.js';
import { createUser } from '../src/accounts/users.js';
import { buildApp } from '../src/app.js';
import { createForm } from '../src/forms/forms.js';
import { createLead } from '../src/leads/index.js';
import { parseLeadInput } from '../src/leads/input.js';
import { addNote } from '../src/leads/notes.js';
import { changeLeadStatus } from '../src/leads/status-change.js';
import { loadConfig } from '../src/platform/config.js';

const OUT = path.resolve('docs/screenshots');
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };
const PASSWORD = 'Kraanwater-Zuid-2026!';

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const dir = mkdtempSync(path.join(tmpdir(), 'lead-intake-shots-'));
  const app = await buildApp(
    loadConfig({ DATA_DIR: dir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent' }),
    {
      logger: false,
      defaultMetrics: false,
    },
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const store = app.deps.database;
  const brand = await createBrand(store, {
    name: 'Loodgietersbedrijf De Vries',
    country: 'NL',
    language: 'nl',
  });
  await createUser(store, {
    brandId: brand.id,
    email: 'kantoor@devries.example',
    password: PASSWORD,
    name: 'Els',
  });
  const key = await createApiKey(store, { brandId: brand.id, name: 'Website', scopes: ['leads:write'] });
  const form = await createForm(store, brand.id, {
    name: 'Contactformulier',
    allowedOrigins: ['https://www.devries.example'],
  });
  const origin = { brandId: brand.id, source: 'website', keyId: key.id, keyName: key.name };
  const lead = (fields: Record<string, unknown>) =>
    createLead(
      store,
      origin,
      parseLeadInput({ street: 'Oudegracht', postalCode: '3511 AB', city: 'Utrecht', ...fields }),
    );
  const boiler = await lead({
    title: 'Cv-ketel maakt tikkend geluid',
    description: 'Sinds gisteren tikt de ketel bij het opwarmen. Merk Remeha, ongeveer 9 jaar oud.',
    customerName: 'Sanne Jansen',
    email: 'sanne@example.com',
    phone: '+31612345678',
    streetNumber: '12',
    priority: 'high',
  });
  await lead({
    title: 'Lekkende kraan in de keuken',
    customerName: 'Pieter Bakker',
    phone: '+31687654321',
    streetNumber: '4',
  });
  const visit = await lead({
    title: 'Radiator boven blijft koud',
    customerName: 'Noor de Boer',
    phone: '+31611112222',
    streetNumber: '88',
  });
  await changeLeadStatus(store, brand.id, visit.id, 'scheduled', null);
  await addNote(store, brand.id, boiler.id, 'Teruggebeld: morgen tussen 9 en 12 uur past.', {
    type: 'user',
    id: 'usr_shots',
    name: 'Els',
  });

  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  try {
    for (const [size, viewport] of Object.entries(SIZES)) {
      const context = await browser.newContext({
        viewport,
        locale: 'nl-NL',
        extraHTTPHeaders: { 'Accept-Language': 'nl-NL,nl;q=0.9' },
      });
      const page = await context.newPage();
      await page.goto(`${base}/sign-in`);
      await page.screenshot({ path: path.join(OUT, `nl-sign-in-${size}.png`) });
      await page.fill('input[name="email"]', 'kantoor@devries.example');
      await page.fill('input[name="password"]', PASSWORD);
      await Promise.all([page.waitForURL(/\/dashboard\//), page.click('button[type="submit"]')]);
      const shots: [string, string][] = [
        ['leads', '/dashboard/leads'],
        ['lead', `/dashboard/leads/${boiler.id}`],
        ['new-lead', '/dashboard/leads/new'],
        ['planning', '/dashboard/planning'],
        ['form', `/f/${form.id}`],
      ];
      for (const [name, url] of shots) {
        await page.goto(base + url);
        await page.screenshot({ path: path.join(OUT, `nl-${name}-${size}.png`) });
      }
      await context.close();
    }
  } finally {
    await browser.close();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`screenshots written to ${path.relative(process.cwd(), OUT)}`);
}

await main();
