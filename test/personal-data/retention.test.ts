// Retention with a fixed clock: the worker's run erases leads untouched for the brand's months in request,
// quoted or cancelled (and customers left with nothing else) by the erasure's code, keeps work items, recent
// leads and brands without retention, and Settings says what the next run will do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retentionCutoff, runRetention } from '../../src/personal-data/retention.js';
import { addUser, signedIn, textOf } from '../dashboard/helpers.js';
import { createTestContext, dialects, type TestContext } from '../helpers.js';

const DAY = 24 * 60 * 60 * 1000;

describe.each(dialects())('retention on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    await addUser(ctx.app, ctx.brandId, 'owner@acme.example', 'owner');
  });
  afterAll(async () => {
    await ctx?.close();
  });

  const deps = () => ({ database: ctx.app.deps.database, storage: ctx.app.deps.storage });
  const touch = (id: string, at: number) =>
    ctx.app.deps.database.db.updateTable('leads').set({ updated_at: at }).where('id', '=', id).execute();

  it('erases what has been untouched for the period, and nothing else', async () => {
    const browser = await signedIn(ctx.app, 'owner@acme.example');
    await browser.get('/dashboard/settings/brand');
    const saved = await browser.post('/dashboard/settings/brand', { retentionMonths: '12' });
    expect(saved.statusCode, saved.body).toBe(303);
    // The fixed clock: a year and a month from now.
    const now = Date.now() + 396 * DAY;
    const cutoff = retentionCutoff(12, now);

    // A: one old request: the lead and the customer go.
    const a = await ctx.createLead({
      customerName: 'Anna Oud',
      email: 'anna.oud@example.com',
      description: 'Oud lek',
    });
    // B: an old cancelled lead, and a work item: the lead goes, the customer stays.
    const b1 = await ctx.createLead({
      customerName: 'Bram Blijft',
      email: 'bram@example.com',
      description: 'Weg',
    });
    await ctx.setStatus(b1.id as string, 'cancelled');
    const b2 = await ctx.createLead({
      customerName: 'Bram Blijft',
      email: 'bram@example.com',
      title: 'Ketel',
    });
    await ctx.setStatus(b2.id as string, 'scheduled');
    // C: a quoted lead changed a day before the fixed clock: kept.
    const c = await ctx.createLead({
      customerName: 'Cor Recent',
      email: 'cor@example.com',
      description: 'Nieuw',
    });
    await ctx.setStatus(c.id as string, 'quoted');
    await touch(c.id as string, now - DAY);
    // Another brand without retention: kept.
    const other = await ctx.api.as(ctx.keys.other).post('/v1/leads', {
      customerName: 'Dirk Ander',
      email: 'dirk@example.com',
      street: 'Dorpsstraat',
      postalCode: '1000 AA',
      city: 'Brussel',
      title: 'Dak',
    });
    expect(other.statusCode).toBe(201);
    for (const id of [a.id, b1.id, b2.id, other.json().id]) await touch(id as string, cutoff - DAY);

    // Settings says what the next run (on the real clock) will do.
    const page = textOf((await browser.get('/dashboard/settings/brand')).body);
    expect(page).toMatch(/Nothing is due: no lead has been untouched since \w{3}, \d+ \w{3} 20\d\d\./);
    await touch(c.id as string, Date.now() - 400 * DAY);
    expect(textOf((await browser.get('/dashboard/settings/brand')).body)).toContain(
      'The next run, within 10 minutes, erases 1 lead untouched since',
    );
    await touch(c.id as string, now - DAY);

    const run = await runRetention(deps(), now);
    expect(run).toEqual({ leads: 2, customers: 1 });

    const read = async (id: unknown) => (await ctx.api.get(`/v1/leads/${id}`)).json();
    expect(await read(a.id)).toMatchObject({ description: null, customer: { name: '', email: null } });
    expect((await ctx.api.get(`/v1/customers/${a.customerId}`)).json()).toMatchObject({ erased: true });
    expect(await read(b1.id)).toMatchObject({
      description: null,
      status: 'cancelled',
      customer: { name: 'Bram Blijft' },
    });
    expect(await read(b2.id)).toMatchObject({ title: 'Ketel', customer: { email: 'bram@example.com' } });
    expect((await ctx.api.get(`/v1/customers/${b1.customerId}`)).json().erased).toBeUndefined();
    expect(await read(c.id)).toMatchObject({ description: 'Nieuw' });
    const kept = (await ctx.api.as(ctx.keys.other).get(`/v1/leads/${other.json().id}`)).json();
    expect(kept.customer.name).toBe('Dirk Ander');

    // The history says the retention run did it.
    const activity = await ctx.app.deps.database.db
      .selectFrom('customer_activity')
      .selectAll()
      .where('customer_id', '=', a.customerId as string)
      .execute();
    expect(activity).toEqual([
      expect.objectContaining({ kind: 'erased', actor_type: 'retention', detail: '{"retentionMonths":12}' }),
    ]);
    // A second run finds nothing more.
    expect(await runRetention(deps(), now)).toEqual({ leads: 0, customers: 0 });
  });

  it('is off by default and refuses a period it does not offer', async () => {
    const browser = await signedIn(ctx.app, 'owner@acme.example');
    await browser.get('/dashboard/settings/brand');
    expect((await browser.post('/dashboard/settings/brand', { retentionMonths: 'off' })).statusCode).toBe(
      303,
    );
    expect(textOf((await browser.get('/dashboard/settings/brand')).body)).toContain(
      'Off: leads are kept until you erase them.',
    );
    const refused = await browser.post('/dashboard/settings/brand', { retentionMonths: '5' });
    expect(refused.statusCode).toBe(422);
    expect(textOf(refused.body)).toContain('Erase untouched leads after is not valid');
    expect(await runRetention(deps(), Date.now() + 3650 * DAY)).toEqual({ leads: 0, customers: 0 });
  });
});
