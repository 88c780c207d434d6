// The README's screenshots: the main pages in Dutch, at desktop and phone sizes, in Debian's Chromium
// (playwright-core) against the real server on a temporary SQLite file with a plumber's week of data.
// Run: npm run screenshots (writes docs/screenshots/*.png); `npm run screenshots -- --only start,brand` takes only
// those pages (names as in `shots` below, plus sign-in and lead-photos).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import sharp from 'sharp';
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

/** The pages to take: all, or those `--only a,b` names. */
function wanted(): (name: string) => boolean {
  const at = process.argv.indexOf('--only');
  if (at === -1) return () => true;
  const names = new Set((process.argv[at + 1] ?? '').split(','));
  return (name) => names.has(name);
}

async function main(): Promise<void> {
  const take = wanted();
  mkdirSync(OUT, { recursive: true });
  const dir = mkdtempSync(path.join(tmpdir(), 'lead-intake-shots-'));
  const app = await buildApp(
    loadConfig({
      DATA_DIR: dir,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'silent',
      // The address links are made with (the account page's calendar feeds).
      PUBLIC_URL: 'https://leads.devries.example',
    }),
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

  // A customer's request with photos, sent the way the snippet sends it (multipart, from the allowed origin).
  const photoLeadId = await postWithPhotos(base, form.id);

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
      if (take('sign-in')) await page.screenshot({ path: path.join(OUT, `nl-sign-in-${size}.png`) });
      await page.fill('input[name="email"]', 'kantoor@devries.example');
      await page.fill('input[name="password"]', PASSWORD);
      await Promise.all([page.waitForURL(/\/dashboard\//), page.click('button[type="submit"]')]);
      const shots: [string, string][] = [
        ['leads', '/dashboard/leads'],
        ['lead', `/dashboard/leads/${boiler.id}`],
        ['new-lead', '/dashboard/leads/new'],
        ['planning', '/dashboard/planning'],
        ['form', `/f/${form.id}`],
        // Get started, as a business sees it with its form made and its first website lead in.
        ['start', '/dashboard/start'],
        ['brand', '/dashboard/settings/brand'],
      ];
      for (const [name, url] of shots.filter(([name]) => take(name))) {
        await page.goto(base + url);
        await page.screenshot({ path: path.join(OUT, `nl-${name}-${size}.png`) });
      }
      // Settings > Your account, whole: the calendar feeds' addresses (webcal and https) and "Nieuwe link".
      await page.goto(`${base}/dashboard/settings/account`);
      await page.screenshot({ path: path.join(OUT, `nl-account-${size}.png`), fullPage: true });
      // The lead page's photos: the thumbnails the customer's photos became, and the field to add more.
      if (take('lead-photos')) {
        await page.goto(`${base}/dashboard/leads/${photoLeadId}`);
        await page.locator('#files img').last().waitFor();
        await page.locator('#files').screenshot({ path: path.join(OUT, `nl-lead-photos-${size}.png`) });
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

/** A drawing as a photo: an SVG rendered to a JPEG by sharp, as a phone would send it. */
function picture(svg: string): Promise<Buffer> {
  return sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="900">${svg}</svg>`))
    .jpeg({ quality: 85 })
    .toBuffer();
}

async function postWithPhotos(base: string, formId: string): Promise<string> {
  const photos: [string, string][] = [
    [
      'ketel.jpg',
      '<rect width="1200" height="900" fill="#d9d4c7"/><rect x="400" y="120" width="400" height="620" rx="30" fill="#f4f4f2" stroke="#9a9a96" stroke-width="8"/><circle cx="600" cy="330" r="70" fill="#2f6f9f"/><rect x="470" y="520" width="260" height="40" rx="8" fill="#1d1d1b"/><rect x="520" y="740" width="30" height="160" fill="#b87333"/><rect x="650" y="740" width="30" height="160" fill="#b87333"/>',
    ],
    [
      'lekkage.jpg',
      '<rect width="1200" height="900" fill="#e8e2d6"/><rect x="0" y="380" width="1200" height="70" fill="#b87333"/><rect x="560" y="360" width="90" height="110" fill="#8f5a28"/><ellipse cx="605" cy="560" rx="16" ry="26" fill="#3f8fd0"/><ellipse cx="600" cy="660" rx="12" ry="20" fill="#3f8fd0"/><ellipse cx="610" cy="840" rx="220" ry="30" fill="#7fb3dc"/>',
    ],
    [
      'meterkast.jpg',
      '<rect width="1200" height="900" fill="#cfcac0"/><rect x="250" y="150" width="700" height="600" fill="#fafaf8" stroke="#777" stroke-width="6"/><rect x="320" y="220" width="240" height="160" fill="#333"/><text x="440" y="320" font-size="60" fill="#7cfc00" text-anchor="middle" font-family="monospace">0427</text><rect x="640" y="220" width="240" height="460" fill="#e0e0dc"/><rect x="320" y="450" width="240" height="230" fill="#e0e0dc"/>',
    ],
  ];
  const body = new FormData();
  const fields: Record<string, string> = {
    title: 'Lekkage onder de cv-ketel',
    description:
      'Er drupt water uit de leiding onder de ketel. Foto’s van de ketel, de lekkage en de meterkast.',
    customerName: 'Fatima El Amrani',
    email: 'fatima@example.com',
    phone: '06 2345 6789',
    street: 'Biltstraat',
    streetNumber: '31',
    postalCode: '3572 AC',
    city: 'Utrecht',
  };
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  for (const [name, svg] of photos) {
    body.append('attachments', new Blob([await picture(svg)], { type: 'image/jpeg' }), name);
  }
  const res = await fetch(`${base}/f/${formId}`, {
    method: 'POST',
    headers: { origin: 'https://www.devries.example', accept: 'application/json' },
    body,
  });
  if (res.status !== 201)
    throw new Error(`the form post with photos failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

await main();
