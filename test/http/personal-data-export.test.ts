// GET /v1/customers/{id}/export: everything the brand holds about one person (every lead, spam too, with notes,
// history, activity, consent, extra fields, attribution and files' metadata), nothing of anyone else, recorded in
// the customer's activity and logged with ids only.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { createBrand } from '../../src/accounts/brands.js';
import { type App, buildApp } from '../../src/app.js';
import { type ApiClient, apiClient } from '../api.js';
import { dialects, dropSchema, formRateLimit, testConfig } from '../helpers.js';
import { captureLogs } from '../observability/support.js';
import { type PersonalDataFixture, personalDataFixture } from '../personal-data-fixture.js';

// biome-ignore lint/suspicious/noExplicitAny: the export's JSON, read freely
type Json = Record<string, any>;

describe.each(dialects())('the personal-data export on %s', (dialect) => {
  let app: App;
  let api: ApiClient;
  let brandId: string;
  let keyId: string;
  const keys = { full: '', read: '', other: '' };
  let fx: PersonalDataFixture;
  const logs = captureLogs();

  beforeAll(async () => {
    app = await buildApp(
      testConfig(dialect, { logLevel: 'info', logFormat: 'json', rateLimit: formRateLimit() }),
      { logger: { stream: logs.stream }, defaultMetrics: false, webhookWorker: false },
    );
    await app.ready();
    const database = app.deps.database;
    brandId = (await createBrand(database, { language: 'en', name: 'Acme Plumbing', country: 'NL' })).id;
    const other = await createBrand(database, { language: 'en', name: 'Other Builders', country: 'NL' });
    const full = await createApiKey(database, { brandId, name: 'Integration key', scopes: ['full'] });
    keyId = full.id;
    keys.full = full.key;
    keys.read = (await createApiKey(database, { brandId, name: 'read', scopes: ['customers:read'] })).key;
    keys.other = (await createApiKey(database, { brandId: other.id, name: 'other', scopes: ['full'] })).key;
    api = apiClient(app, keys.full);
    fx = await personalDataFixture(app, brandId, keys, keyId);
  }, 60_000);
  afterAll(async () => {
    if (!app) return;
    await dropSchema(app);
    await app.close();
  });

  const exportOf = (id: string, key = keys.full) => api.get(`/v1/customers/${id}/export`, { key });

  it('holds the customer, their addresses and every lead (spam too) as the single read, with notes and activity', async () => {
    const res = await exportOf(fx.customerId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="personal-data-${fx.customerId}.json"`,
    );
    expect(res.headers['cache-control']).toBe('no-store');
    const doc = res.json();
    expect(Date.parse(doc.exportedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(doc.brand).toEqual({ id: brandId, name: 'Acme Plumbing' });
    expect(doc.customer).toEqual(await api.read(`/v1/customers/${fx.customerId}`));
    const addresses = (await api.read('/v1/addresses?limit=100')).data.filter(
      (a: { customerId: string }) => a.customerId === fx.customerId,
    );
    expect(doc.addresses).toHaveLength(addresses.length);
    expect(doc.addresses).toEqual(expect.arrayContaining(addresses));

    const leads = doc.leads as Json[];
    expect(leads.map((l) => l.id)).toEqual([fx.apiLeadId, fx.formLeadId, fx.spamLeadId]);
    expect(leads.map((l) => l.spam)).toEqual([false, false, true]);
    // The real leads exactly as the single read has them, plus their internal notes and activity.
    for (const lead of leads.slice(0, 2)) {
      const { spam: _spam, internalNotes: _notes, activity: _activity, ...read } = lead;
      expect(read).toEqual(await api.read(`/v1/leads/${lead.id}`));
    }
    const [apiLead, formLead, spamLead] = leads as [Json, Json, Json];
    expect(apiLead.notes).toBe('The dog is friendly.');
    expect(apiLead.internalNotes.map((n: { text: string }) => n.text)).toEqual([
      'Called back: prefers mornings.',
    ]);
    expect(apiLead.internalNotes).toEqual((await api.read(`/v1/leads/${fx.apiLeadId}/notes`)).data);
    expect(apiLead.statusHistory.map((h: { status: string }) => h.status)).toEqual(['request', 'quoted']);
    expect(apiLead.activity).toMatchObject([
      { kind: 'edited', detail: { changed: ['title'], to: { title: 'Leaking kitchen tap' } } },
    ]);
    expect(apiLead.submitted).toMatchObject({ email: fx.email, phone: '+31612345678' });
    expect(apiLead.attachments.map((a: { fileName: string }) => a.fileName)).toEqual([
      'kitchen.jpg',
      'Offerte één (2).pdf',
    ]);
    expect(formLead).toMatchObject({
      source: 'form',
      consent: { text: 'I agree to be contacted' },
      extraFields: { houseType: 'flat' },
      attribution: { utm_source: 'newsletter', landingPage: '/ketel' },
    });
    // Spam: no single read shows it, the export does, with its submission and its file's metadata.
    expect((await api.get(`/v1/leads/${fx.spamLeadId}`)).statusCode).toBe(404);
    expect(spamLead).toMatchObject({
      title: 'Cheap pills',
      submitted: { email: fx.email },
      internalNotes: [],
    });
    expect(spamLead.attachments.map((a: { fileName: string }) => a.fileName)).toEqual(['spam.png']);
    const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
    for (const lead of leads) {
      for (const a of lead.attachments) {
        expect(a.leadId).toBe(lead.id);
        expect(a.sha256).toBe(sha(fx.uploads.get(a.id)!));
      }
    }
    expect(leads.flatMap((l) => l.attachments)).toHaveLength(fx.uploads.size);
  });

  it('holds nothing of another customer or another brand', async () => {
    const text = (await exportOf(fx.customerId)).body;
    for (const foreign of fx.foreign) expect(text).not.toContain(foreign);
    // The other brand's customer with the same email gets its own export, from its own brand only.
    const theirs = await exportOf(fx.otherBrandCustomerId, keys.other);
    expect(theirs.statusCode).toBe(200);
    expect(theirs.json().leads).toHaveLength(1);
    expect(theirs.body).not.toContain(fx.apiLeadId);
  });

  it('404 for an unknown id and for another brand’s customer, either way round; 403 without the full scope', async () => {
    const unknown = await exportOf('cus_cgayhqrssy2sbx1yhb4hcqc5t4');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((await exportOf(fx.otherBrandCustomerId)).statusCode).toBe(404);
    expect((await exportOf(fx.customerId, keys.other)).statusCode).toBe(404);
    const refused = await exportOf(fx.customerId, keys.read);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().detail).toContain('full');
    expect((await api.get(`/v1/customers/${fx.customerId}/export`, { key: null })).statusCode).toBe(401);
  });

  it('records each export in the customer’s activity and logs one line, with ids only', async () => {
    const before = logs.lines.length;
    const res = await exportOf(fx.customerId);
    expect(res.statusCode).toBe(200);
    const rows = await app.deps.database.db
      .selectFrom('customer_activity')
      .selectAll()
      .where('customer_id', '=', fx.customerId)
      .where('kind', '=', 'exported')
      .orderBy('at')
      .orderBy('id')
      .execute();
    const last = rows[rows.length - 1]!;
    expect(last).toMatchObject({
      brand_id: brandId,
      actor_type: 'key',
      actor_id: keyId,
      actor_name: 'Integration key',
      detail: '{}',
    });
    const lines = logs.lines.slice(before).filter((l) => l.msg === 'personal data exported');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      brandId,
      customerId: fx.customerId,
      actor: { type: 'key', id: keyId },
      kind: 'exported',
    });
    const logged = JSON.stringify(logs.lines.slice(before));
    for (const personal of [fx.email, 'Anna Export', 'Keizersgracht', 'Integration key', 'mornings']) {
      expect(logged).not.toContain(personal);
    }
    // The next export lists this one in the customer's activity.
    const next = (await exportOf(fx.customerId)).json();
    expect(next.activity.map((a: { id: string }) => a.id)).toContain(last.id);
    expect(next.activity.find((a: { id: string }) => a.id === last.id)).toMatchObject({
      kind: 'exported',
      actor: { type: 'key', id: keyId, name: 'Integration key' },
      detail: {},
    });
  });

  it('an erased customer’s export is the erased read, with no personal data', async () => {
    const created = (
      await api.post('/v1/leads', {
        customerName: 'Erin Erased',
        email: 'erin-erased@example.com',
        street: 'Damrak',
        streetNumber: '1',
        postalCode: '1012 LG',
        city: 'Amsterdam',
        title: 'Tiles',
      })
    ).json();
    const erased = await api.post(`/v1/customers/${created.customerId}/erase`, {});
    expect(erased.statusCode, erased.body).toBe(200);
    const res = await exportOf(created.customerId);
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.customer).toEqual(await api.read(`/v1/customers/${created.customerId}`));
    expect(doc.customer).toMatchObject({
      id: created.customerId,
      erased: true,
      erasedAt: erased.json().erasedAt,
    });
    expect(doc).toMatchObject({ addresses: [], leads: [], activity: [] });
    expect(res.body).not.toContain('Erin');
    expect(res.body).not.toContain('erin-erased@example.com');
    expect(res.body).not.toContain('Damrak');
  });
});
