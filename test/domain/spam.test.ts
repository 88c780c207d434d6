// Spam in the domain, without the API or the dashboard: "Not spam" makes a lead exactly like one that arrived
// normally (customer linked by the rules, filled or announced, lead.created, the "new lead" mails), and the purge
// removes spam after 30 days with what only it had, never a real lead or customer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrand } from '../../src/accounts/brands.js';
import { changeLeadStatus, createLead, type LeadSource, listLeads } from '../../src/leads/index.js';
import { parseLeadInput } from '../../src/leads/input.js';
import {
  countSpamLeads,
  deleteSpam,
  listSpamLeads,
  purgeSpam,
  releaseSpam,
  SPAM_RETENTION_MS,
} from '../../src/leads/spam.js';
import { type Database, migrate, openDatabase } from '../../src/platform/db/database.js';
import { NotFoundError } from '../../src/shared/errors.js';
import { newId } from '../../src/shared/ids.js';
import { dialects, dropSchemaNamed, testDatabaseConfig, testSchemaName, validLead } from '../helpers.js';

const DAY = 24 * 60 * 60 * 1000;
const FORM_ID = 'frm_01jzzzzzzzzzzzzzzzzzzzzzzz';

describe.each(dialects())('spam in the domain on %s', (dialect) => {
  let database: Database;
  const schema = testSchemaName();
  let brandId: string;
  let otherBrandId: string;

  beforeAll(async () => {
    // Email on (no worker runs here), so the "new lead" mails a release queues stay in the outbox to be read.
    database = openDatabase(testDatabaseConfig(dialect, schema), 'NORMAL', {
      publicUrl: 'https://leads.example',
    });
    await migrate(database, dialect === 'postgres' ? schema : undefined);
    brandId = (await createBrand(database, { language: 'en', name: 'Acme Plumbing', country: 'NL' })).id;
    otherBrandId = (await createBrand(database, { language: 'en', name: 'Other Builders', country: 'BE' }))
      .id;
    await database.db
      .insertInto('users')
      .values({
        id: newId('user'),
        brand_id: brandId,
        email: 'owner@acme.example',
        email_normalized: 'owner@acme.example',
        password_hash: 'x',
        role: 'owner',
        created_at: Date.now(),
        disabled_at: null,
        new_lead_mail: 'every',
        language: 'en',
      })
      .execute();
  });
  afterAll(async () => {
    if (!database) return;
    if (dialect === 'postgres') await dropSchemaNamed(database.db, schema);
    await database.close();
  });

  const source = (spam: boolean, brand = brandId): LeadSource => ({
    brandId: brand,
    source: 'form',
    keyId: null,
    keyName: null,
    form: { id: FORM_ID, name: 'Website', spam, extraFields: null, attribution: null, consent: null },
  });
  const lead = (spam: boolean, fields: Record<string, unknown> = {}, brand = brandId) =>
    createLead(database, source(spam, brand), parseLeadInput(validLead(fields)));
  const leadRow = (id: string) =>
    database.db
      .selectFrom('leads')
      .select(['customer_id', 'address_id', 'spam', 'updated_at', 'received_at', 'submitted'])
      .where('id', '=', id)
      .executeTakeFirst();
  const customer = (id: string) =>
    database.db.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirst();
  const address = (id: string) =>
    database.db.selectFrom('addresses').selectAll().where('id', '=', id).executeTakeFirst();
  /** The brand's events from `after` on (an event id), oldest first, with their data parsed. */
  const eventsSince = async (after: string) =>
    (
      await database.db
        .selectFrom('events')
        .select(['id', 'type', 'data'])
        .where('brand_id', '=', brandId)
        .where('id', '>', after)
        .orderBy('id')
        .execute()
    ).map((e) => ({ type: e.type, data: JSON.parse(e.data) as Record<string, Record<string, unknown>> }));
  const mark = () => newId('event');
  const mailsFor = async (leadId: string) =>
    (
      await database.db
        .selectFrom('email_outbox')
        .select(['kind', 'recipient', 'text'])
        .where('brand_id', '=', brandId)
        .execute()
    ).filter((m) => m.text.includes(leadId));
  const listed = async () =>
    (await listLeads(database, brandId, 'lead', { limit: 100, order: 'desc' })).data.map((l) => l.id);

  it('a spam lead is in the spam list and count, in no lead list, with no event and no mail', async () => {
    const since = mark();
    const spam = await lead(true, { title: 'Cheap pills' });
    const page = await listSpamLeads(database, brandId, { limit: 100, order: 'desc' });
    expect(page.data.map((s) => s.id)).toContain(spam.id);
    expect(page.data.find((s) => s.id === spam.id)).toMatchObject({
      title: 'Cheap pills',
      formId: FORM_ID,
      formName: 'Website',
    });
    expect(await countSpamLeads(database, brandId)).toBeGreaterThanOrEqual(1);
    expect(await countSpamLeads(database, otherBrandId)).toBe(0);
    expect(await listed()).not.toContain(spam.id);
    expect(await eventsSince(since)).toEqual([]);
    expect(await mailsFor(spam.id)).toEqual([]);
  });

  it('"Not spam" on a lead whose customer only spam had: customer.created, then lead.created, mails, listed', async () => {
    const spam = await lead(true, { customerName: 'Sam Spamless', phone: '+31612345001' });
    const before = await leadRow(spam.id);
    expect(before?.spam).toBe(1);
    const since = mark();
    const now = Date.now() + 5;
    const released = await releaseSpam(database, brandId, spam.id, now);
    expect(released.id).toBe(spam.id);

    const after = await leadRow(spam.id);
    expect(after).toMatchObject({
      spam: 0,
      customer_id: before?.customer_id,
      address_id: before?.address_id,
    });
    expect(Number(after?.updated_at)).toBe(now);
    expect(Number(after?.received_at)).toBe(Number(before?.received_at));
    const events = await eventsSince(since);
    expect(events.map((e) => e.type)).toEqual(['customer.created', 'lead.created']);
    expect(events[0]?.data.customer).toMatchObject({
      id: before?.customer_id,
      name: 'Sam Spamless',
      phone: '+31612345001',
    });
    expect(events[1]?.data.lead).toMatchObject({ id: spam.id, customer: { id: before?.customer_id } });
    expect(await mailsFor(spam.id)).toEqual([
      expect.objectContaining({ kind: 'new_lead', recipient: 'owner@acme.example' }),
    ]);
    expect(await listed()).toContain(spam.id);
    expect(
      (await listSpamLeads(database, brandId, { limit: 100, order: 'desc' })).data.map((s) => s.id),
    ).not.toContain(spam.id);
  });

  it('"Not spam" into a real customer adds no contact to it and overwrites nothing (the form fill rule)', async () => {
    const email = `real-${Date.now()}@example.com`;
    const real = await lead(false, { email, customerName: 'Real Name' });
    const spam = await lead(true, { email, customerName: 'Other Name', phone: '+31612345002' });
    const realCustomer = (await leadRow(real.id))?.customer_id ?? '';
    // Linked quietly: the same customer, not filled in.
    expect((await leadRow(spam.id))?.customer_id).toBe(realCustomer);
    expect((await customer(realCustomer))?.phone).toBeNull();

    const since = mark();
    await releaseSpam(database, brandId, spam.id);
    // A form post never adds a phone or an email to an existing customer (src/customers/customers.ts): the
    // phone stays on the lead's submission only.
    expect(await customer(realCustomer)).toMatchObject({ name: 'Real Name', phone: null });
    const events = await eventsSince(since);
    expect(events.map((e) => e.type)).toEqual(['lead.created']);
    expect((await leadRow(spam.id))?.submitted).toContain('+31612345002');
  });

  it('when the rules now name another customer, the lead moves there and what only it had is removed', async () => {
    const phone = '+31612345003';
    const email = `moved-${Date.now()}@example.com`;
    const byPhone = await lead(false, {
      email: undefined,
      phone,
      customerName: 'Phone Only',
      street: 'Damrak',
    });
    const c = (await leadRow(byPhone.id))?.customer_id ?? '';
    // Spam with an email nobody has yet and C's phone: quietly linked to C, with an address of its own.
    const spam = await lead(true, {
      email,
      phone,
      customerName: 'Moved',
      street: 'Rokin',
      streetNumber: '9',
    });
    const spamBefore = await leadRow(spam.id);
    expect(spamBefore?.customer_id).toBe(c);
    // Meanwhile a real lead with that email and another phone made customer D.
    const real = await lead(false, { email, phone: '+31612345004', customerName: 'Dee' });
    const d = (await leadRow(real.id))?.customer_id ?? '';
    expect(d).not.toBe(c);

    const since = mark();
    await releaseSpam(database, brandId, spam.id);
    const after = await leadRow(spam.id);
    expect(after?.customer_id).toBe(d);
    expect(await address(after?.address_id ?? '')).toMatchObject({ customer_id: d, street: 'Rokin' });
    // The address it had under C is gone; C and its own address stay, with no email filled in.
    expect(await address(spamBefore?.address_id ?? '')).toBeUndefined();
    expect(await customer(c)).toMatchObject({ email: null, phone });
    expect(await address((await leadRow(byPhone.id))?.address_id ?? '')).toMatchObject({ street: 'Damrak' });
    expect((await eventsSince(since)).map((e) => e.type)).toEqual(['lead.created']);
  });

  it('spam cannot change state; released, it keeps its one history entry (the form) and moves like any lead', async () => {
    const office = { type: 'user' as const, id: 'usr_office', name: 'Office' };
    const spam = await lead(true);
    await expect(changeLeadStatus(database, brandId, spam.id, 'quoted', office)).rejects.toBeInstanceOf(
      NotFoundError,
    );
    const history = () =>
      database.db
        .selectFrom('lead_status_history')
        .select(['seq', 'status', 'actor_type', 'actor_id'])
        .where('lead_id', '=', spam.id)
        .orderBy('seq')
        .execute();
    const first = { seq: 1, status: 'request', actor_type: 'form', actor_id: FORM_ID };
    expect((await history()).map((h) => ({ ...h, seq: Number(h.seq) }))).toEqual([first]);

    await releaseSpam(database, brandId, spam.id);
    expect((await history()).map((h) => ({ ...h, seq: Number(h.seq) }))).toEqual([first]);
    await changeLeadStatus(database, brandId, spam.id, 'quoted', office);
    expect((await history()).map((h) => ({ ...h, seq: Number(h.seq) }))).toEqual([
      first,
      { seq: 2, status: 'quoted', actor_type: 'user', actor_id: 'usr_office' },
    ]);
  });

  it('two spam leads of one quiet customer: the first release announces it, the second adds no contact', async () => {
    const email = `quiet-${Date.now()}@example.com`;
    const first = await lead(true, { email, customerName: 'Quiet One', phone: undefined });
    const second = await lead(true, { email, customerName: 'Quiet Two', phone: '+31612345005' });
    const c = (await leadRow(first.id))?.customer_id ?? '';
    expect((await leadRow(second.id))?.customer_id).toBe(c);

    const since = mark();
    await releaseSpam(database, brandId, first.id);
    const announced = await eventsSince(since);
    expect(announced.map((e) => e.type)).toEqual(['customer.created', 'lead.created']);
    expect(announced[0]?.data.customer).toMatchObject({ id: c, email, phone: null });

    const since2 = mark();
    await releaseSpam(database, brandId, second.id);
    const filled = await eventsSince(since2);
    expect(filled.map((e) => e.type)).toEqual(['lead.created']);
    expect((await customer(c))?.phone).toBeNull();
    expect((await leadRow(second.id))?.customer_id).toBe(c);
  });

  it('a real lead for a customer only spam had announces it as new (customer.created); the spam stays spam', async () => {
    const email = `spam-first-${Date.now()}@example.com`;
    const spam = await lead(true, { email, phone: undefined });
    const c = (await leadRow(spam.id))?.customer_id ?? '';
    const since = mark();
    const real = await lead(false, { email, phone: '+31612345006' });
    expect((await leadRow(real.id))?.customer_id).toBe(c);
    const events = await eventsSince(since);
    expect(events.map((e) => e.type)).toEqual(['customer.created', 'lead.created']);
    expect(events[0]?.data.customer).toMatchObject({ id: c, email, phone: '+31612345006' });
    expect((await leadRow(spam.id))?.spam).toBe(1);
    expect(await listed()).not.toContain(spam.id);
  });

  it('only the brand’s spam can be released, once, even by two people at the same moment', async () => {
    const real = await lead(false);
    await expect(releaseSpam(database, brandId, real.id)).rejects.toBeInstanceOf(NotFoundError);
    const foreign = await lead(true, {}, otherBrandId);
    await expect(releaseSpam(database, brandId, foreign.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await leadRow(foreign.id))?.spam).toBe(1);

    const spam = await lead(true);
    const since = mark();
    const results = await Promise.allSettled([
      releaseSpam(database, brandId, spam.id),
      releaseSpam(database, brandId, spam.id),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected');
    expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(NotFoundError);
    expect((await eventsSince(since)).filter((e) => e.type === 'lead.created')).toHaveLength(1);
    expect(await mailsFor(spam.id)).toHaveLength(1);
  });

  it('deleting spam removes it with the customer only it had; a real lead cannot be deleted this way', async () => {
    const spam = await lead(true);
    const row = await leadRow(spam.id);
    await deleteSpam(database, brandId, spam.id);
    expect(await leadRow(spam.id)).toBeUndefined();
    expect(await customer(row?.customer_id ?? '')).toBeUndefined();
    expect(await address(row?.address_id ?? '')).toBeUndefined();
    const real = await lead(false);
    await expect(deleteSpam(database, brandId, real.id)).rejects.toBeInstanceOf(NotFoundError);
    expect(await leadRow(real.id)).toBeDefined();
  });

  it('the purge removes spam older than 30 days with what only it had, and nothing else', async () => {
    const age = async (id: string, days: number) =>
      database.db
        .updateTable('leads')
        .set({ received_at: Date.now() - days * DAY })
        .where('id', '=', id)
        .execute();
    const old = await lead(true);
    const young = await lead(true);
    const oldReal = await lead(false);
    // Old spam linked quietly to a real customer: the customer and the real lead's address stay.
    const email = `purge-${Date.now()}@example.com`;
    const real = await lead(false, { email });
    const oldIntoReal = await lead(true, { email, street: 'Spuistraat' });
    for (const [id, days] of [
      [old.id, 31],
      [young.id, 29],
      [oldReal.id, 31],
      [oldIntoReal.id, 31],
    ] as const) {
      await age(id, days);
    }
    const rows = {
      old: await leadRow(old.id),
      real: await leadRow(real.id),
      oldIntoReal: await leadRow(oldIntoReal.id),
      oldReal: await leadRow(oldReal.id),
    };
    expect(rows.oldIntoReal?.customer_id).toBe(rows.real?.customer_id);

    expect(await purgeSpam(database)).toBe(2);
    expect(await leadRow(old.id)).toBeUndefined();
    expect(await leadRow(oldIntoReal.id)).toBeUndefined();
    const history = await database.db
      .selectFrom('lead_status_history')
      .select('lead_id')
      .where('lead_id', 'in', [old.id, oldIntoReal.id])
      .execute();
    expect(history).toEqual([]);
    expect(await customer(rows.old?.customer_id ?? '')).toBeUndefined();
    expect(await address(rows.old?.address_id ?? '')).toBeUndefined();
    expect(await address(rows.oldIntoReal?.address_id ?? '')).toBeUndefined();

    expect((await leadRow(young.id))?.spam).toBe(1);
    expect((await leadRow(oldReal.id))?.spam).toBe(0);
    expect(await customer(rows.oldReal?.customer_id ?? '')).toBeDefined();
    expect(await customer(rows.real?.customer_id ?? '')).toBeDefined();
    expect(await address(rows.real?.address_id ?? '')).toBeDefined();
    expect(await listed()).toEqual(expect.arrayContaining([oldReal.id, real.id]));
    // Nothing is left to remove, and 29 days later the young one goes too.
    expect(await purgeSpam(database)).toBe(0);
    expect(await purgeSpam(database, SPAM_RETENTION_MS, Date.now() + 2 * DAY)).toBe(1);
    expect(await leadRow(young.id)).toBeUndefined();
  });
});
