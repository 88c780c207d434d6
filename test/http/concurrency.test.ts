// Parallel POST /v1/leads for one person: the customer (by email, else phone) and the address are each created
// once, however the requests interleave, and every lead is stored.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, dialects, type TestContext, validLead } from '../helpers.js';

const PARALLEL = 50;

/** The same address written in different ways: varying case and whitespace. */
function variants(value: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const cased = [...value].map((c, j) => ((i >> (j % 5)) & 1 ? c.toUpperCase() : c.toLowerCase())).join('');
    return `${' '.repeat(i % 3)}${cased}${'\t '.slice(0, i % 2 ? 2 : 0)}`;
  });
}

const PHONE_FORMATS = [
  '+31612345678',
  '+31 6 1234 5678',
  '+31 (6) 12-34-56-78',
  '+31.6.12.34.56.78',
  '+31-6-12345678',
  ' +31 612 345 678 ',
];

describe.each(dialects())('parallel lead creation on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
  });
  afterAll(async () => ctx?.close());

  async function postAll(bodies: Record<string, unknown>[]) {
    const results = await Promise.all(
      bodies.map((body) => ctx.api.post('/v1/leads', body, { key: ctx.keys['leads:write'] })),
    );
    for (const res of results) expect(res.statusCode, res.body).toBe(201);
    const leads = results.map((r) => r.json() as Record<string, string>);
    expect(new Set(leads.map((l) => l.id)).size).toBe(bodies.length);
    return leads;
  }

  const countRows = async (table: 'customers' | 'addresses' | 'leads', column: string, value: string) => {
    const row = await ctx.app.deps.database.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('brand_id', '=', ctx.brandId)
      .where(sql.ref(column), '=', value)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  it('the same email in different case and whitespace: one customer, every lead kept', async () => {
    const email = `Jane.Doe.${dialect}@Example.com`;
    const bodies = variants(email, PARALLEL).map((e, i) =>
      validLead({ email: e, customerName: 'Jane Doe', postalCode: `10${String(i).padStart(2, '0')} AB` }),
    );
    const leads = await postAll(bodies);
    const customerIds = new Set(leads.map((l) => l.customerId));
    expect(customerIds.size).toBe(1);
    const [customerId] = customerIds;
    expect(await countRows('customers', 'email_normalized', email.toLowerCase())).toBe(1);
    expect(await countRows('leads', 'customer_id', customerId!)).toBe(PARALLEL);
    // Different postal codes: one address each.
    expect(new Set(leads.map((l) => l.addressId)).size).toBe(PARALLEL);
    expect(await countRows('addresses', 'customer_id', customerId!)).toBe(PARALLEL);
  });

  it('the same phone in different formats: one customer, stored in E.164', async () => {
    const bodies = Array.from({ length: PARALLEL }, (_, i) =>
      validLead({
        email: undefined,
        phone: PHONE_FORMATS[i % PHONE_FORMATS.length],
        streetNumber: `${i + 1}`,
      }),
    );
    const leads = await postAll(bodies);
    expect(new Set(leads.map((l) => l.customerId)).size).toBe(1);
    expect(await countRows('customers', 'phone', '+31612345678')).toBe(1);
    expect(await countRows('leads', 'customer_id', leads[0]!.customerId!)).toBe(PARALLEL);
  });

  it('the same customer and the same address in parallel: one customer, one address', async () => {
    const email = `same.place.${dialect}@example.com`;
    const postalCodes = ['3511 AB', '3511ab', ' 3511 ab ', '3511AB'];
    const bodies = variants(email, PARALLEL).map((e, i) =>
      validLead({
        email: e,
        postalCode: postalCodes[i % postalCodes.length],
        streetNumber: '4',
        streetNumberAddition: i % 2 ? 'a' : 'A',
        city: 'Utrecht',
      }),
    );
    const leads = await postAll(bodies);
    expect(new Set(leads.map((l) => l.customerId)).size).toBe(1);
    expect(new Set(leads.map((l) => l.addressId)).size).toBe(1);
    expect(await countRows('customers', 'email_normalized', email)).toBe(1);
    expect(await countRows('addresses', 'customer_id', leads[0]!.customerId!)).toBe(1);
    expect(await countRows('leads', 'address_id', leads[0]!.addressId!)).toBe(PARALLEL);
  });
});
