// The customers' field table (src/customers/fields.ts: CONTACT_FIELDS, ADDRESS_FIELDS) and what is derived from
// it: the Customer and Address schemas' field properties, toCustomer's and the address list's mapping from
// columns to API names, and the column lists of the customers' and addresses' SQL. A field a derived list cannot
// place (a schema property without a table entry, a column the SQL does not write or read, a mapping that drops
// a field) fails here, not in a client. Whether each column is in its table on a migrated database is checked by
// test/domain/fields.test.ts (every contact and address field is a lead field); that its type is declared in
// platform/db/schema.ts, below and by tsc wherever the column lists meet Kysely.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ADDRESS_EXAMPLE, CUSTOMER_EXAMPLE } from '../../src/api/examples.js';
import { type Address, AddressSchema, toAddress } from '../../src/customers/addresses.js';
import {
  type Customer,
  CustomerDetailSchema,
  CustomerSchema,
  toCustomer,
} from '../../src/customers/customers.js';
import {
  ADDRESS_FIELDS,
  type AddressField,
  CONTACT_FIELDS,
  type ColumnOf,
  type ContactField,
  columnsOf,
  type FieldSpec,
  type FieldTable,
} from '../../src/customers/fields.js';
import {
  ADDRESS_INSERT_COLUMNS,
  type AddressRow,
  CUSTOMER_COLUMNS,
  CUSTOMER_INSERT_COLUMNS,
  type CustomerRow,
} from '../../src/customers/queries.js';
import { LeadDetailSchema } from '../../src/leads/index.js';
import { parseLeadInput } from '../../src/leads/input.js';
import type { AddressTable, CustomerTable } from '../../src/platform/db/schema.js';
import { translator } from '../../src/shared/i18n/index.js';
import { dialects } from '../helpers.js';
import { useTestContext } from '../test-context.js';

const CONTACT = Object.keys(CONTACT_FIELDS) as ContactField[];
const ADDRESS = Object.keys(ADDRESS_FIELDS) as AddressField[];
const TABLES: [string, FieldTable][] = [
  ['contact', CONTACT_FIELDS],
  ['address', ADDRESS_FIELDS],
];

interface ObjectSchema {
  properties: Record<string, { type: string | string[]; description?: string }>;
  required?: string[];
}
const object = (schema: unknown) => schema as ObjectSchema;

// Checked by tsc (vitest does not check types): every field's column is a column of its table in
// platform/db/schema.ts, and the read types have exactly the table's fields besides their own.
expectTypeOf<ColumnOf<typeof CONTACT_FIELDS>>().toExtend<keyof CustomerTable>();
expectTypeOf<ColumnOf<typeof ADDRESS_FIELDS>>().toExtend<keyof AddressTable>();
expectTypeOf<keyof Customer>().toEqualTypeOf<
  'id' | 'type' | ContactField | 'createdAt' | 'updatedAt' | 'erased' | 'erasedAt'
>();
expectTypeOf<keyof Address>().toEqualTypeOf<'id' | 'customerId' | AddressField | 'createdAt' | 'updatedAt'>();
expectTypeOf<Customer['name']>().toEqualTypeOf<CustomerTable['name']>();
expectTypeOf<Customer['companyName']>().toEqualTypeOf<CustomerTable['company_name']>();
expectTypeOf<Address['streetNumber']>().toEqualTypeOf<AddressTable['street_number']>();
expectTypeOf<Address['country']>().toEqualTypeOf<AddressTable['country']>();

/** What the read schema of a field says: a string, null too unless it is always there; its read description. */
function expectReadSchema(
  name: string,
  f: FieldSpec,
  property: ObjectSchema['properties'][string] | undefined,
) {
  expect(property, name).toBeDefined();
  expect(property!.type, name).toEqual(f.required || f.alwaysSet ? 'string' : ['string', 'null']);
  expect(property!.description, name).toBe(f.readDescription);
}

describe('the customers’ field table', () => {
  it.each(TABLES)('declares every %s field with its own column, a label and a length', (_, table) => {
    const columns = columnsOf(table);
    expect(columns.length).toBeGreaterThan(4);
    expect(new Set(columns).size).toBe(columns.length);
    for (const [name, f] of Object.entries(table)) {
      expect(f.column, name).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(translator('en').t(f.label), name).toMatch(/\S/);
      expect(translator('nl').t(f.label), name).toMatch(/\S/);
      expect(f.maxLength, name).toBeGreaterThan(0);
    }
  });

  it('gives every contact field its own input name', () => {
    const inputs = Object.values(CONTACT_FIELDS).map((f) => f.input);
    expect(new Set(inputs).size).toBe(inputs.length);
  });
});

describe('the read schemas', () => {
  it('Customer has its own properties and every contact field, each as the table says, and no other', () => {
    const schema = object(CustomerSchema);
    expect(Object.keys(schema.properties)).toEqual([
      'id',
      'type',
      ...CONTACT,
      'createdAt',
      'updatedAt',
      'erased',
      'erasedAt',
    ]);
    // Only an erased customer has `erased` and `erasedAt`.
    expect([...(schema.required ?? [])].sort()).toEqual(
      Object.keys(schema.properties)
        .filter((k) => k !== 'erased' && k !== 'erasedAt')
        .sort(),
    );
    for (const name of CONTACT) expectReadSchema(name, CONTACT_FIELDS[name], schema.properties[name]);
    // CustomerDetail is Customer and its counts.
    const detail = object(CustomerDetailSchema);
    expect(Object.keys(detail.properties)).toEqual([
      ...Object.keys(schema.properties),
      'leadCount',
      'lastLeadAt',
    ]);
  });

  it('Address has its own properties and every address field, each as the table says, and no other', () => {
    const schema = object(AddressSchema);
    expect(Object.keys(schema.properties)).toEqual([
      'id',
      'customerId',
      ...ADDRESS,
      'createdAt',
      'updatedAt',
    ]);
    expect([...(schema.required ?? [])].sort()).toEqual(Object.keys(schema.properties).sort());
    for (const name of ADDRESS) expectReadSchema(name, ADDRESS_FIELDS[name], schema.properties[name]);
  });

  it('a lead’s customer and address say of each field what the customers API says', () => {
    const lead = object(LeadDetailSchema).properties as unknown as Record<string, ObjectSchema>;
    for (const name of CONTACT)
      expect(lead.customer!.properties[name], name).toEqual(object(CustomerSchema).properties[name]);
    for (const name of ADDRESS)
      expect(lead.address!.properties[name], name).toEqual(object(AddressSchema).properties[name]);
  });

  it('the examples have every field of their schema', () => {
    expect(Object.keys(CUSTOMER_EXAMPLE)).toEqual(Object.keys(object(CustomerSchema).properties));
    expect(Object.keys(ADDRESS_EXAMPLE)).toEqual(Object.keys(object(AddressSchema).properties));
  });
});

describe('rows and columns', () => {
  /** A row whose every text column holds its own name, so each value says which column it was read from. */
  const rowOf = (columns: readonly string[]): unknown => ({
    ...Object.fromEntries(columns.map((c) => [c, c])),
    created_at: 0,
    updated_at: 1,
    erased_at: null,
  });

  it('toCustomer reads every contact field from its column, and drops none', () => {
    const customer = toCustomer(rowOf(CUSTOMER_COLUMNS) as CustomerRow);
    const properties = Object.keys(object(CustomerSchema).properties);
    expect(Object.keys(customer)).toEqual(properties.filter((k) => k !== 'erased' && k !== 'erasedAt'));
    for (const name of CONTACT) expect(customer[name], name).toBe(CONTACT_FIELDS[name].column);
    const erased = toCustomer({ ...(rowOf(CUSTOMER_COLUMNS) as CustomerRow), erased_at: 2 });
    expect(Object.keys(erased)).toEqual(properties);
    expect(erased).toMatchObject({ erased: true, erasedAt: '1970-01-01T00:00:00.002Z' });
  });

  it('toAddress reads every address field from its column, and drops none', () => {
    const address = toAddress(rowOf(ADDRESS_INSERT_COLUMNS) as AddressRow);
    expect(Object.keys(address)).toEqual(Object.keys(object(AddressSchema).properties));
    for (const name of ADDRESS) expect(address[name], name).toBe(ADDRESS_FIELDS[name].column);
  });

  it('the customers’ SQL reads and writes every contact field’s column, once', () => {
    for (const columns of [CUSTOMER_COLUMNS, CUSTOMER_INSERT_COLUMNS]) {
      expect(new Set(columns).size).toBe(columns.length);
      expect(columns).toEqual(expect.arrayContaining(columnsOf(CONTACT_FIELDS)));
    }
  });

  it('the addresses’ insert writes every address field’s column, once', () => {
    expect(new Set(ADDRESS_INSERT_COLUMNS).size).toBe(ADDRESS_INSERT_COLUMNS.length);
    expect(ADDRESS_INSERT_COLUMNS).toEqual(expect.arrayContaining(columnsOf(ADDRESS_FIELDS)));
  });
});

describe.each(dialects())('the customers’ field table against the service on %s', (dialect) => {
  const ctx = useTestContext(dialect);

  it('a customer and address stored with every field read back with all of them, in the API and events', async () => {
    // A different value for every field, so a field stored in or read from another's column shows.
    const stamp = `${dialect}${Date.now()}`;
    const body = {
      title: 'Every field',
      customerName: `Name ${stamp}`,
      firstName: 'First',
      lastName: 'Last',
      email: `every-${stamp}@example.com`,
      phone: `+3162${String(Date.now() % 10_000_000).padStart(7, '0')}`,
      companyName: 'Company',
      street: 'Street',
      streetNumber: '7',
      streetNumberAddition: 'bis',
      postalCode: '1234 AB',
      city: 'City',
      country: 'be',
    };
    const input = parseLeadInput(body);
    const created = await ctx.createLead(body);
    const customerId = created.customerId as string;

    const customer = (await ctx.api.get(`/v1/customers/${customerId}`)).json();
    const events = (await ctx.api.get('/v1/events?type=customer.created&limit=100')).json().data;
    const event = events.find(
      (e: { data: { customer: { id: string } } }) => e.data.customer.id === customerId,
    );
    const listed = (await ctx.api.get('/v1/customers?limit=100')).json().data;
    const inList = listed.find((c: { id: string }) => c.id === customerId);
    for (const name of CONTACT) {
      const expected = input[CONTACT_FIELDS[name].input];
      expect(expected, name).not.toBeNull();
      expect(customer[name], name).toBe(expected);
      expect(event.data.customer[name], name).toBe(expected);
      expect(inList[name], name).toBe(expected);
    }

    const addresses = (await ctx.api.get('/v1/addresses?limit=100')).json().data;
    const address = addresses.find((a: { customerId: string }) => a.customerId === customerId);
    for (const name of ADDRESS) {
      const expected = name === 'country' ? 'BE' : input[name];
      expect(expected, name).not.toBeNull();
      expect(address[name], name).toBe(expected);
    }
  });
});
