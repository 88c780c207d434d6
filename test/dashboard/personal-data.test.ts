// The customer page's "Personal data" card and its ZIP: for admins only; the ZIP holds the API's JSON document,
// every attachment's bytes exactly as uploaded, and a README in the brand's language.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { createBrand } from '../../src/accounts/brands.js';
import { type App, buildApp } from '../../src/app.js';
import { safeFileName } from '../../src/personal-data/zip.js';
import { apiClient } from '../api.js';
import { dialects, dropSchema, formRateLimit, testConfig } from '../helpers.js';
import { type PersonalDataFixture, personalDataFixture, unzip } from '../personal-data-fixture.js';
import { addUser, type Browser, signedIn, textOf } from './helpers.js';

describe.each(dialects())('personal data on the customer page on %s', (dialect) => {
  let app: App;
  let brandId: string;
  let ownerId: string;
  let owner: Browser;
  let member: Browser;
  let fx: PersonalDataFixture;
  const keys = { full: '', other: '' };

  beforeAll(async () => {
    app = await buildApp(testConfig(dialect, { rateLimit: formRateLimit() }), {
      logger: false,
      defaultMetrics: false,
      webhookWorker: false,
    });
    await app.ready();
    const database = app.deps.database;
    brandId = (await createBrand(database, { language: 'nl', name: 'Acme Loodgieters', country: 'NL' })).id;
    const other = await createBrand(database, { language: 'en', name: 'Other Builders', country: 'NL' });
    const full = await createApiKey(database, { brandId, name: 'site', scopes: ['full'] });
    keys.full = full.key;
    keys.other = (await createApiKey(database, { brandId: other.id, name: 'other', scopes: ['full'] })).key;
    fx = await personalDataFixture(app, brandId, keys, full.id);
    ownerId = (await addUser(app, brandId, 'owner@acme.example', 'owner')).id;
    await addUser(app, brandId, 'member@acme.example', 'member');
    owner = await signedIn(app, 'owner@acme.example');
    member = await signedIn(app, 'member@acme.example');
  }, 60_000);
  afterAll(async () => {
    if (!app) return;
    await dropSchema(app);
    await app.close();
  });

  const zipUrl = () => `/dashboard/customers/${fx.customerId}/personal-data.zip`;
  const card = (html: string) =>
    /<section class="card" id="personal-data"[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';

  it('an admin sees the card at the end of the page with the download; a member is told who can', async () => {
    const page = await owner.get(`/dashboard/customers/${fx.customerId}`);
    expect(page.statusCode).toBe(200);
    const mine = card(page.body);
    expect(mine).toContain(`href="${zipUrl()}"`);
    expect(textOf(mine)).toContain('Download personal data');
    expect(page.body.trimEnd().indexOf('id="personal-data"')).toBeGreaterThan(
      page.body.indexOf('id="leads-title"'),
    );

    const theirs = card((await member.get(`/dashboard/customers/${fx.customerId}`)).body);
    expect(theirs).not.toContain('personal-data.zip');
    expect(textOf(theirs)).toContain(
      'Only an admin of Acme Loodgieters can download or erase a customer’s personal data.',
    );
  });

  it('a member gets 403 and no ZIP; nothing is recorded', async () => {
    const res = await member.get(zipUrl());
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const rows = await app.deps.database.db
      .selectFrom('customer_activity')
      .select('id')
      .where('customer_id', '=', fx.customerId)
      .execute();
    expect(rows).toEqual([]);
  });

  it('an admin’s ZIP: the API’s JSON, every file byte for byte, and a README in the brand’s language', async () => {
    const res = await owner.get(zipUrl());
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="personal-data-${fx.customerId}.zip"`,
    );
    expect(res.headers['cache-control']).toBe('no-store');
    const entries = await unzip(res.rawPayload);
    const fromZip = JSON.parse(entries.get('personal-data.json')!.toString('utf8'));

    // The API's export, made after it: the same document, but for its time and this ZIP's export in the activity.
    const api = apiClient(app, keys.full);
    const fromApi = await api.read(`/v1/customers/${fx.customerId}/export`);
    expect(fromApi.activity.slice(0, -1)).toEqual(fromZip.activity);
    expect({ ...fromApi, exportedAt: 'x', activity: [] }).toEqual({
      ...fromZip,
      exportedAt: 'x',
      activity: [],
    });
    expect(fromApi.activity.at(-1)).toMatchObject({
      kind: 'exported',
      actor: { type: 'user', id: ownerId, name: 'owner@acme.example' },
      detail: {},
    });

    const files = (
      fromZip.leads as { id: string; attachments: { id: string; fileName: string }[] }[]
    ).flatMap((lead) =>
      lead.attachments.map((a) => ({
        ...a,
        path: `attachments/${lead.id}/${a.id}-${safeFileName(a.fileName)}`,
      })),
    );
    expect(files).toHaveLength(fx.uploads.size);
    for (const file of files) expect(entries.get(file.path)?.equals(fx.uploads.get(file.id)!)).toBe(true);
    expect(files.find((f) => f.fileName.startsWith('Offerte'))!.path).toMatch(/-Offerte_een_2_\.pdf$/);
    expect([...entries.keys()].sort()).toEqual(
      ['README.txt', 'personal-data.json', ...files.map((f) => f.path)].sort(),
    );

    const readme = entries.get('README.txt')!.toString('utf8');
    expect(readme).toContain('Persoonsgegevens bij Acme Loodgieters');
    expect(readme).toContain(fx.customerId);
    expect(readme).toContain('de 3 bestanden');
    expect(readme).not.toContain(fx.email);
  });

  it('404 for another brand’s customer and an unknown one', async () => {
    expect(
      (await owner.get(`/dashboard/customers/${fx.otherBrandCustomerId}/personal-data.zip`)).statusCode,
    ).toBe(404);
    expect(
      (await owner.get('/dashboard/customers/cus_cgayhqrssy2sbx1yhb4hcqc5t4/personal-data.zip')).statusCode,
    ).toBe(404);
  });

  // Last: it removes a stored file.
  it('a file whose bytes are missing breaks the download off instead of sending a ZIP without it', async () => {
    const row = await app.deps.database.db
      .selectFrom('attachments')
      .select('storage_key')
      .where('lead_id', '=', fx.spamLeadId)
      .executeTakeFirstOrThrow();
    await app.deps.storage.delete(row.storage_key);
    await expect(owner.get(zipUrl())).rejects.toThrow(/destroyed before completion/);
  });
});
