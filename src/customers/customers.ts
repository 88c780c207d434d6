// Customers: linking a lead to the brand's customer it belongs to (without merging strangers), and reading them.
//
// The rules (docs/api-contract.md, Lead creation): a submission with an email links to the customer with that
// email, or else to one with the same phone that has no email yet (which then gains it); one without an email
// links to the customer with that phone (the one with the latest lead). Otherwise a customer is created. Linking
// fills the customer's empty fields and never overwrites a filled one; a company name makes it a business.
//
// Except for an anonymous post (a website form: no key, no signed-in user, so anyone can send anything): it never
// adds a way to reach the customer. Linked to an existing customer (by email or by phone), it never fills that
// customer's email or phone: else a stranger could put their own email on a phone-only customer (or their phone
// on an email-only one) and be sent what the office sends that customer. It fills only the empty first name,
// last name and company name. What it sent is kept on the lead all the same (its `submitted`), for the office to
// copy over by hand once they know it is right (docs/website-forms.md, "Customers").
import { type Static, Type } from '@sinclair/typebox';
import { sharedLockKey, takeAdvisoryLocks } from '../platform/db/advisory-locks.js';
import type { Runner } from '../platform/db/sql.js';
import type { SentStatement, Store, Tx } from '../platform/db/store.js';
import { DomainError, NotFoundError, ValidationError } from '../shared/errors.js';
import { newRandomId } from '../shared/ids.js';
import { NullableString, Timestamp } from '../shared/json-schema.js';
import { type Page, type Position, type SortOrder, toPage } from '../shared/paging.js';
import { iso } from '../shared/time.js';
import { normalizePhone } from '../shared/values.js';
import { recordEvent } from '../webhooks/events.js';
import { addressMatchKeyAround, type MatchedAddress } from './addresses.js';
import { CONTACT_FIELDS, type ContactField, type ContactInput, readSchemas, valuesByName } from './fields.js';
import {
  type CustomerListRow,
  type CustomerRow,
  countCustomerList,
  customerKnown,
  deleteUnusedAddresses,
  deleteUnusedCustomers as deleteUnusedCustomerRows,
  emailTakenByOther,
  type FoundCustomerIds,
  findCustomer,
  findOrInsertCustomer,
  type ListedAddressRow,
  lockCustomer,
  type NewCustomerRow,
  otherRealLeadExists,
  probeCustomerStatement,
  probedCustomer,
  selectContactsOf,
  selectCustomer,
  selectCustomerDetail,
  selectCustomerErasedAt,
  selectCustomerListPage,
  selectCustomerLocked,
  selectCustomerMatch,
  selectCustomerPage,
  selectOtherCustomerWithEmail,
  updateCustomerRow,
} from './queries.js';

export const CustomerSchema = Type.Object(
  {
    id: Type.String({ description: 'cus_… identifier (random, not time-ordered).' }),
    type: Type.Unsafe<'person' | 'business'>({
      type: 'string',
      enum: ['person', 'business'],
      description: '"business" once any lead of the customer gave a company name.',
    }),
    // The contact fields, as the table declares them (fields.ts), in its order.
    ...readSchemas(CONTACT_FIELDS),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
    erased: Type.Optional(
      Type.Literal(true, {
        description:
          'Present (true) only on an erased customer: its name is the empty string and its other contact fields are null.',
      }),
    ),
    erasedAt: Type.Optional(Timestamp('When the customer was erased; present only with `erased`.')),
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

export function toCustomer(row: CustomerRow): Customer {
  return {
    id: row.id,
    type: row.type === 'business' ? 'business' : 'person',
    ...valuesByName(CONTACT_FIELDS, row),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    ...(row.erased_at === null || row.erased_at === undefined
      ? {}
      : { erased: true as const, erasedAt: iso(Number(row.erased_at)) }),
  };
}

/** A submission's contact (by input names) by the customers' columns (fields.ts), as an insert writes it. */
type ContactColumns = {
  [K in ContactField as (typeof CONTACT_FIELDS)[K]['column']]: ContactInput[(typeof CONTACT_FIELDS)[K]['input']];
};

function contactColumns(input: ContactInput): ContactColumns {
  const out: Record<string, unknown> = {};
  for (const { column, input: from } of CONTACT) out[column] = input[from];
  return out as ContactColumns;
}

/** The email as customers are matched by it: lower case. */
export function customerEmailKey(input: { email: string | null }): string | null {
  return input.email ? input.email.toLowerCase() : null;
}

// PostgreSQL: submissions naming the same email or phone wait for each other, so two at once make one customer
// (SQLite runs one write at a time). Always email before phone, so two waiters never hold each other's lock.

/** What findCustomer's row says: the customer by email, else by phone, else none. */
function foundIn(row: FoundCustomerIds | undefined): CustomerFound | null {
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
  return foundIn(await findCustomer(r, brandId, customerEmailKey(contact), contact.phone));
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
  const row = await selectCustomerMatch(store, brandId, found.id);
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
  await takeAdvisoryLocks(tx, contactLockKeys(contacts));
}

/**
 * How a create holds its phone's lock (PostgreSQL). Alone, as every other write that takes it. Shared, with other
 * creates sharing it: enough to link to a customer found by email, to insert a customer with an email (its own
 * lock, held alone, and the unique email keep that one customer), and to link a submission with only the phone
 * to the customer found by it as it is. Not enough to insert a customer with only a phone, to give a customer
 * found by phone an email, or to fill or announce one found by phone: those two at once could make two customers
 * or overwrite each other. linkCustomer throws PhoneLockShared when it comes to one of them, and the create is
 * tried again holding the lock alone (leads/create.ts). A crowd's creates (many customers sharing a phone, each
 * create with its own email, or a company switchboard's number on every lead) then no longer wait for each other
 * from their first statement to their commit (issue 33).
 */
export type PhoneLock = 'alone' | 'shared';

/** Thrown by linkCustomer holding the phone's lock shared when what it must do needs it alone (see PhoneLock). */
export class PhoneLockShared extends Error {
  constructor() {
    super("linking this submission needs the phone's lock alone");
    this.name = 'PhoneLockShared';
  }
}

/** The lock keys of one submission's contact (see contactLockKeys), the phone's shared when `phone` says so. */
export function submissionLockKeys(
  brandId: string,
  input: ContactInput,
  phone: PhoneLock = 'alone',
): string[] {
  const keys = contactLockKeys([{ brandId, email: customerEmailKey(input), phone: input.phone }]);
  if (phone === 'alone' || !input.phone) return keys;
  const key = phoneLockKey(brandId, input.phone);
  return keys.map((k) => (k === key ? sharedLockKey(k) : k));
}

const emailLockKey = (brandId: string, email: string) => `${brandId}|e|${email}`;
const phoneLockKey = (brandId: string, phone: string) => `${brandId}|p|${phone}`;

/**
 * The advisory lock keys of these contacts (emails already lower case), in the order they must be taken: for a
 * caller that takes them within a statement of its own (`pg_advisory_xact_lock(hashtext(k))` over them) and then
 * passes `locked` to linkCustomer.
 */
export function contactLockKeys(
  contacts: readonly { brandId: string; email: string | null; phone: string | null }[],
): string[] {
  const emails = contacts.flatMap((c) => (c.email ? [emailLockKey(c.brandId, c.email)] : []));
  const phones = contacts.flatMap((c) => (c.phone ? [phoneLockKey(c.brandId, c.phone)] : []));
  return [...new Set(emails)].sort().concat([...new Set(phones)].sort());
}
export interface LinkedCustomer {
  id: string;
  /** New to the outside: customer.created was written (a fresh row, or one only spam had used so far). */
  created: boolean;
  /** A row inserted by this transaction: nothing (no address) can refer to it yet. */
  inserted?: true;
  /** Fields the submission filled on an existing customer. */
  changed: string[];
  /**
   * A submission with no email, linked by its phone to a customer it neither filled nor announced: what a create
   * holding the phone's lock shared may do (PhoneLock), so the next one with this phone may try that.
   */
  shareable?: true;
  /**
   * The customer's address with the submission's match key, as the caller's probe found it (customerProbe), null
   * when it has none; absent when this link was not the probe's.
   */
  probedAddress?: ListedAddressRow | null;
  /**
   * The customer's type and contact as this transaction leaves them (the new lead's list item and lead.created
   * show them); absent for a quiet (spam) link.
   */
  contact?: LinkedContact;
}

export type LinkedContact = Contact & Pick<Customer, 'type'>;

const contactOf = (customer: Customer): LinkedContact => {
  const contact: Record<string, unknown> = { type: customer.type };
  for (const { field } of CONTACT) contact[field] = customer[field];
  return contact as LinkedContact;
};

/**
 * linkCustomer's first find-or-insert on PostgreSQL (a fresh id, the row it inserts when it finds no one), for a
 * caller that sends it in one round trip with a statement of its own that takes the contact's locks first
 * (Tx.pipeline: the find runs after the locks are held, with a snapshot of its own). Its rows go to linkCustomer
 * as `probed`. The customer it finds comes back whole, with whether it was announced, so linking to it reads
 * nothing more (a repeat customer's create, or a crowd's, in as many round trips as a new one's). Holding the
 * phone's lock shared, a submission without an email only finds (PhoneLock).
 */
export interface CustomerProbe {
  id: string;
  sent: SentStatement;
}

export function customerProbe(
  brandId: string,
  input: ContactInput,
  now: number,
  /** How the caller holds the phone's lock: shared, a submission without an email only finds (PhoneLock). */
  phone: PhoneLock,
  /** The submission's address, and the country it names (else the brand's default is the key's). */
  address: MatchedAddress & { country: string | null },
): CustomerProbe {
  const email = customerEmailKey(input);
  const id = newRandomId('customer');
  const insert = phone === 'alone' || email !== null;
  return {
    id,
    sent: probeCustomerStatement(
      brandId,
      email,
      input.phone,
      { ...addressMatchKeyAround(address), country: address.country },
      insert ? newCustomerRow(id, brandId, input, email, now, now) : undefined,
    ),
  };
}

const newCustomerRow = (
  id: string,
  brandId: string,
  input: ContactInput,
  email: string | null,
  now: number,
  /** The received_at of the lead the customer is made for, inserted after it in the same write; else 0. */
  leadAt: number,
): NewCustomerRow => ({
  id,
  brand_id: brandId,
  type: input.companyName ? 'business' : 'person',
  ...contactColumns(input),
  email_normalized: email,
  created_at: now,
  updated_at: now,
  last_lead_at: leadAt,
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
  /**
   * locked: the caller took this contact's locks already (contactLockKeys). anonymous: a website form's post, which
   * never adds an email or phone to an existing customer (see the top of this file). probed: the caller ran the
   * first find-or-insert already (customerProbe, after taking the locks: `locked` too), and these are its rows.
   */
  options: {
    quiet?: boolean;
    locked?: boolean;
    anonymous?: boolean;
    probed?: { probe: CustomerProbe; rows: readonly unknown[] };
    /**
     * The new lead's received_at, when the caller inserts a new lead for this customer after linking: a customer
     * made here starts with it as last_lead_at (NewCustomerRow).
     */
    leadAt?: number;
    /**
     * The caller holds the phone's lock shared (PhoneLock; `locked` too): PhoneLockShared is thrown, before
     * anything is written, when linking needs it alone.
     */
    phoneShared?: boolean;
  } = {},
): Promise<LinkedCustomer> {
  const fill = options.anonymous ? ANONYMOUS_FILL : ALL_FILL;
  const email = customerEmailKey(input);
  if (!options.locked) await lockContacts(tx, [{ brandId, email, phone: input.phone }]);
  for (let round = 0; round < 2; round++) {
    const probed = round === 0 ? options.probed : undefined;
    const id = probed ? probed.probe.id : newRandomId('customer');
    const { found, inserted, linked }: ReturnType<typeof probedCustomer> = probed
      ? probedCustomer(probed.rows)
      : await findOrInsertCustomer(
          tx,
          email,
          input.phone,
          newCustomerRow(id, brandId, input, email, now, options.leadAt ?? 0),
        );
    const link = foundIn(found);
    const existing = link?.id ?? null;
    // Holding the phone's lock shared, a customer found by phone is linked to only as it is (PhoneLock): one
    // without an email would gain this submission's.
    const shared = options.phoneShared === true;
    if (shared && link?.rule === 'phone' && email !== null) throw new PhoneLockShared();
    // Quiet (a spam lead): linked, but the customer is neither filled in nor announced.
    if (existing) {
      const byPhoneOnly = email === null ? ({ shareable: true } as const) : {};
      if (options.quiet) return { id: existing, created: false, changed: [], ...byPhoneOnly };
      // Only spam had this customer so far: to the outside it is new (customer.created), filled from this lead.
      if (!(linked ? linked.announced : await announced(tx, existing, ''))) {
        if (shared && email === null) throw new PhoneLockShared();
        return announceQuietCustomer(tx, brandId, existing, input, now, '', fill);
      }
      // Found by email: its own lock, held alone, keeps any other fill of it away.
      const filled = await fillCustomer(tx, brandId, existing, input, now, fill, {
        shared: shared && email === null,
        ...(linked ? { current: toCustomer(linked.row) } : {}),
      });
      const address = linked ? { probedAddress: linked.address } : {};
      return filled.changed.length ? { ...filled, ...address } : { ...filled, ...byPhoneOnly, ...address };
    }
    // Nothing found: a customer with only this phone is inserted holding its lock alone.
    if (shared && email === null) throw new PhoneLockShared();

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
  const row = await selectCustomer(r, brandId, id);
  if (!row) throw new NotFoundError(`No customer with id ${id}`);
  return toCustomer(row);
}

/** The contact fields a submission may fill on an existing customer: all of them, or an anonymous post's. */
type Fillable = ReadonlySet<ContactField>;
const ALL_FILL: Fillable = new Set(CONTACT.map(({ field }) => field));
/** No email, no phone: nothing that reaches the customer (the rule at the top of this file). */
const ANONYMOUS_FILL: Fillable = new Set<ContactField>(['name', 'firstName', 'lastName', 'companyName']);

/** Fills the customer's empty contact fields (those `fillable`) from the submission; company name makes it a business. */
async function fillCustomer(
  tx: Tx,
  brandId: string,
  id: string,
  input: ContactInput,
  now: number,
  fillable: Fillable,
  options: {
    /** The caller holds the phone's lock shared: PhoneLockShared when there is anything to fill (PhoneLock). */
    shared?: boolean;
    /** The customer as this transaction reads it now, when the caller has it already (customerProbe). */
    current?: Customer;
  } = {},
): Promise<LinkedCustomer> {
  const fillFrom = (customer: Customer) => {
    const fill: Partial<Contact> = {};
    for (const { field, input: from } of CONTACT) {
      const value = input[from];
      if (value !== null && customer[field] === null && fillable.has(field)) fill[field] = value;
    }
    return fill;
  };
  let current = options.current ?? (await readCustomer(tx, brandId, id));
  let fill = fillFrom(current);
  if (Object.keys(fill).length) {
    if (options.shared) throw new PhoneLockShared();
    // What was read holds no lock: a write holding none of this submission's contact locks may fill or edit the
    // same customer meanwhile (one found by its email beside one found by its phone, or an office edit). Read it
    // again holding its row, as the last commit left it, so a field filled meanwhile is never overwritten.
    const locked = await selectCustomerLocked(tx, brandId, id);
    if (!locked) throw new NotFoundError(`No customer with id ${id}`);
    current = toCustomer(locked);
    fill = fillFrom(current);
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
  /** quiet: no customer.updated (a merge announces itself with customer.merged). */
  options: { quiet?: boolean } = {},
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
  await updateCustomerRow(tx, brandId, current.id, set);
  if (options.quiet) return changed;
  const customer = await readCustomer(tx, brandId, current.id);
  await recordEvent(tx, brandId, 'customer.updated', { customer, changed }, now);
  return changed;
}

/** One customer of the brand with how many leads it has and when the last came in. NotFoundError otherwise. */
export async function getCustomer(store: Store, brandId: string, id: string): Promise<CustomerDetail> {
  const row = await selectCustomerDetail(store, brandId, id);
  if (!row) throw new NotFoundError(`No customer with id ${id}`);
  return toCustomerDetail(row);
}

/**
 * When the brand's customer was erased (ISO 8601), or null while it was not. NotFoundError when the brand has no
 * such customer. What the personal-data export asks before it reads anything else.
 */
export async function erasedAtOrMissing(store: Store, brandId: string, id: string): Promise<string | null> {
  const erasedAt = await selectCustomerErasedAt(store, brandId, id);
  if (erasedAt === undefined) throw new NotFoundError(`No customer with id ${id}`);
  return erasedAt === null ? null : iso(Number(erasedAt));
}

/**
 * The one customer of the brand with this email (case-insensitive), as GET /v1/customers?email= finds it;
 * NotFoundError when there is none.
 */
export async function findCustomerByEmail(store: Store, brandId: string, email: string): Promise<Customer> {
  const page = await listCustomers(store, brandId, { limit: 1, order: 'desc', email });
  const found = page.data[0];
  if (!found) throw new NotFoundError(`No customer with email ${email}`);
  return found;
}

/** True when the brand has this customer (for filters, which must not pass an unknown id as "no results"). */
export async function customerExists(store: Store, brandId: string, id: string): Promise<boolean> {
  return customerKnown(store, brandId, id);
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
  const search = query.search?.trim() ? query.search : undefined;
  const rows = await selectCustomerPage(store, brandId, {
    limit: query.limit,
    order: query.order,
    ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
    ...(query.updatedAfter !== undefined ? { updatedAfter: query.updatedAfter } : {}),
    ...(query.email !== undefined ? { email: query.email.trim().toLowerCase() } : {}),
    ...(phone !== undefined ? { phone } : {}),
    ...(search !== undefined ? { search } : {}),
  });
  return toPage(rows, query.limit, query.order, (r) => ({ time: r.created_at, id: r.id }), toCustomer);
}

/** The customers list's query (the dashboard's): a search over the leads' text, and the page. */
export interface CustomerSummaryQuery {
  limit: number;
  cursor?: string;
  /** Customers with a real lead the lead search finds (platform/db/search.ts); blank: every customer. */
  search?: string;
}

const searchOf = (search: string | undefined) => (search?.trim() ? search : undefined);

/** A customer with its count of real leads and when the latest came in (null: none). */
function toCustomerDetail(
  row: CustomerRow & Pick<CustomerListRow, 'lead_count'> & { last_lead_at?: CustomerListRow['last_lead_at'] },
): CustomerDetail {
  const lastLeadAt =
    row.last_lead_at === null || row.last_lead_at === undefined ? null : Number(row.last_lead_at);
  return {
    ...toCustomer(row),
    leadCount: Number(row.lead_count ?? 0),
    lastLeadAt: lastLeadAt === null ? null : iso(lastLeadAt),
  };
}

/**
 * The brand's customers, newest first by (createdAt, id), keyset-paged, each with how many leads it has (in any
 * state, spam left out) and when the latest came in: the dashboard's customers list.
 */
export async function listCustomerSummaries(
  store: Store,
  brandId: string,
  query: CustomerSummaryQuery,
): Promise<Page<CustomerDetail>> {
  const search = searchOf(query.search);
  const rows = await selectCustomerListPage(store, brandId, {
    limit: query.limit,
    order: 'desc',
    ...(query.cursor ? { cursor: query.cursor } : {}),
    ...(search !== undefined ? { search } : {}),
  });
  return toPage(rows, query.limit, 'desc', (r) => ({ time: r.created_at, id: r.id }), toCustomerDetail);
}

/**
 * Counts what listCustomerSummaries lists for the same search: the total, and how many come before `position`
 * (the position a page's cursor starts after) in its order, for "26–50 of 312".
 */
export async function countCustomerSummaries(
  store: Store,
  brandId: string,
  search: string | undefined,
  position?: Position,
): Promise<{ total: number; before: number }> {
  return countCustomerList(store, brandId, searchOf(search), 'desc', position);
}

/** True when a lead other than `exceptLeadId` that is not spam belongs to the customer: the outside knows it. */
async function announced(tx: Tx, customerId: string, exceptLeadId: string): Promise<boolean> {
  return otherRealLeadExists(tx, customerId, exceptLeadId);
}

/** The id of another customer of the brand than `exceptId` with this email (any case), or null. */
export async function otherCustomerWithEmail(
  store: Store,
  brandId: string,
  email: string,
  exceptId: string,
): Promise<string | null> {
  return (await selectOtherCustomerWithEmail(store, brandId, email.toLowerCase(), exceptId)) ?? null;
}

/** When the brand's customer was erased (epoch ms), or null: not erased, or no such customer. */
export async function customerErasedAt(store: Store, brandId: string, id: string): Promise<number | null> {
  const at = await selectCustomerErasedAt(store, brandId, id);
  return at === null || at === undefined ? null : Number(at);
}

/** An erased customer is changed by nothing but erasure: a conflict ("Customer cus_… was erased."). */
export async function refuseErased(store: Store, brandId: string, id: string): Promise<void> {
  if ((await customerErasedAt(store, brandId, id)) !== null) {
    throw new DomainError('conflict', `Customer ${id} was erased.`);
  }
}

/**
 * PostgreSQL: takes the locks a submission takes for these contacts' emails (any case) and phones (E.164), in the
 * order every writer takes them, held until the commit. Nothing on SQLite.
 */
export async function lockContactKeys(
  tx: Tx,
  contacts: readonly { brandId: string; email: string | null; phone: string | null }[],
): Promise<void> {
  await lockContacts(
    tx,
    contacts.map((c) => ({ ...c, email: c.email ? c.email.toLowerCase() : null })),
  );
}

/** True when another customer of the brand than `exceptId` has this email (any case). */
export function emailTakenByAnotherCustomer(
  store: Store,
  brandId: string,
  email: string,
  exceptId: string,
): Promise<boolean> {
  return emailTakenByOther(store, brandId, email.toLowerCase(), exceptId);
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
  options: { anonymous?: boolean } = {},
): Promise<LinkedCustomer> {
  const linked = await linkCustomer(tx, brandId, input, now, { quiet: true });
  const fill = options.anonymous ? ANONYMOUS_FILL : ALL_FILL;
  return announceQuietCustomer(tx, brandId, linked.id, input, now, leadId, fill);
}

/**
 * A real lead (new, or spam released) for a customer that may so far have had only spam: if so, the customer is
 * filled in without an event and announced with customer.created, as a new customer (nobody knew it yet, so this
 * lead fills it whole); otherwise its `fillable` fields are filled in as usual (customer.updated naming them).
 */
async function announceQuietCustomer(
  tx: Tx,
  brandId: string,
  id: string,
  input: ContactInput,
  now: number,
  exceptLeadId: string,
  fillable: Fillable,
): Promise<LinkedCustomer> {
  // Two real leads for the same quiet customer, found by different keys, must not both announce it.
  await lockCustomer(tx, id);
  if (await announced(tx, id, exceptLeadId)) return fillCustomer(tx, brandId, id, input, now, fillable);
  const current = await readCustomer(tx, brandId, id);
  const set: Record<string, unknown> = {};
  for (const { field, column, input: from } of CONTACT) {
    const value = input[from];
    if (value !== null && current[field] === null) set[column] = value;
  }
  if ('email' in set) set.email_normalized = customerEmailKey(input);
  if (current.type === 'person' && (current.companyName ?? input.companyName) !== null) set.type = 'business';
  if (Object.keys(set).length) await updateCustomerRow(tx, brandId, id, { ...set, updated_at: now });
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
  const owners = await selectContactsOf(tx, customerIds, addressIds);
  await lockContacts(
    tx,
    owners.map((c) => ({ brandId: c.brand_id, email: c.email_normalized, phone: c.phone })),
  );
  await deleteUnusedAddresses(tx, addressIds);
  return (await deleteUnusedCustomerRows(tx, customerIds)).length;
}
