// Editing a lead in the dashboard: the job's fields and its address, each change in the lead's history with the
// user, a lead.updated event naming the fields, the address linked by the rules of lead creation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectToContain } from '../expect-text.js';
import { createTestContext, dialects, type TestContext } from '../helpers.js';
import { addUser, type Browser, signedIn, textOf } from './helpers.js';

const OFFICE = 'kees@acme.example';

describe.each(dialects())('editing a lead in the dashboard on %s', (dialect) => {
  let ctx: TestContext;
  let browser: Browser;
  let userId: string;

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    userId = (await addUser(ctx.app, ctx.brandId, OFFICE)).id;
    browser = await signedIn(ctx.app, OFFICE);
  });
  afterAll(async () => ctx?.close());

  const db = () => ctx.app.deps.database.db;
  const readLead = async (id: string) => (await ctx.api.get(`/v1/leads/${id}`)).json();
  const updatedEvents = async (id: string) =>
    (await ctx.api.get('/v1/events?type=lead.updated&limit=100'))
      .json()
      .data.filter((e: { data: { lead: { id: string } } }) => e.data.lead.id === id);

  const newLead = async (fields: Record<string, unknown>) => (await ctx.createLead(fields)).id as string;

  /** The edit form's fields for a lead as it is now, with some changed. */
  async function form(id: string, changes: Record<string, string> = {}): Promise<Record<string, string>> {
    const lead = await readLead(id);
    return {
      title: lead.title,
      description: lead.description ?? '',
      category: lead.category ?? '',
      priority: lead.priority,
      budgetQuote: lead.budgetQuote ?? '',
      street: lead.address.street,
      streetNumber: lead.address.streetNumber ?? '',
      streetNumberAddition: lead.address.streetNumberAddition ?? '',
      postalCode: lead.address.postalCode,
      city: lead.address.city,
      country: lead.address.country,
      ...changes,
    };
  }

  it('the lead page links to Edit; the edit page shows the lead as it is', async () => {
    const id = await newLead({
      title: 'Gutter <leak>',
      category: 'Roofing',
      budgetQuote: '€ 300',
    });
    const page = await browser.get(`/dashboard/leads/${id}`);
    expect(page.body).toContain(`href="/dashboard/leads/${id}/edit"`);
    const res = await browser.get(`/dashboard/leads/${id}/edit`);
    expect(res.statusCode).toBe(200);
    expectToContain(res.body, [
      'id="field-title" name="title" type="text" value="Gutter &lt;leak&gt;"',
      'value="Roofing"',
      'value="€ 300"',
      'value="1015 CJ"',
      `action="/dashboard/leads/${id}/edit"`,
    ]);
  });

  it('saves the changes: history entry with the user, lead.updated naming the fields, updatedAt bumped', async () => {
    const id = await newLead({ title: 'Old title', priority: 'low', description: 'Some words' });
    const before = await readLead(id);
    const res = await browser.post(
      `/dashboard/leads/${id}/edit`,
      await form(id, { title: 'New title', priority: 'urgent', description: '', budgetQuote: 'Up to € 800' }),
    );
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(
      `/dashboard/leads/${id}?edited=title%2Cdescription%2Cpriority%2CbudgetQuote`,
    );
    const page = await browser.get(String(res.headers.location));
    const text = textOf(page.body);
    expect(text).toContain('Lead updated: job title, description, priority, budget.');
    expect(text).toContain('Edited job title “Old title” → “New title”');
    expect(text).toMatch(/Edited job title [^·]+ · [^·]+ · by kees@acme\.example/);
    expect(text).toContain('priority “low” → “urgent”');

    const after = await readLead(id);
    expect(after).toMatchObject({
      title: 'New title',
      priority: 'urgent',
      description: null,
      budgetQuote: 'Up to € 800',
      customer: before.customer,
      address: before.address,
    });
    expect(after.updatedAt > before.updatedAt).toBe(true);

    const [activity] = await db().selectFrom('lead_activity').selectAll().where('lead_id', '=', id).execute();
    expect(activity).toMatchObject({
      kind: 'edited',
      actor_type: 'user',
      actor_id: userId,
      actor_name: OFFICE,
    });
    expect(JSON.parse(activity!.detail)).toEqual({
      changed: ['title', 'description', 'priority', 'budgetQuote'],
      from: { title: 'Old title', description: 'Some words', priority: 'low', budgetQuote: null },
      to: { title: 'New title', description: null, priority: 'urgent', budgetQuote: 'Up to € 800' },
    });

    const events = await updatedEvents(id);
    expect(events).toHaveLength(1);
    expect(events[0].data.changed).toEqual(['title', 'description', 'priority', 'budgetQuote']);
    expect(events[0].data.lead).toMatchObject({ id, title: 'New title', priority: 'urgent' });
  });

  it('nothing changed: no event, no history entry, "Nothing changed"', async () => {
    const id = await newLead({ title: 'Stays the same' });
    const res = await browser.post(
      `/dashboard/leads/${id}/edit`,
      await form(id, { title: '  Stays the same ' }),
    );
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/dashboard/leads/${id}?edited=none`);
    expect(textOf((await browser.get(String(res.headers.location))).body)).toContain('Nothing changed.');
    expect(await updatedEvents(id)).toEqual([]);
    expect(await db().selectFrom('lead_activity').select('id').where('lead_id', '=', id).execute()).toEqual(
      [],
    );
  });

  it('a new address is linked like on create; the old one stays while another lead uses it', async () => {
    const email = 'twice@edit.example';
    const first = await ctx.createLead({ email, title: 'First job' });
    const second = await ctx.createLead({ email, title: 'Second job' });
    expect(second.addressId).toBe(first.addressId);
    const oldAddress = first.addressId as string;
    const firstId = first.id as string;
    const secondId = second.id as string;

    let res = await browser.post(
      `/dashboard/leads/${firstId}/edit`,
      await form(firstId, {
        postalCode: '3511 AB',
        streetNumber: '7',
        city: 'Utrecht',
        street: 'Oudegracht',
      }),
    );
    expect(res.statusCode).toBe(303);
    let lead = await readLead(firstId);
    expect(lead.address).toMatchObject({
      street: 'Oudegracht',
      streetNumber: '7',
      postalCode: '3511 AB',
      city: 'Utrecht',
    });
    const newAddress = lead.address.id;
    expect(newAddress).not.toBe(oldAddress);
    expect(lead.customer.id).toBe(first.customerId);
    expect((await readLead(secondId)).address.id).toBe(oldAddress);
    const [event] = await updatedEvents(firstId);
    expect(event.data.changed).toEqual(['street', 'streetNumber', 'postalCode', 'city']);

    // The second lead moves to the same place, written a little differently: linked to the same address, and the
    // old address, which no lead uses any more, is gone.
    res = await browser.post(
      `/dashboard/leads/${secondId}/edit`,
      await form(secondId, {
        postalCode: '3511ab',
        streetNumber: '7',
        city: 'Utrecht',
        street: 'oudegracht',
      }),
    );
    expect(res.statusCode).toBe(303);
    lead = await readLead(secondId);
    expect(lead.address.id).toBe(newAddress);
    const gone = await db().selectFrom('addresses').select('id').where('id', '=', oldAddress).execute();
    expect(gone).toEqual([]);
  });

  it('a corrected city at the same place is corrected on the address', async () => {
    const created = await ctx.createLead({ city: 'Amsterdm' });
    const id = created.id as string;
    const addressId = created.addressId as string;
    const res = await browser.post(`/dashboard/leads/${id}/edit`, await form(id, { city: 'Amsterdam' }));
    expect(res.statusCode).toBe(303);
    const lead = await readLead(id);
    expect(lead.address).toMatchObject({ id: addressId, city: 'Amsterdam' });
    expect((await updatedEvents(id))[0].data.changed).toEqual(['city']);
  });

  it('validation: 422 with messages beside the fields and the typed values kept; nothing changes', async () => {
    const id = await newLead({ title: 'Valid title' });
    const res = await browser.post(
      `/dashboard/leads/${id}/edit`,
      await form(id, {
        title: ' ',
        postalCode: 'X'.repeat(17),
        country: 'ZZ',
        priority: 'asap',
        city: 'Kept <city>',
      }),
    );
    expect(res.statusCode).toBe(422);
    expectToContain(res.body, [
      '<p class="error" id="field-title-error">Job title is required.</p>',
      '<p class="error" id="field-postalCode-error">Postal code must be at most 16 characters.</p>',
      'id="field-country-error"',
      'id="field-priority-error"',
      'value="Kept &lt;city&gt;"',
      `value="${'X'.repeat(17)}"`,
    ]);
    expect((await readLead(id)).title).toBe('Valid title');
    expect(await updatedEvents(id)).toEqual([]);
  });

  it('needs the form token', async () => {
    const id = await newLead({ title: 'Guarded' });
    const res = await browser.post(`/dashboard/leads/${id}/edit`, {
      ...(await form(id, { title: 'Forged' })),
      _csrf: undefined,
    });
    expect(res.statusCode).toBe(403);
    expect((await readLead(id)).title).toBe('Guarded');
  });

  it("another brand's lead is a 404, to look at and to change", async () => {
    const other = await ctx.createLead({ title: 'Not yours' }, ctx.keys.other);
    const get = await browser.get(`/dashboard/leads/${other.id}/edit`);
    expect(get.statusCode).toBe(404);
    expect(get.body).not.toContain('Not yours');
    const post = await browser.post(`/dashboard/leads/${other.id}/edit`, {
      title: 'Taken over',
      street: 'Straat',
      postalCode: '1000',
      city: 'Brussel',
    });
    expect(post.statusCode).toBe(404);
    const still = await ctx.api.get(`/v1/leads/${other.id}`, { key: ctx.keys.other });
    expect(still.json().title).toBe('Not yours');
  });
});
