// A customer that only spam has is known to nobody: in no list and no read, until a real lead links to it, which
// then announces it with customer.created (not customer.updated: to the outside it is new).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, dialects, type TestContext, validLead } from '../helpers.js';

const ORIGIN = 'https://www.dak.example';

describe.each(dialects())('customers of spam on %s', (dialect) => {
  let ctx: TestContext;
  let formId: string;

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v1/forms',
      headers: { 'x-api-key': ctx.keys.full },
      payload: { name: 'Roof', allowedOrigins: [ORIGIN] },
    });
    formId = res.json().id;
  });
  afterAll(async () => {
    await ctx?.close();
  });

  const customerByEmail = async (email: string) =>
    ctx.app.deps.database.db
      .selectFrom('customers')
      .select('id')
      .where('email_normalized', '=', email)
      .executeTakeFirst();
  const customerEvents = async (id: string) =>
    (await ctx.api.get('/v1/events?limit=100'))
      .json()
      .data.filter(
        (e: { type: string; data: { customer?: { id: string } } }) => e.data.customer?.id === id,
      ) as { type: string }[];

  it('is hidden from the customer list, its read and the customerId filter; a real lead then announces it', async () => {
    const email = 'dakgoot@spam.example';
    const spam = await ctx.app.inject({
      method: 'POST',
      url: `/f/${formId}`,
      headers: { origin: ORIGIN, 'content-type': 'application/json' },
      payload: { ...validLead({ email, customerName: 'Spam Bot' }), _gotcha: 'x' },
    });
    expect(spam.statusCode).toBe(201);
    const quiet = await customerByEmail(email);
    expect(quiet, 'the spam lead is linked to a stored customer').toBeDefined();
    const id = quiet!.id;

    const listed = (await ctx.api.get('/v1/customers?limit=100'))
      .json()
      .data.map((c: { id: string }) => c.id);
    expect(listed).not.toContain(id);
    expect((await ctx.api.get(`/v1/customers?email=${email}`)).json().data).toEqual([]);
    expect((await ctx.api.get(`/v1/customers/${id}`)).statusCode).toBe(404);
    expect((await ctx.api.get(`/v1/leads?customerId=${id}`)).statusCode).toBe(422);
    expect(await customerEvents(id)).toEqual([]);

    // A real lead from the same person: the customer appears, announced as created, filled from this lead.
    const real = await ctx.createLead(validLead({ email, customerName: 'Anna Dak', phone: '+31611112222' }));
    expect(real.customerId).toBe(id);
    const read = await ctx.api.get(`/v1/customers/${id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ id, leadCount: 1 });
    expect(
      (await ctx.api.get('/v1/customers?limit=100')).json().data.map((c: { id: string }) => c.id),
    ).toContain(id);
    expect((await customerEvents(id)).map((e) => e.type)).toEqual(['customer.created']);
    // A second real lead is an ordinary link: customer.updated only if it fills something.
    await ctx.createLead(validLead({ email, customerName: 'Anna Dak', companyName: 'Dak BV' }));
    expect((await customerEvents(id)).map((e) => e.type)).toEqual(['customer.updated', 'customer.created']);
  });
});
