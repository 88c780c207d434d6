// Customers: linking a lead to the brand's customer it belongs to (without merging strangers), and reading them.
//
// The rules (docs/api-contract.md, Lead creation): a submission with an email links to the customer with that
// email, or else to one with the same phone that has no email yet (which then gains it); one without an email
// links to the customer with that phone (the one with the latest lead). Otherwise a customer is created. Linking
// fills the customer's empty fields and never overwrites a filled one; a company name makes it a business.
import { type Static, Type } from '@sinclair/typebox';
import { type ExpressionBuilder, type Selectable, sql } from 'kysely';
import { keysetPage } from '../platform/db/keyset.js';
import type { CustomerTable, Tables } from '../platform/db/schema.js';
import { planFor, searchedLeadIds } from '../platform/db/search.js';
import { type Runner, statement } from '../platform/db/sql.js';
import type { Store, Tx } from '../platform/db/store.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import { newRandomId } from '../shared/ids.js';
import { NullableString, Timestamp } from '../shared/json-schema.js';
import { type Page, type SortOrder, toPage } from '../shared/paging.js';
import { iso } from '../shared/time.js';
import { normalizePhone } from '../shared/values.js';
import { recordEvent } from '../webhooks/events.js';
import { CONTACT_FIELDS, type ContactField, type ContactInput } from './fields.js';

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

/** The customer fields a submission can fill, with their columns and input names (fields.ts). */
const CONTACT = (Object.keys(CONTACT_FIELDS) as ContactField[]).map((field) => ({
  field,
  column: CONTACT_FIELDS[field].column,
  input: CONTACT_FIELDS[field].input,
}));

export type { ContactField, ContactInput };
export type Contact = { [K in ContactField]: string | null };

type CustomerRow = Omit<Selectable<CustomerTable>, 'brand_id' | 'email_normalized'>;

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
/** Takes the advisory locks of the keys in its one parameter (contactLockKeys), in their order. */
export const CONTACT_LOCKS_SQL = 'select pg_advisory_xact_lock(hashtext(k)) from unnest(?::text[]) as k';
const LOCK = statement(`select count(*) as n from (${CONTACT_LOCKS_SQL}) as locks`);

/** By email; else by phone among customers without an email (any, when the submission has none), latest lead first. */
const FIND_TEXT =
  'select ' +
  '(select c.id from customers c where c.brand_id = ? and c.email_normalized = ?) as by_email, ' +
  '(select c.id from customers c where c.brand_id = ? and c.phone = ? and (? = 1 or c.email_normalized is null) ' +
  'order by (select max(l.received_at) from leads l where l.customer_id = c.id) desc, c.created_at desc ' +
  'limit 1) as by_phone';
const FIND = statement(FIND_TEXT);
/** FIND's parameters: the email as matched (customerEmailKey) and the E.164 phone. */
const findParams = (brandId: string, email: string | null, phone: string | null) => [
  brandId,
  email,
  brandId,
  phone,
  email ? 0 : 1,
];
/** What FIND's row says: the customer by email, else by phone, else none. */
function foundIn(
  row: { by_email?: string | null; by_phone?: string | null } | undefined,
): CustomerFound | null {
  if (row?.by_email) return { id: row.by_email, rule: 'email' };
  if (row?.by_phone) return { id: row.by_phone, rule: 'phone' };
  return null;
}

/** Which customer a submission links to, and by which rule. */
export interface CustomerFound {
  id: string;
  rule: 'email' | 'phone';
}

/**
 * The customer an email and an E.164 phone link to by the contract's rules, without changing anything: what
 * linkCustomer links to, and what the dashboard suggests while someone types a lead in. Null: a new customer.
 * (A customer only spam has is found too; callers that show it to people must leave it out: see matchCustomer.)
 */
export async function findCustomerFor(
  r: Runner,
  brandId: string,
  contact: { email: string | null; phone: string | null },
): Promise<CustomerFound | null> {
  const [found] = await r.all<{ by_email: string | null; by_phone: string | null }>(
    FIND,
    findParams(brandId, customerEmailKey(contact), contact.phone),
  );
  return foundIn(found);
}

/** A customer a lead being typed in would be added to, as the dashboard names it before saving. */
export interface CustomerMatch {
  id: string;
  name: string;
  companyName: string | null;
  /** Leads and work items of this customer, in any state (spam left out). */
  leadCount: number;
}

/**
 * The customer a lead with this email and phone (already normalised: trimmed email, E.164 phone) would be linked
 * to when saved now, with the rule that links it: findCustomerFor, so it never disagrees with saving. A customer
 * only spam has is known to nobody and is not named (saving would announce it as a new customer).
 */
export async function matchCustomer(
  store: Store,
  brandId: string,
  contact: { email: string | null; phone: string | null },
): Promise<{ match: CustomerMatch | null; rule: 'email' | 'phone' | null }> {
  if (!contact.email && !contact.phone) return { match: null, rule: null };
  const found = await findCustomerFor(store, brandId, contact);
  if (!found) return { match: null, rule: null };
  const row = await store.db
    .selectFrom('customers as c')
    .select([
      'c.id',
      'c.name',
      'c.company_name',
      (eb) =>
        eb
          .selectFrom('leads as l')
          .select((e) => e.fn.countAll<number>().as('n'))
          .whereRef('l.customer_id', '=', 'c.id')
          .where('l.spam', '=', 0)
          .as('lead_count'),
    ])
    .where('c.id', '=', found.id)
    .where('c.brand_id', '=', brandId)
    .where(hasRealLead('c.id'))
    .executeTakeFirst();
  if (!row) return { match: null, rule: null };
  return {
    match: {
      id: row.id,
      name: row.name,
      companyName: row.company_name,
      leadCount: Number(row.lead_count ?? 0),
    },
    rule: found.rule,
  };
}

/** PostgreSQL: takes the locks of these emails and phones (every email first), held until the commit. */
async function lockContacts(
  tx: Tx,
  contacts: readonly { brandId: string; email: string | null; phone: string | null }[],
): Promise<void> {
  if (tx.dialect !== 'postgres') return;
  const keys = contactLockKeys(contacts);
  if (keys.length) await tx.all(LOCK, [keys]);
}

/** The lock keys of one submission's contact (see contactLockKeys). */
export function submissionLockKeys(brandId: string, input: ContactInput): string[] {
  return contactLockKeys([{ brandId, email: customerEmailKey(input), phone: input.phone }]);
}

/**
 * The advisory lock keys of these contacts (emails already lower case), in the order they must be taken: for a
 * caller that takes them within a statement of its own (`pg_advisory_xact_lock(hashtext(k))` over them) and then
 * passes `locked` to linkCustomer.
 */
export function contactLockKeys(
  contacts: readonly { brandId: string; email: string | null; phone: string | null }[],
): string[] {
  const emails = contacts.flatMap((c) => (c.email ? [`${c.brandId}|e|${c.email}`] : []));
  const phones = contacts.flatMap((c) => (c.phone ? [`${c.brandId}|p|${c.phone}`] : []));
  return [...new Set(emails)].sort().concat([...new Set(phones)].sort());
}
const BY_ID = statement(`select ${COLUMNS} from customers where id = ? and brand_id = ?`);
const INSERT_COLUMNS =
  'insert into customers (id, brand_id, type, name, first_name, last_name, email, email_normalized, phone, ' +
  'company_name, created_at, updated_at)';
const INSERT = statement(
  `${INSERT_COLUMNS} values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing returning ${COLUMNS}`,
);
/**
 * PostgreSQL: FIND, and INSERT when it finds nothing, in one round trip. The statement's snapshot is taken after
 * the contact locks were (an earlier statement), so it sees every customer committed under them.
 */
const FIND_OR_INSERT = statement(
  `with found as (${FIND_TEXT}), inserted as (${INSERT_COLUMNS} ` +
    'select ?::text, ?::text, ?::text, ?::text, ?::text, ?::text, ?::text, ?::text, ?::text, ?::text, ?::bigint, ' +
    '?::bigint where not exists (select 1 from found where by_email is not null or by_phone is not null) ' +
    `on conflict do nothing returning ${COLUMNS}) ` +
    'select found.by_email, found.by_phone, inserted.* from found left join inserted on true',
);

export interface LinkedCustomer {
  id: string;
  /** New to the outside: customer.created was written (a fresh row, or one only spam had used so far). */
  created: boolean;
  /** A row inserted by this transaction: nothing (no address) can refer to it yet. */
  inserted?: true;
  /** Fields the submission filled on an existing customer. */
  changed: string[];
  /**
   * The customer's type and contact as this transaction leaves them (the new lead's list item and lead.created
   * show them); absent for a quiet (spam) link.
   */
  contact?: LinkedContact;
}

export type LinkedContact = Contact & Pick<Customer, 'type'>;

const contactOf = (customer: Customer): LinkedContact => ({
  type: customer.type,
  ...(Object.fromEntries(CONTACT.map(({ field }) => [field, customer[field]])) as Contact),
});

/**
 * Links the submission to the brand's customer it belongs to, filling that customer's empty fields, or creates
 * one. Writes customer.created or customer.updated (with `changed`) in the same transaction.
 */
export async function linkCustomer(
  tx: Tx,
  brandId: string,
  input: ContactInput,
  now: number,
  /** locked: the caller took this contact's locks already (contactLockKeys). */
  options: { quiet?: boolean; locked?: boolean } = {},
): Promise<LinkedCustomer> {
  const email = customerEmailKey(input);
  if (!options.locked) await lockContacts(tx, [{ brandId, email, phone: input.phone }]);
  for (let round = 0; round < 2; round++) {
    const id = newRandomId('customer');
    const values = [
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
    ];
    let existing: string | null;
    let inserted: CustomerRow | undefined;
    if (tx.dialect === 'postgres') {
      const [row] = await tx.all<{ by_email: string | null; by_phone: string | null } & Partial<CustomerRow>>(
        FIND_OR_INSERT,
        [...findParams(brandId, email, input.phone), ...values],
      );
      existing = foundIn(row)?.id ?? null;
      inserted = row?.id ? (row as CustomerRow) : undefined;
    } else {
      existing = (await findCustomerFor(tx, brandId, input))?.id ?? null;
      inserted = existing ? undefined : (await tx.all<CustomerRow>(INSERT, values))[0];
    }
    // Quiet (a spam lead): linked, but the customer is neither filled in nor announced.
    if (existing) {
      if (options.quiet) return { id: existing, created: false, changed: [] };
      // Only spam had this customer so far: to the outside it is new (customer.created), filled from this lead.
      if (!(await announced(tx, existing, ''))) {
        return announceQuietCustomer(tx, brandId, existing, input, now, '');
      }
      return fillCustomer(tx, brandId, existing, input, now);
    }

    // The row comes back whole (returning), so customer.created needs no read of it.
    if (inserted) {
      const customer = toCustomer(inserted);
      if (!options.quiet) await recordEvent(tx, brandId, 'customer.created', { customer }, now);
      return { id, created: true, inserted: true, changed: [], contact: contactOf(customer) };
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
  input: ContactInput,
  now: number,
): Promise<LinkedCustomer> {
  const current = await readCustomer(tx, brandId, id);
  const fill: Partial<Contact> = {};
  for (const { field, input: from } of CONTACT) {
    const value = input[from];
    if (value !== null && current[field] === null) fill[field] = value;
  }
  const changed = await updateCustomer(tx, brandId, current, fill, now);
  const contact = { ...contactOf(current), ...fill };
  // As updateCustomer decides: a company name makes a person a business.
  if (contact.type === 'person' && contact.companyName !== null) contact.type = 'business';
  return { id, created: false, changed, contact };
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
    .where(hasRealLead('c.id'))
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
    .where(hasRealLead('customers.id'))
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * A customer that only spam leads have is known to nobody outside (spam is in no list and fires no event): it is
 * in no list and no read until a real lead links to it or its spam is released.
 */
function hasRealLead(customerId: 'c.id' | 'customers.id') {
  return sql<boolean>`exists (select 1 from leads l where l.customer_id = ${sql.ref(customerId)} and l.spam = 0)`;
}

export interface CustomerListQuery {
  limit: number;
  order: SortOrder;
  cursor?: string;
  updatedAfter?: number;
  email?: string;
  phone?: string;
  /** `q`: customers with a lead (not spam) the search finds (see leads/search.ts). */
  search?: string;
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
      .where('brand_id', '=', brandId)
      .where(hasRealLead('customers.id')),
    { time: 'created_at', id: 'id' },
    query,
  );
  if (query.updatedAfter !== undefined) q = q.where('updated_at', '>', query.updatedAfter);
  if (query.email !== undefined) q = q.where('email_normalized', '=', query.email.trim().toLowerCase());
  if (phone !== undefined) q = q.where('phone', '=', phone);
  if (query.search !== undefined && query.search.trim() !== '') {
    // The leads' text index: every document holds its customer's name, company, email and phone.
    const ids = searchedLeadIds(store.dialect, await planFor(store, brandId, query.search));
    q = q.where(
      sql<boolean>`customers.id in (select l.customer_id from leads l where l.brand_id = ${brandId} and l.spam = 0 and l.id in (${ids}))`,
    );
  }
  const rows = await q.execute();
  return toPage(rows, query.limit, query.order, (r) => ({ time: r.created_at, id: r.id }), toCustomer);
}

/** True when a lead other than `exceptLeadId` that is not spam belongs to the customer: the outside knows it. */
async function announced(tx: Tx, customerId: string, exceptLeadId: string): Promise<boolean> {
  const row = await tx.db
    .selectFrom('leads')
    .select('id')
    .where('customer_id', '=', customerId)
    .where('spam', '=', 0)
    .where('id', '!=', exceptLeadId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * A spam lead released ("Not spam"): links what it was submitted with as a lead arriving now is linked, and tells
 * the outside what that lead would have told it. A customer some other real lead already has is filled in
 * (customer.updated naming the fields). One only spam had so far, created or linked quietly, is filled in without
 * an event and then announced with customer.created, as a new customer.
 */
export async function linkReleasedCustomer(
  tx: Tx,
  brandId: string,
  input: ContactInput,
  leadId: string,
  now: number,
): Promise<LinkedCustomer> {
  const linked = await linkCustomer(tx, brandId, input, now, { quiet: true });
  return announceQuietCustomer(tx, brandId, linked.id, input, now, leadId);
}

/**
 * A real lead (new, or spam released) for a customer that may so far have had only spam: if so, the customer is
 * filled in without an event and announced with customer.created, as a new customer; otherwise it is filled in as
 * usual (customer.updated naming the fields).
 */
async function announceQuietCustomer(
  tx: Tx,
  brandId: string,
  id: string,
  input: ContactInput,
  now: number,
  exceptLeadId: string,
): Promise<LinkedCustomer> {
  if (tx.dialect === 'postgres') {
    // Two real leads for the same quiet customer, found by different keys, must not both announce it.
    await tx.db.selectFrom('customers').select('id').where('id', '=', id).forUpdate().execute();
  }
  if (await announced(tx, id, exceptLeadId)) return fillCustomer(tx, brandId, id, input, now);
  const current = await readCustomer(tx, brandId, id);
  const set: Record<string, unknown> = {};
  for (const { field, column, input: from } of CONTACT) {
    const value = input[from];
    if (value !== null && current[field] === null) set[column] = value;
  }
  if ('email' in set) set.email_normalized = customerEmailKey(input);
  if (current.type === 'person' && (current.companyName ?? input.companyName) !== null) set.type = 'business';
  if (Object.keys(set).length) {
    await tx.db
      .updateTable('customers')
      .set({ ...set, updated_at: now })
      .where('id', '=', id)
      .where('brand_id', '=', brandId)
      .execute();
  }
  const customer = await readCustomer(tx, brandId, id);
  await recordEvent(tx, brandId, 'customer.created', { customer }, now);
  return { id, created: true, changed: [], contact: contactOf(customer) };
}

/**
 * Deletes those of the given addresses and customers that no lead refers to any more: what only spam leads had
 * (see leads/spam.ts). On PostgreSQL it first takes the locks linkCustomer takes for each customer's email and
 * phone, so a submission linking to one of them at the same moment either commits first (and it stays) or waits
 * and finds none. Returns how many customers were deleted.
 */
export async function deleteUnusedCustomers(
  tx: Tx,
  ids: { customerIds: readonly string[]; addressIds: readonly string[] },
): Promise<number> {
  const customerIds = [...new Set(ids.customerIds)];
  const addressIds = [...new Set(ids.addressIds)];
  if (!customerIds.length && !addressIds.length) return 0;
  const owners = await tx.db
    .selectFrom('customers')
    .select(['id', 'brand_id', 'email_normalized', 'phone'])
    .where((eb) =>
      eb.or([
        ...(customerIds.length ? [eb('id', 'in', customerIds)] : []),
        ...(addressIds.length
          ? [eb('id', 'in', eb.selectFrom('addresses').select('customer_id').where('id', 'in', addressIds))]
          : []),
      ]),
    )
    .execute();
  await lockContacts(
    tx,
    owners.map((c) => ({ brandId: c.brand_id, email: c.email_normalized, phone: c.phone })),
  );
  const unusedAddress = (eb: ExpressionBuilder<Tables, 'addresses'>) =>
    eb.not(
      eb.exists(eb.selectFrom('leads').select('leads.id').whereRef('leads.address_id', '=', 'addresses.id')),
    );
  if (addressIds.length) {
    await tx.db.deleteFrom('addresses').where('id', 'in', addressIds).where(unusedAddress).execute();
  }
  if (!customerIds.length) return 0;
  const unused = await tx.db
    .selectFrom('customers as c')
    .select('c.id')
    .where('c.id', 'in', customerIds)
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('leads').select('leads.id').whereRef('leads.customer_id', '=', 'c.id'))),
    )
    .execute();
  const gone = unused.map((c) => c.id);
  if (!gone.length) return 0;
  await tx.db.deleteFrom('addresses').where('customer_id', 'in', gone).where(unusedAddress).execute();
  await tx.db.deleteFrom('customers').where('id', 'in', gone).execute();
  return gone.length;
}
