// Intake that loses nothing: the submission kept with each lead, customers linked without merging strangers,
// random customer and address ids, and customers as a resource (GET /v1/customers, customerId filters, events).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, dialects, TEST_WEBHOOKS, type TestContext, waitFor } from '../helpers.js';
import { type Receiver, startReceiver } from '../receiver.js';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** The time a ULID-shaped id would carry in its first 10 characters. */
function ulidTime(id: string): number {
  return [...id.slice(4, 14)].reduce((t, c) => t * 32 + ALPHABET.indexOf(c), 0);
}

describe.each(dialects())('lossless intake and customers on %s', (dialect) => {
  let ctx: TestContext;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    ctx = await createTestContext(dialect, { webhooks: TEST_WEBHOOKS });
  });
  afterAll(async () => {
    await ctx?.close();
    await receiver?.close();
  });

  const lead = async (fields: Record<string, unknown>) => {
    const created = await ctx.createLead(fields);
    return (await ctx.api.get(`/v1/leads/${created.id}`)).json();
  };
  const customer = async (id: string) => (await ctx.api.get(`/v1/customers/${id}`)).json();
  let n = 0;
  const unique = (prefix: string) => `${prefix}${++n}-${dialect}-${Date.now()}`;
  const phone = () => `+3161${String(Date.now() % 100000).padStart(5, '0')}${String(++n).padStart(2, '0')}`;

  describe('the submission is kept with every lead', () => {
    it('GET /v1/leads/{id} and /v1/work-items/{id} carry `submitted`, normalised, null where absent', async () => {
      const created = await ctx.createLead({
        customerName: '  Sanne de Vries ',
        phone: '+31 (6) 1234-5678',
        country: 'nl',
        street: 'Keizersgracht',
        streetNumber: '123',
        streetNumberAddition: 'A',
        email: 'Sanne@Example.com',
      });
      const read = (await ctx.api.get(`/v1/leads/${created.id}`)).json();
      expect(read.submitted).toEqual({
        customerName: 'Sanne de Vries',
        firstName: null,
        lastName: null,
        email: 'Sanne@Example.com',
        phone: '+31612345678',
        companyName: null,
        street: 'Keizersgracht',
        streetNumber: '123',
        streetNumberAddition: 'A',
        postalCode: '1015 CJ',
        city: 'Amsterdam',
        country: 'NL',
      });
      // Absent country stays null in the submission, while the address takes the brand's default.
      const defaulted = await lead({ country: undefined });
      expect(defaulted.submitted.country).toBeNull();
      expect(defaulted.address.country).toBe('NL');

      await ctx.setStatus(created.id as string, 'scheduled');
      const work = (await ctx.api.get(`/v1/work-items/${created.id}`)).json();
      expect(work.submitted).toEqual(read.submitted);
    });

    it('keeps what differs from the linked customer: a second lead by the same email with a new name, phone and street', async () => {
      const email = `${unique('twice')}@example.com`;
      const first = await lead({ email, customerName: 'Jan Jansen', phone: phone(), city: 'Utrecht' });
      const newPhone = phone();
      const second = await lead({
        email,
        customerName: 'J. Jansen-Bakker',
        phone: newPhone,
        companyName: 'Jansen Bouw',
        street: 'Oudegracht',
        city: 'Leiden',
      });
      expect(second.customer.id).toBe(first.customer.id);
      // The customer keeps its filled fields and gains the company (and becomes a business)...
      expect(second.customer).toMatchObject({
        name: 'Jan Jansen',
        phone: first.customer.phone,
        type: 'business',
      });
      expect(second.customer.companyName).toBe('Jansen Bouw');
      // ...and the lead keeps exactly what was sent.
      expect(second.submitted).toMatchObject({
        customerName: 'J. Jansen-Bakker',
        phone: newPhone,
        companyName: 'Jansen Bouw',
        street: 'Oudegracht',
        city: 'Leiden',
      });
      expect(second.address.street).toBe('Oudegracht');
      expect(second.address.id).not.toBe(first.address.id);
    });

    it('puts `submitted` in the lead of every event and webhook delivery', async () => {
      const endpoint = await ctx.app.inject({
        method: 'POST',
        url: '/v1/webhook-endpoints',
        headers: { 'x-api-key': ctx.keys.full, 'content-type': 'application/json' },
        payload: { url: receiver.url() },
      });
      expect(endpoint.statusCode).toBe(201);
      const email = `${unique('hook')}@example.com`;
      const created = await ctx.createLead({ email, customerName: 'Webhook Person' });
      await ctx.setStatus(created.id as string, 'quoted');
      const events = (await ctx.api.get('/v1/events?type=lead.created,lead.status_changed&limit=100'))
        .json()
        .data.filter((e: { data: { lead: { id: string } } }) => e.data.lead.id === created.id);
      expect(events).toHaveLength(2);
      for (const event of events) {
        expect(event.data.lead.submitted).toMatchObject({ email, customerName: 'Webhook Person' });
        const delivery = await waitFor(() => receiver.forEvent(event.id)[0], `delivery of ${event.type}`);
        expect(JSON.parse(delivery.body).data.lead.submitted).toEqual(event.data.lead.submitted);
      }
      // The customer's own events go out too.
      const created2 = await ctx.createLead({ email: `${unique('hook2')}@example.com` });
      const customerEvent = (await ctx.api.get('/v1/events?type=customer.created&limit=100'))
        .json()
        .data.find((e: { data: { customer: { id: string } } }) => e.data.customer.id === created2.customerId);
      expect(customerEvent).toBeDefined();
      const delivered = await waitFor(
        () => receiver.forEvent(customerEvent.id)[0],
        'customer.created delivery',
      );
      expect(JSON.parse(delivered.body).data.customer.id).toBe(created2.customerId);
      await ctx.app.inject({
        method: 'DELETE',
        url: `/v1/webhook-endpoints/${endpoint.json().id}`,
        headers: { 'x-api-key': ctx.keys.full },
      });
    });
  });

  describe('linking does not merge strangers', () => {
    it('email match with a new phone: the same customer, which gains the phone only if it had none', async () => {
      const email = `${unique('em')}@example.com`;
      const a = await lead({ email });
      expect(a.customer.phone).toBeNull();
      const p1 = phone();
      const b = await lead({ email: email.toUpperCase(), phone: p1 });
      expect(b.customer.id).toBe(a.customer.id);
      expect(b.customer.phone).toBe(p1);
      const c = await lead({ email, phone: phone() });
      expect(c.customer.id).toBe(a.customer.id);
      expect(c.customer.phone).toBe(p1);
    });

    it('phone match with a new email, to a customer without an email: the same customer, which gains the email', async () => {
      const p = phone();
      const a = await lead({ phone: p, email: '' });
      expect(a.customer.email).toBeNull();
      const email = `${unique('later')}@example.com`;
      const b = await lead({ phone: p, email });
      expect(b.customer.id).toBe(a.customer.id);
      expect(b.customer.email).toBe(email);
      expect((await customer(a.customer.id)).email).toBe(email);
    });

    it('phone match where both have different emails: two customers, each with their own details', async () => {
      const p = phone();
      const a = await lead({ phone: p, email: `${unique('one')}@example.com`, customerName: 'First Person' });
      const b = await lead({
        phone: p,
        email: `${unique('two')}@example.com`,
        customerName: 'Second Person',
      });
      expect(b.customer.id).not.toBe(a.customer.id);
      expect(b.customer).toMatchObject({ name: 'Second Person', phone: p, email: b.submitted.email });
      expect((await customer(a.customer.id)).name).toBe('First Person');
    });

    it('no email: links by phone to the customer whose latest lead is newest', async () => {
      const p = phone();
      const a = await lead({ phone: p, email: `${unique('x')}@example.com` });
      const b = await lead({ phone: p, email: `${unique('y')}@example.com` });
      const byPhone = await lead({ phone: p, email: '' });
      expect(byPhone.customer.id).toBe(b.customer.id);
      await lead({ phone: p, email: a.customer.email });
      const again = await lead({ phone: p, email: '' });
      expect(again.customer.id).toBe(a.customer.id);
    });

    it('a company name makes a person customer a business, with a customer.updated event naming the fields', async () => {
      const email = `${unique('biz')}@example.com`;
      const a = await lead({ email });
      expect(a.customer.type).toBe('person');
      const b = await lead({ email, companyName: 'Bakker Vastgoed' });
      expect(b.customer).toMatchObject({
        id: a.customer.id,
        type: 'business',
        companyName: 'Bakker Vastgoed',
      });
      const updated = (await ctx.api.get('/v1/events?type=customer.updated&limit=100'))
        .json()
        .data.find((e: { data: { customer: { id: string } } }) => e.data.customer.id === a.customer.id);
      expect(updated.data.changed).toEqual(['companyName', 'type']);
      expect(updated.data.customer).toMatchObject({ type: 'business', companyName: 'Bakker Vastgoed' });
      // A second lead with the same details changes nothing and writes no event.
      await lead({ email, companyName: 'Bakker Vastgoed' });
      const again = (await ctx.api.get('/v1/events?type=customer.updated&limit=100'))
        .json()
        .data.filter((e: { data: { customer: { id: string } } }) => e.data.customer.id === a.customer.id);
      expect(again).toHaveLength(1);
    });

    it('addresses link only when the street matches too (case and spaces aside)', async () => {
      const email = `${unique('addr')}@example.com`;
      const base = { email, postalCode: '1015 CJ', streetNumber: '5', street: 'Keizersgracht' };
      const a = await lead(base);
      const same = await lead({ ...base, street: 'keizers gracht', postalCode: '1015cj' });
      expect(same.address.id).toBe(a.address.id);
      const other = await lead({ ...base, street: 'Prinsengracht' });
      expect(other.address.id).not.toBe(a.address.id);
      expect(other.address.street).toBe('Prinsengracht');
    });

    it('two identical first submissions at once make one customer (by email, and by phone alone)', async () => {
      const email = `${unique('race')}@example.com`;
      const byEmail = await Promise.all(Array.from({ length: 8 }, () => ctx.createLead({ email })));
      expect(new Set(byEmail.map((l) => l.customerId)).size).toBe(1);
      const p = phone();
      const byPhone = await Promise.all(
        Array.from({ length: 8 }, () => ctx.createLead({ email: '', phone: p })),
      );
      expect(new Set(byPhone.map((l) => l.customerId)).size).toBe(1);
      expect(new Set(byPhone.map((l) => l.addressId)).size).toBe(1);
    });
  });

  it('gives new customers and addresses random ids, not time-ordered ones', async () => {
    const created = [];
    for (let i = 0; i < 8; i++) created.push(await ctx.createLead({ email: `${unique('rnd')}@example.com` }));
    for (const kind of ['customerId', 'addressId'] as const) {
      const ids = created.map((l) => l[kind] as string);
      for (const id of ids) {
        expect(id).toMatch(/^(cus|adr)_[0-9a-hjkmnp-tv-z]{26}$/);
        // A ULID would carry the creation time in its first ten characters; these do not (a random prefix
        // falls within a day of now with a probability of about 1e-7).
        expect(Math.abs(ulidTime(id) - Date.now())).toBeGreaterThan(86_400_000);
      }
    }
    // Lead ids stay time-ordered.
    for (const l of created) expect(Math.abs(ulidTime(l.id as string) - Date.now())).toBeLessThan(600_000);
  });

  describe('GET /v1/customers and /v1/customers/{id}', () => {
    it('lists the brand’s customers newest first with keyset paging, and filters by email, phone and updatedAfter', async () => {
      const email = `${unique('List')}@Example.com`;
      const p = phone();
      const created = await ctx.createLead({ email, phone: p, customerName: 'Listed Customer' });
      const first = (await ctx.api.get('/v1/customers?limit=2', { key: ctx.keys['customers:read'] })).json();
      expect(first.limit).toBe(2);
      expect(first.data).toHaveLength(2);
      expect(first.hasMore).toBe(true);
      expect(Object.keys(first.data[0]).sort()).toEqual(
        [
          'companyName',
          'createdAt',
          'email',
          'firstName',
          'id',
          'lastName',
          'name',
          'phone',
          'type',
          'updatedAt',
        ].sort(),
      );
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { data: { id: string; createdAt: string }[]; nextCursor: string | null } = (
          await ctx.api.get(`/v1/customers?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
        ).json();
        seen.push(...page.data.map((c) => c.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toContain(created.customerId);

      const byEmail = (
        await ctx.api.get(`/v1/customers?email=${encodeURIComponent(email.toLowerCase())}`)
      ).json();
      expect(byEmail.data.map((c: { id: string }) => c.id)).toEqual([created.customerId]);
      const national = `${p.slice(0, 3)} ${p.slice(3, 4)} ${p.slice(4)}`;
      const byPhone = (await ctx.api.get(`/v1/customers?phone=${encodeURIComponent(national)}`)).json();
      expect(byPhone.data.map((c: { id: string }) => c.id)).toEqual([created.customerId]);
      const bad = await ctx.api.get('/v1/customers?phone=0612');
      expect(bad.statusCode).toBe(422);
      expect(bad.json().errors[0].field).toBe('phone');

      const detail = await customer(created.customerId as string);
      const later = (
        await ctx.api.get(`/v1/customers?updatedAfter=${encodeURIComponent(detail.updatedAt)}`)
      ).json();
      expect(later.data.map((c: { id: string }) => c.id)).not.toContain(created.customerId);
    });

    it('reads one customer with its lead count and latest lead; another brand’s is a 404', async () => {
      const email = `${unique('one')}@example.com`;
      const a = await ctx.createLead({ email });
      const b = await ctx.createLead({ email });
      const read = await ctx.api.get(`/v1/customers/${a.customerId}`, { key: ctx.keys['customers:read'] });
      expect(read.statusCode).toBe(200);
      expect(read.json()).toMatchObject({ id: a.customerId, leadCount: 2, lastLeadAt: b.receivedAt, email });
      expect((await ctx.api.get(`/v1/customers/${a.customerId}`, { key: ctx.keys.other })).statusCode).toBe(
        404,
      );
      expect((await ctx.api.get('/v1/customers/cus_nope')).statusCode).toBe(404);
    });

    it('needs customers:read (or full)', async () => {
      expect((await ctx.api.get('/v1/customers', { key: ctx.keys['leads:read'] })).statusCode).toBe(403);
      const refused = await ctx.api.get('/v1/customers', { key: ctx.keys['leads:write'] });
      expect(refused.json().detail).toContain('customers:read');
      expect((await ctx.api.get('/v1/customers', { key: ctx.keys['customers:read'] })).statusCode).toBe(200);
      expect((await ctx.api.get('/v1/customers', { key: ctx.keys.full })).statusCode).toBe(200);
    });

    it('filters leads and work items by customerId; an unknown or another brand’s customer is a 422 naming it', async () => {
      const email = `${unique('filter')}@example.com`;
      const a = await ctx.createLead({ email });
      const b = await ctx.createLead({ email });
      await ctx.setStatus(b.id as string, 'scheduled');
      await ctx.createLead();
      const leads = (await ctx.api.get(`/v1/leads?customerId=${a.customerId}`)).json();
      expect(leads.data.map((l: { id: string }) => l.id)).toEqual([a.id]);
      const work = (await ctx.api.get(`/v1/work-items?customerId=${a.customerId}`)).json();
      expect(work.data.map((l: { id: string }) => l.id)).toEqual([b.id]);
      const theirs = await ctx.createLead({}, ctx.keys.other);
      for (const id of ['cus_unknown', theirs.customerId]) {
        for (const list of ['/v1/leads', '/v1/work-items']) {
          const res = await ctx.api.get(`${list}?customerId=${id}`);
          expect(res.statusCode, `${list} ${id}`).toBe(422);
          expect(res.json().errors).toEqual([
            { field: 'customerId', message: 'is not a customer of this brand' },
          ]);
        }
      }
    });
  });
});
