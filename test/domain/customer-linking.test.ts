// Linking a lead to a customer in the domain, without the API: the rules of src/customers/customers.ts as
// createLead applies them. The same email (any case) is the same customer; without an email the same phone is;
// an email with the phone of a customer that has no email yet joins it. Strangers are never merged: a phone
// shared by two people with different emails, and leads without email or phone, make customers of their own.
// Linking fills empty fields and never overwrites one; a company name makes a person a business.
import { beforeAll, describe, expect, it } from 'vitest';
import { createBrand } from '../../src/accounts/brands.js';
import { findCustomerFor } from '../../src/customers/customers.js';
import { createLead, type LeadSource } from '../../src/leads/index.js';
import { parseLeadInput } from '../../src/leads/input.js';
import { NotFoundError } from '../../src/shared/errors.js';
import { newId } from '../../src/shared/ids.js';
import { dialects, validLead } from '../helpers.js';
import { migratedDatabase } from '../migrated-database.js';

describe.each(dialects())('linking leads to customers on %s', (dialect) => {
  const database = migratedDatabase(dialect);
  let brandId = '';
  let otherBrandId = '';
  // Registered after migratedDatabase's beforeAll, so it runs on the migrated database.
  beforeAll(async () => {
    brandId = (await createBrand(database, { language: 'en', name: 'Acme Plumbing', country: 'NL' })).id;
    otherBrandId = (await createBrand(database, { language: 'en', name: 'Other Builders', country: 'BE' }))
      .id;
  });
  let n = 0;
  /** An email and phone no other test uses. */
  const email = (name: string) => `${name}-${++n}-${Date.now()}@example.com`;
  const phone = () =>
    `+3162${String(Date.now() % 1_000_000).padStart(6, '0')}${String(++n % 100).padStart(2, '0')}`;

  const source = (brand: string): LeadSource => ({
    brandId: brand,
    source: 'website',
    keyId: 'key_domain',
    keyName: 'Domain test',
  });
  /** Creates a lead (contact fields a test leaves out are absent) and returns its customer's id. */
  const customerOf = async (fields: Record<string, unknown>, brand = brandId) => {
    const created = await createLead(database, source(brand), parseLeadInput(validLead(fields)));
    return created.customerId;
  };
  const customer = (id: string) =>
    database.db.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const customerCount = async (brand = brandId) =>
    Number(
      (
        await database.db
          .selectFrom('customers')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('brand_id', '=', brand)
          .executeTakeFirstOrThrow()
      ).n,
    );
  /** The brand's customer events after `mark` (an event id), oldest first. */
  const customerEventsSince = async (mark: string) =>
    (
      await database.db
        .selectFrom('events')
        .select(['type', 'data'])
        .where('brand_id', '=', brandId)
        .where('id', '>', mark)
        .where('type', 'like', 'customer.%')
        .orderBy('id')
        .execute()
    ).map((e) => ({
      type: e.type,
      ...(JSON.parse(e.data) as { customer: { id: string }; changed?: string[] }),
    }));

  it('the same email links to the same customer, in any case and with spaces around it', async () => {
    const address = email('anna');
    const first = await customerOf({ email: address, customerName: 'Anna de Vries' });
    const again = await customerOf({ email: `  ${address.toUpperCase()} `, customerName: 'A. de Vries' });
    expect(again).toBe(first);
    // The first name given stays: linking never overwrites.
    expect(await customer(first)).toMatchObject({ name: 'Anna de Vries', email: address });
    expect(await findCustomerFor(database, brandId, { email: address.toUpperCase(), phone: null })).toEqual({
      id: first,
      rule: 'email',
    });
  });

  it('an email match fills the customer’s empty fields (customer.updated naming them), never a filled one', async () => {
    const address = email('bram');
    const id = await customerOf({ email: address, customerName: 'Bram', phone: undefined });
    const mark = newId('event');
    const first = phone();
    expect(
      await customerOf({ email: address, customerName: 'Someone Else', phone: first, firstName: 'Bram' }),
    ).toBe(id);
    expect(await customer(id)).toMatchObject({ name: 'Bram', phone: first, first_name: 'Bram' });
    const events = await customerEventsSince(mark);
    expect(events).toEqual([
      expect.objectContaining({ type: 'customer.updated', changed: ['firstName', 'phone'] }),
    ]);
    // A second phone for the same email changes nothing: the customer keeps the first.
    const mark2 = newId('event');
    expect(await customerOf({ email: address, phone: phone() })).toBe(id);
    expect((await customer(id)).phone).toBe(first);
    expect(await customerEventsSince(mark2)).toEqual([]);
  });

  it('without an email the same phone links to the same customer', async () => {
    const number = phone();
    const id = await customerOf({ email: undefined, phone: number, customerName: 'Caller' });
    expect(await customerOf({ email: undefined, phone: number, customerName: 'Caller again' })).toBe(id);
    expect(await findCustomerFor(database, brandId, { email: null, phone: number })).toEqual({
      id,
      rule: 'phone',
    });
  });

  it('an email with the phone of a customer without an email joins that customer, which gains the email', async () => {
    const number = phone();
    const id = await customerOf({ email: undefined, phone: number, customerName: 'Dirk' });
    const address = email('dirk');
    const mark = newId('event');
    expect(await customerOf({ email: address, phone: number, customerName: 'Dirk Jansen' })).toBe(id);
    expect(await customer(id)).toMatchObject({ name: 'Dirk', email: address, email_normalized: address });
    expect(await customerEventsSince(mark)).toEqual([
      expect.objectContaining({ type: 'customer.updated', changed: ['email'] }),
    ]);
    // From now on the email finds it too.
    expect(await customerOf({ email: address, phone: undefined })).toBe(id);
  });

  it('never merges strangers: a shared phone with different emails makes two customers, each keeping theirs', async () => {
    const number = phone();
    const [first, second] = [email('eva'), email('frank')];
    const eva = await customerOf({ email: first, phone: number, customerName: 'Eva' });
    const before = await customerCount();
    const frank = await customerOf({ email: second, phone: number, customerName: 'Frank' });
    expect(frank).not.toBe(eva);
    expect(await customerCount()).toBe(before + 1);
    expect(await customer(eva)).toMatchObject({ name: 'Eva', email: first, phone: number });
    expect(await customer(frank)).toMatchObject({ name: 'Frank', email: second, phone: number });
    // A new email with that phone is a third person, not either of them.
    const third = await customerOf({ email: email('gina'), phone: number });
    expect([eva, frank]).not.toContain(third);
  });

  it('without an email, a phone several customers have links to the one whose latest lead is newest', async () => {
    const number = phone();
    // A millisecond apart at least, so "newest" is never a tie.
    const later = () => new Promise((resolve) => setTimeout(resolve, 5));
    const older = await customerOf({ email: email('older'), phone: number });
    await later();
    const newer = await customerOf({ email: email('newer'), phone: number });
    await later();
    expect(await customerOf({ email: undefined, phone: number })).toBe(newer);
    await later();
    // A newer lead for the older customer makes it the one.
    expect(await customerOf({ email: (await customer(older)).email, phone: number })).toBe(older);
    await later();
    expect(await customerOf({ email: undefined, phone: number })).toBe(older);
  });

  it('a lead with neither email nor phone is a customer of its own, even with the same name', async () => {
    const fields = { email: undefined, phone: undefined, customerName: 'Anonymous Caller' };
    const first = await customerOf(fields);
    const second = await customerOf(fields);
    expect(second).not.toBe(first);
    expect(await findCustomerFor(database, brandId, { email: null, phone: null })).toBeNull();
  });

  it('brands never share customers: the same email and phone in another brand is another customer', async () => {
    const [address, number] = [email('shared'), phone()];
    const ours = await customerOf({ email: address, phone: number });
    const theirs = await customerOf({ email: address, phone: number }, otherBrandId);
    expect(theirs).not.toBe(ours);
    expect((await customer(theirs)).brand_id).toBe(otherBrandId);
    expect(await customerOf({ email: address, phone: number }, otherBrandId)).toBe(theirs);
  });

  it('a company name makes a person customer a business; it never turns back', async () => {
    const address = email('hanna');
    const id = await customerOf({ email: address, companyName: undefined });
    expect((await customer(id)).type).toBe('person');
    const mark = newId('event');
    await customerOf({ email: address, companyName: 'Hanna Bouw BV' });
    expect(await customer(id)).toMatchObject({ type: 'business', company_name: 'Hanna Bouw BV' });
    expect(await customerEventsSince(mark)).toEqual([
      expect.objectContaining({ type: 'customer.updated', changed: ['companyName', 'type'] }),
    ]);
    await customerOf({ email: address, companyName: undefined });
    expect(await customer(id)).toMatchObject({ type: 'business', company_name: 'Hanna Bouw BV' });
  });

  it('a new customer is announced once (customer.created), linking to it later announces nothing new', async () => {
    const address = email('ivo');
    const mark = newId('event');
    const id = await customerOf({ email: address });
    await customerOf({ email: address });
    expect(await customerEventsSince(mark)).toEqual([
      expect.objectContaining({ type: 'customer.created', customer: expect.objectContaining({ id }) }),
    ]);
  });

  it('two first leads with the same email or phone at once make one customer', async () => {
    const address = email('jet');
    const byEmail = await Promise.all([1, 2, 3].map(() => customerOf({ email: address })));
    expect(new Set(byEmail).size).toBe(1);
    const number = phone();
    const byPhone = await Promise.all([1, 2, 3].map(() => customerOf({ email: undefined, phone: number })));
    expect(new Set(byPhone).size).toBe(1);
  });

  it('a lead for a brand that does not exist is refused, and leaves no customer behind', async () => {
    const address = email('nobody');
    // On PostgreSQL the customer's insert goes to the server before the brand's read is answered (Tx.pipeline).
    const refused = customerOf({ email: address }, 'brd_00000000000000000000000000');
    await expect(refused).rejects.toBeInstanceOf(NotFoundError);
    await expect(refused).rejects.toThrow(/^No brand with id brd_00000000000000000000000000$/);
    expect(
      await findCustomerFor(database, 'brd_00000000000000000000000000', { email: address, phone: null }),
    ).toBeNull();
  });
});
