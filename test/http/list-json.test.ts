// The lists of leads and work items from ready JSON (domain/leads/list-json.ts): the bytes are those the list
// always sent, a stored item is never stale whatever changes the lead, its customer, its address or its assignee,
// a write-back that a change overtook writes nothing, and leads written around the service are rendered.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLead, type LeadSource, listLeads } from '../../src/leads/index.js';
import { parseLeadInput } from '../../src/leads/input.js';
import {
  listLeadsJson,
  renderListJson,
  renderMissingListJson,
  storeListJson,
} from '../../src/leads/list-json.js';
import { CREATED_FIELDS } from '../../src/leads/shape.js';
import { newId } from '../../src/shared/ids.js';
import { addUser } from '../dashboard/helpers.js';
import { createTestContext, dialects, type TestContext, validLead, waitFor } from '../helpers.js';

describe.each(dialects())('lists from ready JSON on %s', (dialect) => {
  let ctx: TestContext;
  let ann: { id: string };
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    ann = await addUser(ctx.app, ctx.brandId, 'ann-list@example.com', 'member');
  });
  afterAll(async () => ctx?.close());

  const store = () => ctx.app.deps.database;
  const db = () => ctx.app.deps.database.db;
  const patch = async (id: string, payload: unknown) => {
    const res = await ctx.api.patch(`/v1/leads/${id}`, payload);
    expect(res.statusCode, res.body).toBe(200);
  };
  const stored = async (id: string) =>
    (
      await db()
        .selectFrom('leads')
        .select(['list_json', 'list_rev'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).list_json;
  /** What the list sent before ready JSON: listLeads' objects through the envelope, serialised. */
  const expected = async (stage: 'lead' | 'work', limit = 100) => {
    const page = await listLeads(store(), ctx.brandId, stage, { limit, order: 'desc' });
    return JSON.stringify({
      data: page.data,
      limit: page.limit,
      hasMore: page.hasMore,
      nextCursor: page.nextCursor,
    });
  };
  /** Where a website form's lead comes from (createLead's origin), with the form's parts not given left empty. */
  const viaForm = (
    form: Pick<NonNullable<LeadSource['form']>, 'id' | 'name' | 'spam'> &
      Partial<NonNullable<LeadSource['form']>>,
  ): LeadSource => ({
    brandId: ctx.brandId,
    source: 'form',
    keyId: null,
    keyName: null,
    form: { extraFields: null, attribution: null, consent: null, ...form },
  });
  const render = async (id: string) => (await renderListJson(store(), [id])).get(id)!;

  it('stores a new lead’s item with the lead, the one a fresh rendering gives, whichever way it links', async () => {
    const check = async (lead: Record<string, unknown>) => {
      const json = await stored(lead.id as string);
      expect(json).not.toBeNull();
      expect(json).toBe((await render(lead.id as string)).json);
      return JSON.parse(json!) as { title: string; customer: Record<string, unknown> };
    };
    // A new customer at a new address, with characters JSON escapes.
    const first = await ctx.createLead({
      title: 'Quote "urgent" \\ </script> ünïcødé 🚰',
      customerName: 'Zoë "Z" O’Brien',
      email: 'zoe-list@example.com',
      companyName: null,
      streetNumber: '7',
    });
    expect((await check(first)).title).toBe('Quote "urgent" \\ </script> ünïcødé 🚰');
    // The same customer again (by email), filling an empty phone and company, at the same address written
    // differently: the item shows the customer and address as stored, not as sent.
    const again = await ctx.createLead({
      customerName: 'Z. O’Brien',
      email: 'ZOE-LIST@example.com',
      phone: '+31612345678',
      companyName: 'Brien & Zonen',
      streetNumber: '7',
      postalCode: '1015cj',
    });
    expect(again.addressId).toBe(first.addressId);
    const item = await check(again);
    expect(item.customer).toMatchObject({
      name: 'Zoë "Z" O’Brien',
      phone: '+31612345678',
      companyName: 'Brien & Zonen',
    });
    // The earlier lead's item was cleared by the customer's change, or shows it.
    const earlier = await stored(first.id as string);
    if (earlier !== null) expect(JSON.parse(earlier).customer.phone).toBe('+31612345678');
    // A customer only spam knew so far, announced by a real lead.
    const spam = await createLead(
      store(),
      viaForm({ id: 'frm_00000000000000000000000000', name: 'Spam trap', spam: true }),
      parseLeadInput(validLead({ email: 'quiet-list@example.com', customerName: 'Quiet One' })),
    );
    expect(await stored(spam.id)).toBeNull();
    await check(
      await ctx.createLead({
        email: 'quiet-list@example.com',
        customerName: 'Quiet One',
        phone: '+31687654321',
      }),
    );
  });

  it('lead.created carries the lead exactly as GET /v1/leads/{id} sends it, whichever way it was made', async () => {
    // Compared at once: the event is the lead as it was made, and a later lead may fill in its customer.
    const compare = async (made: { id?: unknown }) => {
      const id = made.id as string;
      const events = (await ctx.api.get('/v1/events?type=lead.created&limit=20')).json().data as {
        data: { lead: { id: string } };
      }[];
      const event = events.find((e) => e.data.lead.id === id);
      expect(event, id).toBeDefined();
      expect(JSON.stringify(event!.data.lead)).toBe((await ctx.api.get(`/v1/leads/${id}`)).body);
    };
    await compare(
      await ctx.createLead({ email: 'event-a@example.com', companyName: 'Event BV', notes: 'Side door' }),
    );
    await compare(
      await ctx.createLead({
        email: 'event-a@example.com',
        phone: '+31611112222',
        firstName: 'Eva',
        streetNumberAddition: 'B',
      }),
    );
    await compare(
      await createLead(
        store(),
        viaForm({
          id: 'frm_00000000000000000000000001',
          name: 'Contact page',
          spam: false,
          extraFields: { floor: '3rd', pets: 'cat' },
          attribution: { utm_source: 'google', referrer: 'https://example.org/' },
          consent: { text: 'You may call me.', at: '2026-11-24T10:00:00.000Z' },
        }),
        parseLeadInput(validLead({ email: 'event-form@example.com', country: 'BE' })),
      ),
    );
    // With files: lead.created carries their attachments, and the list item their count.
    const withFiles = await createLead(
      store(),
      {
        ...viaForm({ id: 'frm_00000000000000000000000002', name: 'Photos', spam: false }),
        files: {
          received: ['kitchen.png', 'tap.jpg'].map((fileName, i) => ({
            id: newId('attachment'),
            fileName,
            contentType: i === 0 ? 'image/png' : 'image/jpeg',
            size: 68 + i,
            sha256: String(i).repeat(64),
            width: 1,
            height: 1,
            storageKey: `list-json-test/${fileName}`,
          })),
          source: 'form',
          maxPerLead: 10,
        },
      },
      parseLeadInput(validLead({ email: 'event-files@example.com' })),
    );
    await compare(withFiles);
    // Its stored item (if the count's update left one) is the one a rendering gives.
    const filesItem = await stored(withFiles.id);
    if (filesItem !== null) expect(filesItem).toBe((await render(withFiles.id)).json);
    expect(JSON.parse((await render(withFiles.id)).json).attachmentCount).toBe(2);
    await compare(
      await createLead(
        store(),
        {
          brandId: ctx.brandId,
          source: 'phone',
          keyId: null,
          keyName: null,
          user: { id: ann.id, name: 'Ann' },
        },
        parseLeadInput(validLead({ email: null, phone: '+31622223333', description: null })),
      ),
    );
  });

  it('answers a create with the fields of the lead a read gives, in the order of the created schema', async () => {
    const created = await ctx.api.post('/v1/leads', validLead({ email: 'created-body@example.com' }));
    expect(created.statusCode, created.body).toBe(201);
    const read = (await ctx.api.get(`/v1/leads/${created.json().id}`)).json() as Record<string, unknown>;
    expect(created.body).toBe(JSON.stringify(Object.fromEntries(CREATED_FIELDS.map((f) => [f, read[f]]))));
  });

  it('sends the bytes the list always sent, for leads and for work items with and without a visit', async () => {
    for (let i = 0; i < 6; i++) await ctx.createLead({ title: `Byte check ${i}`, description: null });
    const [a, b, c] = (await ctx.api.get('/v1/leads?limit=3')).json().data as { id: string }[];
    await patch(a!.id, { status: 'scheduled' });
    await patch(b!.id, {
      status: 'scheduled',
      scheduledFor: '2026-12-01T09:00:00.000Z',
      durationMinutes: 90,
      assigneeId: ann.id,
    });
    await patch(c!.id, { status: 'quoted' });
    for (const [url, stage] of [
      ['/v1/leads?limit=100', 'lead'],
      ['/v1/work-items?limit=100', 'work'],
    ] as const) {
      const res = await ctx.api.get(url);
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe(await expected(stage));
      // And again once the write-backs are in: from stored items alone.
      const ids = (res.json().data as { id: string }[]).map((i) => i.id);
      await waitFor(async () => {
        const nulls = await db()
          .selectFrom('leads')
          .select('id')
          .where('id', 'in', ids)
          .where('list_json', 'is', null)
          .execute();
        return nulls.length === 0;
      }, 'every listed item stored');
      expect((await ctx.api.get(url)).body).toBe(await expected(stage));
    }
    // Paged the same way too: the cursor of a ready page continues it.
    const first = (await ctx.api.get('/v1/leads?limit=2')).json();
    const next = await ctx.api.get(`/v1/leads?limit=2&cursor=${first.nextCursor}`);
    const page = await listLeads(store(), ctx.brandId, 'lead', {
      limit: 2,
      order: 'desc',
      cursor: first.nextCursor,
    });
    expect(next.body).toBe(JSON.stringify(page));
  });

  it('never keeps a stale item: every change to the lead, its customer, its address or its assignee shows', async () => {
    const lead = await ctx.createLead({ title: 'Changes everywhere' });
    const id = lead.id as string;
    const customerId = lead.customerId as string;
    const addressId = lead.addressId as string;
    const check = async (what: string, find: (item: Record<string, unknown>) => unknown, want: unknown) => {
      // Cleared or equal to a fresh rendering, never an old one.
      const json = await stored(id);
      if (json !== null) expect(json, what).toBe((await render(id)).json);
      for (const url of ['/v1/leads?limit=100', '/v1/work-items?limit=100']) {
        const item = ((await ctx.api.get(url)).json().data as Record<string, unknown>[]).find(
          (i) => i.id === id,
        );
        if (item) expect(find(item), what).toEqual(want);
      }
    };
    await db()
      .updateTable('customers')
      .set({ name: 'Renamed Customer' })
      .where('id', '=', customerId)
      .execute();
    await check('customer name', (i) => (i.customer as { name: string }).name, 'Renamed Customer');
    await db().updateTable('customers').set({ phone: '+31201234567' }).where('id', '=', customerId).execute();
    await check('customer phone', (i) => (i.customer as { phone: string }).phone, '+31201234567');
    await db().updateTable('addresses').set({ city: 'Haarlem' }).where('id', '=', addressId).execute();
    await check('address city', (i) => (i.address as { city: string }).city, 'Haarlem');
    await db().updateTable('leads').set({ title: 'Edited title' }).where('id', '=', id).execute();
    await check('lead title', (i) => i.title, 'Edited title');
    await patch(id, { status: 'quoted' });
    await check('status', (i) => i.status, 'quoted');
    await patch(id, { status: 'scheduled', assigneeId: ann.id, scheduledFor: '2026-12-02T10:00:00.000Z' });
    await check('scheduled', (i) => i.status, 'scheduled');
    await db().updateTable('users').set({ name: 'Ann Renamed' }).where('id', '=', ann.id).execute();
    await check('assignee name', (i) => (i.assignee as { name: string }).name, 'Ann Renamed');
    const item = (
      (await ctx.api.get('/v1/work-items?limit=100')).json().data as Record<string, unknown>[]
    ).find((i) => i.id === id);
    expect(item?.scheduledFor).toBe('2026-12-02T10:00:00.000Z');
  });

  it('writes nothing back when the lead changed after it was rendered, and moves list_rev with what it stores', async () => {
    const lead = await ctx.createLead({ title: 'Overtaken' });
    const id = lead.id as string;
    await db().updateTable('leads').set({ title: 'Cleared once' }).where('id', '=', id).execute();
    expect(await stored(id)).toBeNull();
    const old = await render(id);
    await db().updateTable('leads').set({ title: 'Changed meanwhile' }).where('id', '=', id).execute();
    expect(await storeListJson(store(), [old])).toBe(0);
    expect(await stored(id)).toBeNull();
    const fresh = await render(id);
    expect(fresh.rev).toBeGreaterThan(old.rev);
    expect(await storeListJson(store(), [fresh])).toBe(1);
    expect(JSON.parse((await stored(id))!).title).toBe('Changed meanwhile');
    // Storing moved list_rev: the same rendering cannot be stored twice, and the next change still clears it.
    expect(await storeListJson(store(), [fresh])).toBe(0);
    await db().updateTable('leads').set({ priority: 'high' }).where('id', '=', id).execute();
    expect(await stored(id)).toBeNull();
  });

  it('renders leads written around the service, on read and in bulk', async () => {
    await sql`update leads set list_json = null, list_rev = list_rev + 1 where brand_id = ${ctx.brandId}`.execute(
      db(),
    );
    // Paged, in both orders, the cursor taken from a rendered item as from a stored one.
    for (const order of ['desc', 'asc'] as const) {
      let cursor: string | undefined;
      for (let pages = 0; pages < 3; pages++) {
        const query = { limit: 3, order, cursor };
        const ready = await listLeadsJson(store(), ctx.brandId, 'lead', query);
        const page = await listLeads(store(), ctx.brandId, 'lead', query);
        expect(ready.json).toBe(JSON.stringify(page));
        if (pages === 0) expect(page.nextCursor).not.toBeNull();
        if (!page.nextCursor) break;
        cursor = page.nextCursor;
      }
    }
    const ready = await listLeadsJson(store(), ctx.brandId, 'lead', { limit: 100, order: 'desc' });
    expect(ready.json).toBe(await expected('lead'));
    await sql`update leads set list_json = null, list_rev = list_rev + 1 where brand_id = ${ctx.brandId}`.execute(
      db(),
    );
    // Nothing of another brand's, and at most what is missing.
    const stored = await renderMissingListJson(store(), { batch: 7 });
    expect(stored).toBeGreaterThan(0);
    const left = await db()
      .selectFrom('leads')
      .select(db().fn.countAll<number>().as('n'))
      .where('list_json', 'is', null)
      .executeTakeFirstOrThrow();
    expect(Number(left.n)).toBe(0);
    expect((await ctx.api.get('/v1/leads?limit=100')).body).toBe(await expected('lead'));
  });
});
