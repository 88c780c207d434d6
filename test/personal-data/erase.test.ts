// Erasing a customer (contract "Personal data"): every value the person gave is gone from every copy the service
// keeps (API reads, search, CSV, events and webhook deliveries, idempotency records, mail, the search index and,
// on SQLite, the database files byte for byte), the business's own record stays, and nobody else is touched.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLeadChanges, updateLead } from '../../src/leads/update.js';
import { formPoster } from '../api.js';
import { jpeg } from '../attachments/files.js';
import {
  createTestContext,
  dialects,
  TEST_WEBHOOKS,
  type TestContext,
  testConfig,
  waitFor,
} from '../helpers.js';
import { testMail } from '../mail/smtp.js';
import { multipart } from '../multipart.js';
import { type Receiver, startReceiver } from '../receiver.js';

const ORIGIN = 'https://www.loodgieter.example';

/** A person whose every value is unique to this run, so finding any of them anywhere is a finding. */
function person(tag: string) {
  const r = randomBytes(4).toString('hex');
  return {
    customerName: `Zwaantje Wisvaart${tag}${r}`,
    firstName: `Zwaantje${tag}${r}`,
    lastName: `Wisvaart${tag}${r}`,
    email: `zwaantje.${tag}${r}@wisvaart.example`,
    phone: `+3161${String(Number.parseInt(r, 16) % 10_000_000).padStart(7, '0')}`,
    companyName: `Wisvaart Bouw${tag}${r}`,
    street: `Vergeetstraat${tag}${r}`,
    streetNumber: '77',
    streetNumberAddition: `bis${tag}`,
    postalCode: '1015 CJ',
    city: 'Amsterdam',
    description: `Lekkage bij de buren van ${tag}${r}`,
    budgetQuote: `Budget ${tag}${r} euro`,
    notes: `Bel na vijven ${tag}${r}`,
  };
}

/** The values of a person that must be gone (the phone also as its digits, as the search index holds it). */
const secrets = (p: ReturnType<typeof person>) => [
  p.customerName,
  p.firstName,
  p.lastName,
  p.email,
  p.phone,
  p.phone.slice(1),
  p.companyName,
  p.street,
  p.description,
  p.budgetQuote,
  p.notes,
];

describe.each(dialects())('erasing a customer on %s', (dialect) => {
  let ctx: TestContext;
  let receiver: Receiver;
  let dir: string;
  let formId: string;
  const files = () => ctx.app.deps.config.attachments.storage;

  beforeAll(async () => {
    receiver = await startReceiver();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erase-'));
    ctx = await createTestContext(dialect, {
      webhooks: TEST_WEBHOOKS,
      // Mail stays queued: nothing listens there.
      mail: testMail('smtp://127.0.0.1:1'),
      publicUrl: 'https://leads.loodgieter.example',
      ...(dialect === 'sqlite'
        ? { database: { dialect: 'sqlite' as const, file: path.join(dir, 'lead-intake.sqlite') } }
        : {}),
    });
    const hook = await ctx.api.post('/v1/webhook-endpoints', { url: receiver.url('/hook') });
    expect(hook.statusCode, hook.body).toBe(201);
    const form = await ctx.api.post('/v1/forms', {
      name: 'Website',
      allowedOrigins: [ORIGIN],
      autoReply: true,
      consentText: 'Ik ga akkoord met de privacyverklaring.',
    });
    expect(form.statusCode, form.body).toBe(201);
    formId = form.json().id;
  });
  afterAll(async () => {
    await ctx?.close();
    await receiver?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A customer with three leads (one by the form, with consent, extra fields and attribution), notes, a photo and an edit. */
  async function personWithEverything(tag: string) {
    const p = person(tag);
    const { description, budgetQuote, notes, ...contact } = p;
    const first = await ctx.api.post(
      '/v1/leads',
      { ...contact, title: `Lekkende kraan ${tag}`, description, budgetQuote, notes },
      { headers: { 'idempotency-key': `erase-${tag}-${randomBytes(4).toString('hex')}` } },
    );
    expect(first.statusCode, first.body).toBe(201);
    const leadId = first.json().id as string;
    const customerId = first.json().customerId as string;
    const second = await ctx.createLead({ ...contact, title: `Nieuwe cv-ketel ${tag}`, description });
    const posted = await formPoster(() => ctx.app, ORIGIN).form(formId, {
      ...contact,
      title: `Badkamer ${tag}`,
      description,
      consent: 'on',
      utm_source: `nieuwsbrief-${p.lastName}`,
      hoe_gevonden: `Via de buurman ${p.lastName}`,
    });
    expect(posted.statusCode, posted.body).toBe(303);
    const note = await ctx.api.post(`/v1/leads/${leadId}/notes`, {
      text: `Klant ${p.customerName} belt terug`,
    });
    expect(note.statusCode, note.body).toBe(201);
    const photo = multipart([
      { filename: `${p.lastName}-keuken.jpg`, type: 'image/jpeg', data: await jpeg(64, 48) },
    ]);
    const uploaded = await ctx.app.inject({
      method: 'POST',
      url: `/v1/leads/${leadId}/attachments`,
      headers: { ...photo.headers, 'x-api-key': ctx.keys.full },
      payload: photo.payload,
    });
    expect(uploaded.statusCode, uploaded.body).toBe(201);
    // An office edit: the history keeps the values before and after.
    const edit = await updateLead(
      ctx.app.deps.database,
      ctx.brandId,
      second.id as string,
      parseLeadChanges({
        title: `Nieuwe cv-ketel ${tag}`,
        description: `${description} (bijgewerkt)`,
        street: p.street,
        streetNumber: p.streetNumber,
        streetNumberAddition: p.streetNumberAddition,
        postalCode: p.postalCode,
        city: p.city,
      }),
      { type: 'user', id: 'usr_test', name: 'Office' },
    );
    expect(edit.changed).toEqual(['description']);
    const leads = (await ctx.api.get(`/v1/leads?customerId=${customerId}&limit=100`)).json().data;
    expect(leads).toHaveLength(3);
    return { p, customerId, leadId, leadIds: leads.map((l: { id: string }) => l.id) as string[] };
  }

  /** Every text the service holds that an API client or a table can see, in one string. */
  async function everything(): Promise<string> {
    const db = ctx.app.deps.database.db;
    const parts: string[] = [];
    for (const table of [
      'customers',
      'addresses',
      'leads',
      'lead_notes',
      'lead_activity',
      'customer_activity',
      'attachments',
      'events',
      'idempotency_keys',
      'email_outbox',
      'dashboard_flashes',
    ] as const) {
      const rows = (await db.selectFrom(table).selectAll().execute()) as { brand_id?: string }[];
      parts.push(JSON.stringify(rows.filter((r) => r.brand_id === undefined || r.brand_id === ctx.brandId)));
    }
    parts.push((await ctx.api.get('/v1/events?limit=100')).body);
    parts.push((await ctx.api.get('/v1/exports/leads.csv')).body);
    parts.push((await ctx.api.get('/v1/exports/work-items.csv')).body);
    return parts.join('\n');
  }

  it('leaves nothing the person gave, anywhere, and keeps the business’s record', async () => {
    const other = await personWithEverything('keep');
    const gone = await personWithEverything('gone');
    // Another brand's customer with the same email: that brand's own record, which stays.
    const otherBrand = await ctx.api.as(ctx.keys.other).post('/v1/leads', {
      customerName: 'Someone Else',
      email: gone.p.email,
      street: 'Elders',
      postalCode: '1000 AA',
      city: 'Brussel',
      title: 'Other brand',
    });
    expect(otherBrand.statusCode, otherBrand.body).toBe(201);
    await waitFor(() => receiver.received.length >= 8 || undefined, 'the deliveries so far');
    // A delivery still pending when the erase runs: the receiver refuses until then.
    receiver.setHandler((_req, res) => res.writeHead(503).end());
    const pendingLead = await ctx.api.post(`/v1/leads/${gone.leadId}/notes`, {
      text: `Nog eens: ${gone.p.email}`,
    });
    expect(pendingLead.statusCode).toBe(201);
    const before = await everything();
    for (const value of secrets(gone.p)) expect(before, value).toContain(value);

    const res = await ctx.api.post(`/v1/customers/${gone.customerId}/erase`, {
      reason: 'Verzoek per e-mail',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      id: gone.customerId,
      erasedAt: expect.any(String),
      leads: 3,
      attachments: 1,
    });

    // Reads: the customer is erased, its leads keep the business's record only.
    const customer = (await ctx.api.get(`/v1/customers/${gone.customerId}`)).json();
    expect(customer).toMatchObject({
      id: gone.customerId,
      erased: true,
      erasedAt: res.json().erasedAt,
      name: '',
      firstName: null,
      lastName: null,
      email: null,
      phone: null,
      companyName: null,
      leadCount: 3,
    });
    const lead = (await ctx.api.get(`/v1/leads/${gone.leadId}`)).json();
    expect(lead).toMatchObject({
      title: 'Lekkende kraan gone',
      status: 'request',
      description: null,
      budgetQuote: null,
      notes: null,
      attachments: [],
      customer: { id: gone.customerId, name: '', email: null, phone: null },
      address: {
        street: '',
        streetNumber: null,
        streetNumberAddition: null,
        postalCode: '1015 CJ',
        city: 'Amsterdam',
      },
    });
    expect(Object.values(lead.submitted).every((v) => v === null)).toBe(true);
    expect((await ctx.api.get(`/v1/leads/${gone.leadId}/notes`)).json().data).toEqual([]);
    for (const q of [gone.p.lastName, gone.p.email, gone.p.street, gone.p.description]) {
      expect((await ctx.api.get(`/v1/leads?q=${encodeURIComponent(q)}`)).json().data, q).toEqual([]);
    }

    // Every copy: tables, events, CSV, outbox, idempotency records.
    const after = await everything();
    for (const value of secrets(gone.p)) expect(after, value).not.toContain(value);
    for (const value of secrets(other.p)) expect(after, value).toContain(value);
    // The other brand's copy of the same name and email is that brand's own record.
    const elsewhere = (await ctx.api.as(ctx.keys.other).get(`/v1/leads/${otherBrand.json().id}`)).json();
    expect(elsewhere.customer.email).toBe(gone.p.email);

    // A retry of the first create with its idempotency key answers what is left.
    const stored = await ctx.app.deps.database.db
      .selectFrom('idempotency_keys')
      .select('response_body')
      .where('response_body', 'like', `%${gone.leadId}%`)
      .execute();
    expect(stored.length).toBeGreaterThan(0);

    // The attachment's file is gone from storage.
    const keys: string[] = [];
    for await (const object of ctx.app.deps.storage.list()) keys.push(object.key);
    const goneAttachments = (await ctx.api.get(`/v1/leads/${other.leadId}`)).json().attachments;
    expect(keys.filter((k) => !k.startsWith(goneAttachments[0].id))).toEqual([]);
    expect(files().kind).toBe('disk');

    // Webhooks: customer.erased with the id only, and the pending delivery goes out without the data.
    receiver.setHandler((_req, res) => res.writeHead(200).end('ok'));
    const erased = await waitFor(
      () => receiver.received.find((r) => JSON.parse(r.body).type === 'customer.erased'),
      'customer.erased',
    );
    expect(JSON.parse(erased.body).data).toEqual({
      customer: { id: gone.customerId },
      erasedAt: res.json().erasedAt,
    });
    const note = await waitFor(
      () =>
        receiver.received.find(
          (r) =>
            JSON.parse(r.body).type === 'note.created' &&
            JSON.parse(r.body).data.leadId === gone.leadId &&
            r.body.includes('"text":""'),
        ),
      'the pending note delivery, sent after the erase',
    );
    expect(note.body).not.toContain(gone.p.email);

    // The history says who erased and why, and no personal data.
    const activity = await ctx.app.deps.database.db
      .selectFrom('customer_activity')
      .selectAll()
      .where('customer_id', '=', gone.customerId)
      .execute();
    expect(activity).toEqual([
      expect.objectContaining({
        kind: 'erased',
        actor_type: 'key',
        detail: '{"reason":"Verzoek per e-mail"}',
      }),
    ]);

    // SQLite: not a byte of it in the database file or its WAL.
    if (dialect === 'sqlite') {
      const file = (ctx.app.deps.config.database as { file: string }).file;
      const bytes = Buffer.concat(
        [file, `${file}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f)),
      );
      // The email aside: the other brand's customer has it too.
      for (const value of secrets(gone.p).filter((v) => v !== gone.p.email)) {
        expect(bytes.includes(Buffer.from(value, 'utf8')), `${value} in the database files`).toBe(false);
      }
      expect(bytes.includes(Buffer.from(other.p.lastName, 'utf8'))).toBe(true);
    }

    // Again: 200, nothing changes.
    const again = await ctx.api.post(`/v1/customers/${gone.customerId}/erase`);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual({
      id: gone.customerId,
      erasedAt: res.json().erasedAt,
      leads: 0,
      attachments: 0,
    });
  });

  it('erases a customer merged into this one as the same person: its events and leads too', async () => {
    const a = person('mergedA');
    const b = person('mergedB');
    const kept = await ctx.createLead({ customerName: a.customerName, email: a.email, title: 'Kept' });
    const away = await ctx.createLead({
      customerName: b.customerName,
      email: b.email,
      description: b.description,
    });
    const merged = await ctx.api.post(`/v1/customers/${kept.customerId}/merge`, { from: away.customerId });
    expect(merged.statusCode, merged.body).toBe(200);
    const erased = await ctx.api.post(`/v1/customers/${kept.customerId}/erase`);
    expect(erased.json()).toMatchObject({ leads: 2 });
    const events = (await ctx.api.get('/v1/events?limit=100')).body;
    const rows = JSON.stringify(await ctx.app.deps.database.db.selectFrom('events').select('data').execute());
    for (const value of [a.customerName, a.email, b.customerName, b.email, b.description]) {
      expect(events, value).not.toContain(value);
      expect(rows, value).not.toContain(value);
    }
    expect(events).toContain('customer.merged');
  });

  it('answers 404 for another brand’s or an unknown customer, and 403 without the full scope', async () => {
    const created = await ctx.createLead();
    const customerId = created.customerId as string;
    expect((await ctx.api.as(ctx.keys.other).post(`/v1/customers/${customerId}/erase`)).statusCode).toBe(404);
    expect((await ctx.api.post('/v1/customers/cus_00000000000000000000000000/erase')).statusCode).toBe(404);
    expect(
      (await ctx.api.as(ctx.keys['leads:write']).post(`/v1/customers/${customerId}/erase`)).statusCode,
    ).toBe(403);
    const long = await ctx.api.post(`/v1/customers/${customerId}/erase`, { reason: 'x'.repeat(501) });
    expect(long.statusCode).toBe(422);
    expect((await ctx.api.get(`/v1/customers/${customerId}`)).json().erased).toBeUndefined();
  });

  it('never leaves a new submission half erased when it races the erase', async () => {
    for (let round = 0; round < 5; round++) {
      const p = person(`race${round}`);
      const { description, budgetQuote, notes, ...contact } = p;
      const first = await ctx.createLead({ ...contact, title: 'Eerste' });
      const customerId = first.customerId as string;
      const [erase, created] = await Promise.all([
        ctx.api.post(`/v1/customers/${customerId}/erase`),
        ctx.api.post('/v1/leads', { ...contact, title: 'Tweede', description }),
      ]);
      expect(erase.statusCode, erase.body).toBe(200);
      expect(created.statusCode, created.body).toBe(201);
      const lead = (await ctx.api.get(`/v1/leads/${created.json().id}`)).json();
      if (lead.customer.id === customerId) {
        // Linked before the erase: erased with it.
        expect(lead.description).toBeNull();
        expect(lead.customer.email).toBeNull();
      } else {
        // After: a new customer with all of it.
        expect(lead.description).toBe(description);
        expect(lead.customer.email).toBe(p.email);
      }
    }
  });
});
