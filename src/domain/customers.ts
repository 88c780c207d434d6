// Customers: linking a lead to the brand's customer it belongs to (without merging strangers), and reading them.
//
// The rules (docs/api-contract.md, Lead creation): a submission with an email links to the customer with that
// email, or else to one with the same phone that has no email yet (which then gains it); one without an email
// links to the customer with that phone (the one with the latest lead). Otherwise a customer is created. Linking
// fills the customer's empty fields and never overwrites a filled one; a company name makes it a business.
import { type Static, Type } from '@sinclair/typebox';
import { statement } from '../db/sql.js';
import type { Store, Tx } from '../db/store.js';
import { NotFoundError, ValidationError } from './errors.js';
import { recordEvent } from './events.js';
import { newRandomId } from './ids.js';
import { NullableString, Timestamp } from './json-schema.js';
import { type LeadInput, normalizePhone } from './lead-input.js';
import { keysetPage, type Page, type SortOrder, toPage } from './paging.js';
import { iso } from './time.js';

export const CustomerSchema = Type.Object(
  {
    id: Type.String({ description: 'cus_… identifier (random, not time-ordered).' }),
    type: Type.Unsafe<'person' | 'business'>({
      type: 'string',
      enum: ['person', 'business'],
      description: '"business" once any lead of the customer gave a company name.',
    }),
    name: Type.String(),
    firstName: NullableString(),
    lastName: NullableString(),
    companyName: NullableString(),
    email: NullableString(),
    phone: NullableString({ description: 'E.164' }),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { additionalProperties: false, title: 'Customer' },
);
export type Customer = Static<typeof CustomerSchema>;

export const CustomerDetailSchema = Type.Object(
  {
    ...CustomerSchema.properties,
    leadCount: Type.Integer({ description: 'Leads and work items of this customer, in any state.' }),
    lastLeadAt: NullableString({ format: 'date-time', description: 'When the latest of them was received.' }),
  },
  { additionalProperties: false, title: 'CustomerDetail' },
);
export type CustomerDetail = Static<typeof CustomerDetailSchema>;

/** The customer fields a submission can fill, with their columns. */
const CONTACT = [
  { field: 'name', column: 'name', input: 'customerName' },
  { field: 'firstName', column: 'first_name', input: 'firstName' },
  { field: 'lastName', column: 'last_name', input: 'lastName' },
  { field: 'email', column: 'email', input: 'email' },
  { field: 'phone', column: 'phone', input: 'phone' },
  { field: 'companyName', column: 'company_name', input: 'companyName' },
] as const satisfies readonly { field: keyof Customer; column: string; input: keyof LeadInput }[];
export type ContactField = (typeof CONTACT)[number]['field'];
export type Contact = { [K in ContactField]: string | null };

interface CustomerRow {
  id: string;
  type: string;
  name: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  company_name: string | null;
  created_at: number;
  updated_at: number;
}

const COLUMNS = 'id, type, name, first_name, last_name, email, phone, company_name, created_at, updated_at';

export function toCustomer(row: CustomerRow): Customer {
  return {
    id: row.id,
    type: row.type === 'business' ? 'business' : 'person',
    name: row.name,
    firstName: row.first_name,
    lastName: row.last_name,
    companyName: row.company_name,
    email: row.email,
    phone: row.phone,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** The email as customers are matched by it: lower case. */
export function customerEmailKey(input: { email: string | null }): string | null {
  return input.email ? input.email.toLowerCase() : null;
}

// PostgreSQL: submissions naming the same email or phone wait for each other, so two at once make one customer
// (SQLite runs one write at a time). Always email before phone, so two waiters never hold each other's lock.
const LOCK = statement(
  'select count(*) as n from (select pg_advisory_xact_lock(hashtext(k)) from unnest(?::text[]) as k) as locks',
);

/** By email; else by phone among customers without an email (any, when the submission has none), latest lead first. */
const FIND = statement(
  'select ' +
    '(select c.id from customers c where c.brand_id = ? and c.email_normalized = ?) as by_email, ' +
    '(select c.id from customers c where c.brand_id = ? and c.phone = ? and (? = 1 or c.email_normalized is null) ' +
    'order by (select max(l.received_at) from leads l where l.customer_id = c.id) desc, c.created_at desc ' +
    'limit 1) as by_phone',
);
const BY_ID = statement(`select ${COLUMNS} from customers where id = ? and brand_id = ?`);
const INSERT = statement(
  'insert into customers (id, brand_id, type, name, first_name, last_name, email, email_normalized, phone, ' +
    'company_name, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ' +
    'on conflict do nothing returning id',
);

export interface LinkedCustomer {
  id: string;
  created: boolean;
  /** Fields the submission filled on an existing customer. */
  changed: string[];
}

/**
 * Links the submission to the brand's customer it belongs to, filling that customer's empty fields, or creates
 * one. Writes customer.created or customer.updated (with `changed`) in the same transaction.
 */
export async function linkCustomer(
  tx: Tx,
  brandId: string,
  input: LeadInput,
  now: number,
  options: { quiet?: boolean } = {},
): Promise<LinkedCustomer> {
  const email = customerEmailKey(input);
  if (tx.dialect === 'postgres' && (email || input.phone)) {
    const keys = [
      ...(email ? [`${brandId}|e|${email}`] : []),
      ...(input.phone ? [`${brandId}|p|${input.phone}`] : []),
    ];
    await tx.all(LOCK, [keys]);
  }
  for (let round = 0; round < 2; round++) {
    const [found] = await tx.all<{ by_email: string | null; by_phone: string | null }>(FIND, [
      brandId,
      email,
      brandId,
      input.phone,
      email ? 0 : 1,
    ]);
    const existing = found?.by_email ?? found?.by_phone ?? null;
    // Quiet (a spam lead): linked, but the customer is neither filled in nor announced.
    if (existing) {
      return options.quiet
        ? { id: existing, created: false, changed: [] }
        : fillCustomer(tx, brandId, existing, input, now);
    }

    const id = newRandomId('customer');
    const [inserted] = await tx.all<{ id: string }>(INSERT, [
      id,
      brandId,
      input.companyName ? 'business' : 'person',
      input.customerName,
      input.firstName,
      input.lastName,
      input.email,
      email,
      input.phone,
      input.companyName,
      now,
      now,
    ]);
    if (inserted) {
      if (!options.quiet) {
        const customer = await readCustomer(tx, brandId, id);
        await recordEvent(tx, brandId, 'customer.created', { customer }, now);
      }
      return { id, created: true, changed: [] };
    }
    // Another transaction created a customer with this email meanwhile: link to it on the next round.
  }
  throw new Error('customer insert conflicted but no matching customer was found');
}

export async function readCustomer(r: Pick<Store, 'all'>, brandId: string, id: string): Promise<Customer> {
  const [row] = await r.all<CustomerRow>(BY_ID, [id, brandId]);
  if (!row) throw new NotFoundError(`No customer with id ${id}`);
  return toCustomer(row);
}

/** Fills the customer's empty contact fields from the submission; company name makes it a business. */
async function fillCustomer(
  tx: Tx,
  brandId: string,
  id: string,
  input: LeadInput,
  now: number,
): Promise<LinkedCustomer> {
  const current = await readCustomer(tx, brandId, id);
  const fill: Partial<Contact> = {};
  for (const { field, input: from } of CONTACT) {
    const value = input[from];
    if (value !== null && current[field] === null) fill[field] = value;
  }
  const changed = await updateCustomer(tx, brandId, current, fill, now);
  return { id, created: false, changed };
}

/**
 * Sets contact fields of a customer and writes customer.updated naming them. Returns the names of the fields
 * that changed (none: nothing is written). A company name makes the customer a business.
 */
export async function updateCustomer(
  tx: Tx,
  brandId: string,
  current: Customer,
  values: Partial<Contact>,
  now: number,
): Promise<string[]> {
  const changes = CONTACT.filter((c) => c.field in values && values[c.field] !== current[c.field]);
  const becomesBusiness = current.type === 'person' && (values.companyName ?? current.companyName) !== null;
  const changed: string[] = changes.map((c) => c.field);
  if (becomesBusiness) changed.push('type');
  if (!changed.length) return [];
  const set: Record<string, unknown> = { updated_at: now };
  for (const c of changes) set[c.column] = values[c.field] ?? null;
  if ('email' in values) set.email_normalized = customerEmailKey({ email: values.email ?? null });
  if (becomesBusiness) set.type = 'business';
  await tx.db
    .updateTable('customers')
    .set(set)
    .where('id', '=', current.id)
    .where('brand_id', '=', brandId)
    .execute();
  const customer = await readCustomer(tx, brandId, current.id);
  await recordEvent(tx, brandId, 'customer.updated', { customer, changed }, now);
  return changed;
}

/** One customer of the brand with how many leads it has and when the last came in. NotFoundError otherwise. */
export async function getCustomer(store: Store, brandId: string, id: string): Promise<CustomerDetail> {
  const row = await store.db
    .selectFrom('customers as c')
    .select([
      'c.id',
      'c.type',
      'c.name',
      'c.first_name',
      'c.last_name',
      'c.email',
      'c.phone',
      'c.company_name',
      'c.created_at',
      'c.updated_at',
      (eb) =>
        eb
          .selectFrom('leads as l')
          .select((e) => e.fn.countAll<number>().as('n'))
          .whereRef('l.customer_id', '=', 'c.id')
          .where('l.spam', '=', 0)
          .as('lead_count'),
      (eb) =>
        eb
          .selectFrom('leads as l')
          .select((e) => e.fn.max('l.received_at').as('m'))
          .whereRef('l.customer_id', '=', 'c.id')
          .where('l.spam', '=', 0)
          .as('last_lead_at'),
    ])
    .where('c.id', '=', id)
    .where('c.brand_id', '=', brandId)
    .executeTakeFirst();
  if (!row) throw new NotFoundError(`No customer with id ${id}`);
  const lastLeadAt =
    row.last_lead_at === null || row.last_lead_at === undefined ? null : Number(row.last_lead_at);
  return {
    ...toCustomer(row),
    leadCount: Number(row.lead_count ?? 0),
    lastLeadAt: lastLeadAt === null ? null : iso(lastLeadAt),
  };
}

/** True when the brand has this customer (for filters, which must not pass an unknown id as "no results"). */
export async function customerExists(store: Store, brandId: string, id: string): Promise<boolean> {
  const row = await store.db
    .selectFrom('customers')
    .select('id')
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .executeTakeFirst();
  return row !== undefined;
}

export interface CustomerListQuery {
  limit: number;
  order: SortOrder;
  cursor?: string;
  updatedAfter?: number;
  email?: string;
  phone?: string;
}

/** The brand's customers, newest first by (createdAt, id), keyset-paged; filters by email and phone. */
export async function listCustomers(
  store: Store,
  brandId: string,
  query: CustomerListQuery,
): Promise<Page<Customer>> {
  let phone: string | undefined;
  if (query.phone !== undefined) {
    const result = normalizePhone(query.phone.trim());
    if ('error' in result) throw new ValidationError([{ field: 'phone', message: result.error }]);
    phone = result.phone;
  }
  let q = keysetPage(
    store.db
      .selectFrom('customers')
      .select([
        'id',
        'type',
        'name',
        'first_name',
        'last_name',
        'email',
        'phone',
        'company_name',
        'created_at',
        'updated_at',
      ])
      .where('brand_id', '=', brandId),
    { time: 'created_at', id: 'id' },
    query,
  );
  if (query.updatedAfter !== undefined) q = q.where('updated_at', '>', query.updatedAfter);
  if (query.email !== undefined) q = q.where('email_normalized', '=', query.email.trim().toLowerCase());
  if (phone !== undefined) q = q.where('phone', '=', phone);
  const rows = await q.execute();
  return toPage(rows, query.limit, query.order, (r) => ({ time: r.created_at, id: r.id }), toCustomer);
}
