// The customers capability's SQL, all of it: customers and addresses. Kysely queries, reads taking a Store and
// writes the caller's Tx, except the statements of a lead's create (find or insert the customer and its address,
// read it back), hand-written for measured speed: bench/README.md "Speed, round two, continued: PostgreSQL" and
// commits b837174 (a customer found or inserted in one statement) and 9477ae2 (addresses found with all fields).
import { type ExpressionBuilder, type Selectable, sql } from 'kysely';
import {
  linkColumn,
  linkParameter,
  linksByKey,
  linksTo,
  linksToAny,
  linksToRow,
  withLinks,
} from '../platform/db/internal-keys.js';
import { keysetPage } from '../platform/db/keyset.js';
import { lockingStatement, lockRow } from '../platform/db/portable.js';
import type { AddressTable, CustomerTable, Tables } from '../platform/db/schema.js';
import { appendSearch, brandSearch } from '../platform/db/search.js';
import {
  FIRST_COLUMN,
  firstColumn,
  type Runner,
  SqlBuilder,
  statement,
  statementPer,
} from '../platform/db/sql.js';
import type { Dialect, SentStatement, Store, Tx } from '../platform/db/store.js';
import type { PageQuery, Position, SortOrder } from '../shared/paging.js';
import { ADDRESS_FIELDS, CONTACT_FIELDS, columnsOf, type ValuesByName } from './fields.js';

// Customers

/** The columns of the contact fields (fields.ts), in the table's order. */
const CONTACT_COLUMNS = columnsOf(CONTACT_FIELDS);

/** What a customer's read selects: its id and type, the contact fields' columns, its times. */
export const CUSTOMER_COLUMNS = [
  'id',
  'type',
  ...CONTACT_COLUMNS,
  'created_at',
  'updated_at',
  'erased_at',
] as const;

/** A customer as the service shows it. */
export type CustomerRow = Pick<Selectable<CustomerTable>, (typeof CUSTOMER_COLUMNS)[number]>;

const COLUMNS = CUSTOMER_COLUMNS.join(', ');

/** What findCustomer found: the customer with the email, and the one with the phone (see FIND_TEXT). */
export interface FoundCustomerIds {
  by_email: string | null;
  by_phone: string | null;
}

// Hot (every create; b837174): by email; else, only then, by phone among customers without an email (any, when
// the submission has none), latest lead first. Each rule is one index seek whatever the number of customers
// sharing the phone (issue 33): last_lead_at is kept by triggers and leads the phone indexes (2026112902), and a
// CASE evaluates the phone rule only when the email found no one (both databases evaluate a CASE lazily).
const byPhone = (withEmail: boolean) =>
  'select c.id from customers c where c.brand_id = ? and c.phone = ?' +
  (withEmail ? ' and c.email_normalized is null' : '') +
  ' order by c.last_lead_at desc, c.created_at desc limit 1';
const findText = (withEmail: boolean) =>
  `select e.by_email, case when e.by_email is null then (${byPhone(withEmail)}) end as by_phone ` +
  'from (select (select c.id from customers c where c.brand_id = ? and c.email_normalized = ?) as by_email) e';
/** The statement text for a submission with an email (true) and without one (exported for the plan test). */
const FIND_TEXT = { true: findText(true), false: findText(false) } as const;
export const FIND = { true: statement(FIND_TEXT.true), false: statement(FIND_TEXT.false) } as const;
/** FIND's parameters, in its placeholders' order: the E.164 phone, and the email as matched (lower case). */
const findParams = (brandId: string, email: string | null, phone: string | null) => [
  brandId,
  phone,
  brandId,
  email,
];
// Hot (every create's customer read back or inserted; b837174, 9477ae2).
const BY_ID = statement(`select ${COLUMNS} from customers where id = ? and brand_id = ?`);
/** BY_ID holding the row until the commit (PostgreSQL; a read as it is on SQLite, whose writes take turns). */
const BY_ID_LOCKED = lockingStatement(`select ${COLUMNS} from customers where id = ? and brand_id = ?`);
/** What a customer's insert writes, in its values' order: every column, the contact fields' from fields.ts. */
export const CUSTOMER_INSERT_COLUMNS = [
  'id',
  'brand_id',
  'type',
  ...CONTACT_COLUMNS,
  'email_normalized',
  'created_at',
  'updated_at',
  'last_lead_at',
] as const satisfies readonly (keyof CustomerTable)[];
/** The insert's columns that are no text: FIND_OR_INSERT casts its parameters to their types. */
const CUSTOMER_CASTS: Partial<Record<keyof CustomerTable, string>> = {
  created_at: 'bigint',
  updated_at: 'bigint',
  last_lead_at: 'bigint',
};
const INSERT_COLUMNS = `insert into customers (${CUSTOMER_INSERT_COLUMNS.join(', ')})`;
const INSERT = statement(
  `${INSERT_COLUMNS} values (${CUSTOMER_INSERT_COLUMNS.map(() => '?').join(', ')}) ` +
    `on conflict do nothing returning ${COLUMNS}`,
);
/**
 * PostgreSQL: FIND, and INSERT when it finds nothing, in one round trip (b837174). The statement's snapshot is
 * taken after the contact locks were (an earlier statement), so it sees every customer committed under them.
 */
const findOrInsert = (withEmail: boolean) =>
  statement(
    `with found as (${FIND_TEXT[`${withEmail}`]}), inserted as (${INSERT_COLUMNS} ` +
      `select ${CUSTOMER_INSERT_COLUMNS.map((c) => `?::${CUSTOMER_CASTS[c] ?? 'text'}`).join(', ')} ` +
      'where not exists (select 1 from found where by_email is not null or by_phone is not null) ' +
      `on conflict do nothing returning ${COLUMNS}) ` +
      'select found.by_email, found.by_phone, inserted.* from found left join inserted on true',
  );
const FIND_OR_INSERT = { true: findOrInsert(true), false: findOrInsert(false) } as const;

/**
 * PostgreSQL, a create's first find (customerProbe): FIND, INSERT when it finds nothing (unless `insert` is false),
 * the customer it found whole (`linked_` and its columns) with whether any lead of it is no spam
 * (`linked_announced`), and that customer's address with the submission's match key (`found_address_` and the
 * columns FIND_ADDRESS reads; the key's country is the brand's default when the submission names none), all in
 * one statement: what linkCustomer and findOrCreateAddress would otherwise read in three more round trips.
 */
const LINKED_COLUMNS = CUSTOMER_COLUMNS.map((c) => `linked.${c} as linked_${c}`).join(', ');
const ADDRESS_NAMES = Object.entries(ADDRESS_FIELDS).map(([name, f]) => ({ name, column: f.column }));
const FOUND_ADDRESS_COLUMNS = ['id', ...ADDRESS_NAMES.map((a) => a.column)]
  .map((c) => `address.${c} as found_address_${c}`)
  .join(', ');
const probe = (withEmail: boolean, insert: boolean) =>
  statement(
    `with found as (${FIND_TEXT[`${withEmail}`]}), ` +
      (insert
        ? `inserted as (${INSERT_COLUMNS} ` +
          `select ${CUSTOMER_INSERT_COLUMNS.map((c) => `?::${CUSTOMER_CASTS[c] ?? 'text'}`).join(', ')} ` +
          'where not exists (select 1 from found where by_email is not null or by_phone is not null) ' +
          `on conflict do nothing returning ${COLUMNS}), `
        : '') +
      `linked as (select ${CUSTOMER_COLUMNS.map((c) => `c.${c}`).join(', ')}, ` +
      'exists (select 1 from leads l where l.customer_id = c.id and l.spam = 0) as announced from customers c ' +
      'where c.id = (select coalesce(by_email, by_phone) from found)), ' +
      `address as (select a.id, ${ADDRESS_NAMES.map((a) => `a.${a.column}`).join(', ')} from addresses a ` +
      'where a.customer_id = (select coalesce(by_email, by_phone) from found) and a.match_key = ' +
      '?::text || coalesce(?::text, (select b.default_country from brands b where b.id = ?)) || ?::text) ' +
      `select found.by_email, found.by_phone, ${insert ? 'inserted.*, ' : ''}${LINKED_COLUMNS}, ` +
      `linked.announced as linked_announced, ${FOUND_ADDRESS_COLUMNS} from found ` +
      `${insert ? 'left join inserted on true ' : ''}left join linked on true left join address on true`,
  );
const PROBE = {
  true: { true: probe(true, true), false: probe(true, false) },
  false: { true: probe(false, true), false: probe(false, false) },
} as const;

/**
 * PostgreSQL: a create's first find-or-insert (or find alone, `row` absent), to send after the statement that
 * takes the contact's locks (Tx.pipeline). `address`: the submission's address match key around its country
 * (addressMatchKeyAround), and the country it names, if any. Its rows go to probedCustomer.
 */
export function probeCustomerStatement(
  brandId: string,
  email: string | null,
  phone: string | null,
  address: { before: string; after: string; country: string | null },
  row?: NewCustomerRow,
): SentStatement {
  const params: unknown[] = findParams(brandId, email, phone);
  if (row) params.push(...CUSTOMER_INSERT_COLUMNS.map((c) => row[c]));
  params.push(address.before, address.country, brandId, address.after);
  return { s: PROBE[`${email !== null}`][`${row !== undefined}`], params };
}

/** The customer a probe found, read whole, and its address with the submission's match key (null: none). */
export interface ProbedLink {
  row: CustomerRow;
  announced: boolean;
  address: ListedAddressRow | null;
}

/** What probeCustomerStatement's rows say: foundOrInserted's, and the customer found (ProbedLink). */
export function probedCustomer(rows: readonly unknown[]): FoundOrInserted & { linked?: ProbedLink } {
  const both = rows[0] as (FoundCustomerIds & Partial<CustomerRow> & Record<string, unknown>) | undefined;
  const result = foundOrInserted(rows);
  if (!both || both.linked_id === null || both.linked_id === undefined) return result;
  const row: Record<string, unknown> = {};
  for (const c of CUSTOMER_COLUMNS) row[c] = both[`linked_${c}`];
  let address: Record<string, unknown> | null = null;
  if (both.found_address_id !== null && both.found_address_id !== undefined) {
    address = { id: both.found_address_id };
    for (const { name, column } of ADDRESS_NAMES) address[name] = both[`found_address_${column}`];
  }
  return {
    ...result,
    linked: {
      row: row as CustomerRow,
      announced: both.linked_announced === true,
      address: address as ListedAddressRow | null,
    },
  };
}

/** The brand's customer with this email (lower case), and the one with this phone (see FIND_TEXT). */
export async function findCustomer(
  r: Runner,
  brandId: string,
  email: string | null,
  phone: string | null,
): Promise<FoundCustomerIds | undefined> {
  const [row] = await r.all<FoundCustomerIds>(FIND[`${email !== null}`], findParams(brandId, email, phone));
  return row;
}

/**
 * A customer's row as a create inserts it. `last_lead_at` is the new lead's `received_at` when the customer is made
 * for a lead inserted in the same write, so the lead's insert trigger (2026112902) finds it current and leaves the
 * row alone: on PostgreSQL that update wrote a second version of every new customer and new entries in all six of
 * its indexes (last_lead_at is indexed, so it is no HOT update), dead at once.
 */
export type NewCustomerRow = Omit<Selectable<CustomerTable>, 'erased_at' | 'key'>;

/** What a customer's find-or-insert gives: the found ids (see FIND_TEXT), and the row when it inserted one. */
export interface FoundOrInserted {
  found: FoundCustomerIds | undefined;
  inserted: CustomerRow | undefined;
}

/** What a find-or-insert's rows say (FIND_OR_INSERT's, PROBE's). */
export function foundOrInserted(rows: readonly unknown[]): FoundOrInserted {
  const both = rows[0] as (FoundCustomerIds & Partial<CustomerRow>) | undefined;
  return { found: both, inserted: both?.id ? (both as CustomerRow) : undefined };
}

/**
 * Finds the brand's customer for this email (lower case) and phone, and inserts `row` when there is none, which
 * `inserted` returns whole; neither when the insert conflicted with a customer inserted meanwhile (try again).
 * One statement on PostgreSQL, two on SQLite.
 */
export async function findOrInsertCustomer(
  tx: Tx,
  email: string | null,
  phone: string | null,
  row: NewCustomerRow,
): Promise<FoundOrInserted> {
  if (tx.dialect === 'postgres') {
    const params = [...findParams(row.brand_id, email, phone), ...CUSTOMER_INSERT_COLUMNS.map((c) => row[c])];
    return foundOrInserted(await tx.all(FIND_OR_INSERT[`${email !== null}`], params));
  }
  const found = await findCustomer(tx, row.brand_id, email, phone);
  if (found?.by_email || found?.by_phone) return { found, inserted: undefined };
  return {
    found,
    inserted: (
      await tx.all<CustomerRow>(
        INSERT,
        CUSTOMER_INSERT_COLUMNS.map((c) => row[c]),
      )
    )[0],
  };
}

export async function selectCustomer(
  r: Pick<Store, 'all'>,
  brandId: string,
  id: string,
): Promise<CustomerRow | undefined> {
  const [row] = await r.all<CustomerRow>(BY_ID, [id, brandId]);
  return row;
}

/**
 * selectCustomer holding the row for the rest of the write, as the last commit left it (PostgreSQL): for a write
 * that decides what to change from what it reads, when another may change the same row without taking any lock
 * this one holds (linkCustomer's fill).
 */
export async function selectCustomerLocked(
  tx: Tx,
  brandId: string,
  id: string,
): Promise<CustomerRow | undefined> {
  const [row] = await tx.all<CustomerRow>(BY_ID_LOCKED, [id, brandId]);
  return row;
}

export async function updateCustomerRow(
  tx: Tx,
  brandId: string,
  id: string,
  set: Partial<Selectable<CustomerTable>>,
): Promise<void> {
  await tx.db
    .updateTable('customers')
    .set(set)
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .execute();
}

/**
 * Locks the customer's row for the rest of the write (PostgreSQL; see lockRow): two real leads for the same quiet
 * customer, found by different keys, must not both announce it.
 */
export async function lockCustomer(tx: Tx, id: string): Promise<void> {
  await lockRow(tx, 'customers', id);
}

/**
 * A customer that only spam leads have is known to nobody outside (spam is in no list and fires no event): it is
 * in no list and no read until a real lead links to it or its spam is released.
 */
function hasRealLead(dialect: Dialect, customer: 'c' | 'customers') {
  return sql<boolean>`exists (select 1 from leads l where ${linksToRow(dialect, 'customer', 'l', customer)} and l.spam = 0)`;
}

/** The customer's count of real (not spam) leads, as lead_count: a column of a select from `customers as c`. */
const realLeadCount = (dialect: Dialect) => (eb: ExpressionBuilder<Tables & { c: CustomerTable }, 'c'>) =>
  eb
    .selectFrom('leads as l')
    .select((e) => e.fn.countAll<number>().as('n'))
    .where(linksToRow(dialect, 'customer', 'l', 'c'))
    .where('l.spam', '=', 0)
    .as('lead_count');

/** The customer a lead being typed in would be added to, with its count of real leads; none if only spam has it. */
export function selectCustomerMatch(
  { db, dialect }: Store,
  brandId: string,
  id: string,
): Promise<(Pick<CustomerRow, 'id' | 'name' | 'company_name'> & { lead_count: number | null }) | undefined> {
  return db
    .selectFrom('customers as c')
    .select(['c.id', 'c.name', 'c.company_name', realLeadCount(dialect)])
    .where('c.id', '=', id)
    .where('c.brand_id', '=', brandId)
    .where(hasRealLead(dialect, 'c'))
    .executeTakeFirst();
}

/** One customer of the brand with its count of real leads and when the last came in; none if only spam has it. */
export function selectCustomerDetail(
  { db, dialect }: Store,
  brandId: string,
  id: string,
): Promise<
  (CustomerRow & { lead_count: number | null; last_lead_at: number | string | null | undefined }) | undefined
> {
  return db
    .selectFrom('customers as c')
    .select([
      ...CUSTOMER_COLUMNS.map((c) => `c.${c}` as const),
      realLeadCount(dialect),
      (eb) =>
        eb
          .selectFrom('leads as l')
          .select((e) => e.fn.max('l.received_at').as('m'))
          .where(linksToRow(dialect, 'customer', 'l', 'c'))
          .where('l.spam', '=', 0)
          .as('last_lead_at'),
    ])
    .where('c.id', '=', id)
    .where('c.brand_id', '=', brandId)
    .where(hasRealLead(dialect, 'c'))
    .executeTakeFirst();
}

/** True when the brand has this customer and a real lead has it. */
export async function customerKnown({ db, dialect }: Store, brandId: string, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('customers')
    .select('id')
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .where(hasRealLead(dialect, 'customers'))
    .executeTakeFirst();
  return row !== undefined;
}

/** The brand's customers with a real lead the search finds (see platform/db/search.ts). */
async function searchedCustomerIds(store: Store, brandId: string, query: string): Promise<string[]> {
  const search = await brandSearch(store, brandId, query);
  const q = new SqlBuilder()
    .sql(`${FIRST_COLUMN}select distinct l.customer_id from leads l where l.brand_id = `)
    .value(brandId)
    .sql(' and l.spam = 0');
  appendSearch(q, search);
  return firstColumn<string>(store, q.planPerCall().build(), q.params);
}

/** A page of the brand's customers a real lead has (limit + 1 rows, see keysetPage), filtered. */
export async function selectCustomerPage(
  store: Store,
  brandId: string,
  query: PageQuery & {
    updatedAfter?: number;
    /** Lower case. */
    email?: string;
    /** E.164. */
    phone?: string;
    /** Customers with a real lead the lead search finds. */
    search?: string;
  },
): Promise<CustomerRow[]> {
  let q = keysetPage(
    store.db
      .selectFrom('customers')
      .select(CUSTOMER_COLUMNS)
      .where('brand_id', '=', brandId)
      .where(hasRealLead(store.dialect, 'customers')),
    { time: 'created_at', id: 'id' },
    query,
  );
  if (query.updatedAfter !== undefined) q = q.where('updated_at', '>', query.updatedAfter);
  if (query.email !== undefined) q = q.where('email_normalized', '=', query.email);
  if (query.phone !== undefined) q = q.where('phone', '=', query.phone);
  if (query.search !== undefined) {
    q = q.where(await searchedCustomer(store, brandId, query.search, 'customers.id'));
  }
  return q.execute();
}

/**
 * The customer (`ref`) has a real lead the lead search finds: the leads' text index, where every document holds its
 * customer's name, company, email and phone, and the lead's address (platform/db/search.ts).
 */
async function searchedCustomer(store: Store, brandId: string, search: string, ref: 'c.id' | 'customers.id') {
  // The leads' text index: every document holds its customer's name, company, email and phone. The customers
  // are found first, within the search's budget (platform/db/search.ts), then listed and paged.
  const ids = await searchedCustomerIds(store, brandId, search);
  return store.dialect === 'sqlite'
    ? sql<boolean>`${sql.ref(ref)} in (select value from json_each(${JSON.stringify(ids)}))`
    : sql<boolean>`${sql.ref(ref)} = any(${ids}::text[])`;
}

/** A customer of the customers list: the customer, its count of real leads and when the latest came in. */
export type CustomerListRow = CustomerRow & {
  lead_count: number | string | null;
  last_lead_at: number | string | null;
};

/** The brand's customers a real lead has, and those of them the lead search finds when there is a search. */
async function listedCustomers(store: Store, brandId: string, search: string | undefined) {
  let q = store.db
    .selectFrom('customers as c')
    .where('c.brand_id', '=', brandId)
    .where(hasRealLead(store.dialect, 'c'));
  if (search !== undefined) q = q.where(await searchedCustomer(store, brandId, search, 'c.id'));
  return q;
}

/**
 * A page of the customers list (limit + 1 rows, see keysetPage): the brand's customers a real lead has, by
 * (created_at, id), with their count of real leads and when the latest came in; with a search, those it finds.
 */
export async function selectCustomerListPage(
  store: Store,
  brandId: string,
  query: PageQuery & { search?: string },
): Promise<CustomerListRow[]> {
  const q = (await listedCustomers(store, brandId, query.search)).select([
    ...CUSTOMER_COLUMNS.map((c) => `c.${c}` as const),
    realLeadCount(store.dialect),
    (eb) =>
      eb
        .selectFrom('leads as l')
        .select((e) => e.fn.max('l.received_at').as('m'))
        .where(linksToRow(store.dialect, 'customer', 'l', 'c'))
        .where('l.spam', '=', 0)
        .as('last_lead_at'),
  ]);
  return keysetPage(q, { time: 'c.created_at', id: 'c.id' }, query).execute();
}

/**
 * Counts what selectCustomerListPage lists for the same search, over the same WHERE: the total, and how many come
 * before `position` in `order` (0 without a position), for "26–50 of 312".
 */
export async function countCustomerList(
  store: Store,
  brandId: string,
  search: string | undefined,
  order: SortOrder,
  position?: Position,
): Promise<{ total: number; before: number }> {
  const q = await listedCustomers(store, brandId, search);
  const op = sql.raw(order === 'asc' ? '<=' : '>=');
  const row = await q
    .select((eb) => [
      eb.fn.countAll<number | string>().as('total'),
      position
        ? sql<
            number | string
          >`count(case when (c.created_at, c.id) ${op} (${position.time}, ${position.id}) then 1 end)`.as(
            'before',
          )
        : sql<number>`0`.as('before'),
    ])
    .executeTakeFirst();
  return { total: Number(row?.total ?? 0), before: Number(row?.before ?? 0) };
}

/** True when a customer of the brand other than `exceptId` has this email (lower case). */
export async function emailTakenByOther(
  { db }: Store,
  brandId: string,
  emailNormalized: string,
  exceptId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('customers')
    .select('id')
    .where('brand_id', '=', brandId)
    .where('email_normalized', '=', emailNormalized)
    .where('id', '!=', exceptId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The id of a customer of the brand other than `exceptId` with this email (lower case). */
export async function selectOtherCustomerWithEmail(
  { db }: Store,
  brandId: string,
  emailNormalized: string,
  exceptId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('customers')
    .select('id')
    .where('brand_id', '=', brandId)
    .where('email_normalized', '=', emailNormalized)
    .where('id', '!=', exceptId)
    .executeTakeFirst();
  return row?.id;
}

/** When the brand's customer was erased; undefined when there is no such customer. */
export async function selectCustomerErasedAt(
  { db }: Store,
  brandId: string,
  id: string,
): Promise<number | string | null | undefined> {
  const row = await db
    .selectFrom('customers')
    .select('erased_at')
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .executeTakeFirst();
  return row?.erased_at;
}

/** True when a lead other than `exceptLeadId` that is not spam belongs to the customer: the outside knows it. */
export async function otherRealLeadExists(
  tx: Tx,
  customerId: string,
  exceptLeadId: string,
): Promise<boolean> {
  const row = await tx.db
    .selectFrom('leads')
    .select('id')
    .where(linksTo(tx.dialect, 'customer', customerId))
    .where('spam', '=', 0)
    .where('id', '!=', exceptLeadId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The contacts of these customers and of the owners of these addresses (for their contact locks). */
export function selectContactsOf(
  tx: Tx,
  customerIds: readonly string[],
  addressIds: readonly string[],
): Promise<Pick<Selectable<CustomerTable>, 'id' | 'brand_id' | 'email_normalized' | 'phone'>[]> {
  return tx.db
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
}

const unusedAddress = (dialect: Dialect) => (eb: ExpressionBuilder<Tables, 'addresses'>) =>
  eb.not(
    eb.exists(
      eb
        .selectFrom('leads')
        .select('leads.id')
        .where(linksToRow(dialect, 'address', 'leads', 'addresses')),
    ),
  );

/** Deletes those of these addresses no lead refers to. */
export async function deleteUnusedAddresses(tx: Tx, addressIds: readonly string[]): Promise<void> {
  if (!addressIds.length) return;
  await tx.db
    .deleteFrom('addresses')
    .where('id', 'in', addressIds)
    .where(unusedAddress(tx.dialect))
    .execute();
}

/**
 * Deletes those of these customers no lead refers to, with their addresses no lead refers to; returns the ids of
 * the customers deleted.
 */
export async function deleteUnusedCustomers(tx: Tx, customerIds: readonly string[]): Promise<string[]> {
  if (!customerIds.length) return [];
  const unused = await tx.db
    .selectFrom('customers as c')
    .select('c.id')
    .where('c.id', 'in', customerIds)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('leads')
            .select('leads.id')
            .where(linksToRow(tx.dialect, 'customer', 'leads', 'c')),
        ),
      ),
    )
    .execute();
  const gone = unused.map((c) => c.id);
  if (!gone.length) return [];
  await tx.db
    .deleteFrom('addresses')
    .where(linksToAny(tx.dialect, 'customer', gone))
    .where(unusedAddress(tx.dialect))
    .execute();
  await tx.db.deleteFrom('customers').where('id', 'in', gone).execute();
  return gone;
}

// Addresses

/** What a lead shows of its address, as stored: its id and its fields (fields.ts) by API name. */
export type ListedAddressRow = Pick<Selectable<AddressTable>, 'id'> &
  ValuesByName<typeof ADDRESS_FIELDS, Selectable<AddressTable>>;

// Hot (every create with a known customer; 9477ae2: addresses found with all their fields, named as the API
// names them, so the row is the lead's address as it stands).
const findAddressText = (dialect: Dialect) =>
  `select id, ${Object.entries(ADDRESS_FIELDS)
    .map(([name, f]) => (f.column === name ? name : `${f.column} as "${name}"`))
    .join(
      ', ',
    )} from addresses where ${linkColumn(dialect, 'customer')} = ${linkParameter(dialect, 'customer')} ` +
  'and match_key = ?';
const FIND_ADDRESS = statementPer({
  sqlite: findAddressText('sqlite'),
  postgres: findAddressText('postgres'),
});
/** What an address's insert writes, in its values' order: every column, the fields' from fields.ts. */
export const ADDRESS_INSERT_COLUMNS = [
  'id',
  'brand_id',
  'customer_id',
  ...columnsOf(ADDRESS_FIELDS),
  'match_key',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof AddressTable)[];
// SQLite: and customer_key (2026120801) from the customer's id, given again as the last value.
const insertAddressText = (dialect: Dialect) => {
  const columns: string[] = [...ADDRESS_INSERT_COLUMNS];
  const values = columns.map(() => '?');
  if (linksByKey(dialect)) {
    columns.push('customer_key');
    values.push(linkParameter(dialect, 'customer'));
  }
  return `insert into addresses (${columns.join(', ')}) values (${values.join(', ')})`;
};
const INSERT_ADDRESS = statementPer({
  sqlite: `${insertAddressText('sqlite')} on conflict do nothing returning id`,
  postgres: `${insertAddressText('postgres')} on conflict do nothing returning id`,
});
/** The first address of a customer inserted in the same transaction: nothing can conflict with it (b837174). */
const INSERT_FIRST_ADDRESS = statementPer({
  sqlite: insertAddressText('sqlite'),
  postgres: insertAddressText('postgres'),
});

/** The customer's address with this match key. */
export async function findAddress(
  tx: Tx,
  customerId: string,
  matchKey: string,
): Promise<ListedAddressRow | undefined> {
  return (await tx.all<ListedAddressRow>(FIND_ADDRESS, [customerId, matchKey]))[0];
}

/** An address as stored: every column (db/schema.ts). */
export type AddressRow = Selectable<AddressTable>;
/** A new address's row: its keys are the database's (2026120801). */
export type NewAddressRow = Omit<AddressRow, 'key' | 'customer_key'>;

const addressValues = (dialect: Dialect, row: NewAddressRow) => {
  const values: unknown[] = ADDRESS_INSERT_COLUMNS.map((c) => row[c]);
  if (linksByKey(dialect)) values.push(row.customer_id);
  return values;
};

/** Inserts the address unless the customer has one with its match key; whether it did. */
export async function insertAddressUnlessMatched(tx: Tx, row: NewAddressRow): Promise<boolean> {
  return (await tx.all<{ id: string }>(INSERT_ADDRESS, addressValues(tx.dialect, row))).length > 0;
}

/** Inserts the first address of a customer this write inserted, with the write's other inserts (Tx.defer). */
export async function insertFirstAddress(tx: Tx, row: NewAddressRow): Promise<void> {
  await tx.defer(INSERT_FIRST_ADDRESS, addressValues(tx.dialect, row));
}

/** A page of the brand's addresses (limit + 1 rows, see keysetPage), created in the window given. */
export function selectAddressPage(
  { db }: Store,
  brandId: string,
  query: PageQuery & { createdAfter?: number; createdBefore?: number },
): Promise<AddressRow[]> {
  let q = keysetPage(
    db.selectFrom('addresses').selectAll().where('brand_id', '=', brandId),
    { time: 'created_at', id: 'id' },
    query,
  );
  if (query.createdAfter !== undefined) q = q.where('created_at', '>', query.createdAfter);
  if (query.createdBefore !== undefined) q = q.where('created_at', '<', query.createdBefore);
  return q.execute();
}

/** The customer's addresses, oldest first by (created_at, id): what a personal-data export lists. */
export function selectCustomerAddresses(
  { db, dialect }: Store,
  brandId: string,
  customerId: string,
): Promise<AddressRow[]> {
  return db
    .selectFrom('addresses')
    .selectAll()
    .where(linksTo(dialect, 'customer', customerId, undefined, brandId))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

// What was done to a customer (customer_activity)

export type CustomerActivityRow = Selectable<Tables['customer_activity']>;

export async function insertCustomerActivity(tx: Tx, row: CustomerActivityRow): Promise<void> {
  await tx.db.insertInto('customer_activity').values(row).execute();
}

/** A customer's activity, oldest first. */
export function selectCustomerActivity(
  { db }: Store,
  brandId: string,
  customerId: string,
): Promise<CustomerActivityRow[]> {
  return db
    .selectFrom('customer_activity')
    .selectAll()
    .where('brand_id', '=', brandId)
    .where('customer_id', '=', customerId)
    .orderBy('at')
    .orderBy('id')
    .execute();
}

// Merging two customers (personal-data/merge.ts) and their likely duplicates

/** A customer as a merge reads it: its read columns and when it was erased. */
export type MergedCustomerRow = CustomerRow &
  Pick<Selectable<CustomerTable>, 'erased_at' | 'email_normalized'>;

/** The brand's customers with these ids, with their erasure, as a merge reads them. */
export function selectCustomersForMerge(
  { db, dialect }: Store,
  brandId: string,
  ids: readonly string[],
): Promise<(MergedCustomerRow & { real: number | string | null })[]> {
  return db
    .selectFrom('customers as c')
    .select([
      ...CUSTOMER_COLUMNS.map((c) => `c.${c}` as const),
      'c.email_normalized',
      (eb) =>
        eb
          .selectFrom('leads as l')
          .select((e) => e.fn.countAll<number>().as('n'))
          .where(linksToRow(dialect, 'customer', 'l', 'c'))
          .where('l.spam', '=', 0)
          .as('real'),
    ])
    .where('c.brand_id', '=', brandId)
    .where('c.id', 'in', ids)
    .execute();
}

/** A customer's addresses by their match keys. */
export function selectAddressKeys(tx: Tx, customerId: string): Promise<{ id: string; match_key: string }[]> {
  return tx.db
    .selectFrom('addresses')
    .select(['id', 'match_key'])
    .where(linksTo(tx.dialect, 'customer', customerId))
    .orderBy('id')
    .execute();
}

/** Gives these addresses to another customer. */
export async function updateAddressesOwner(
  tx: Tx,
  addressIds: readonly string[],
  customerId: string,
  now: number,
): Promise<void> {
  if (!addressIds.length) return;
  await tx.db
    .updateTable('addresses')
    .set(withLinks(tx.dialect, { customer_id: customerId, updated_at: now }))
    .where('id', 'in', addressIds)
    .execute();
}

/** Deletes these addresses (no lead refers to them any more). */
export async function deleteAddresses(tx: Tx, addressIds: readonly string[]): Promise<void> {
  if (!addressIds.length) return;
  await tx.db.deleteFrom('addresses').where('id', 'in', addressIds).execute();
}

/** Gives one customer's activity to another. */
export async function updateActivityOwner(tx: Tx, fromId: string, toId: string): Promise<void> {
  await tx.db
    .updateTable('customer_activity')
    .set({ customer_id: toId })
    .where('customer_id', '=', fromId)
    .execute();
}

/** Deletes the brand's customer (no lead or address refers to it any more). */
export async function deleteCustomerRow(tx: Tx, brandId: string, id: string): Promise<void> {
  await tx.db.deleteFrom('customers').where('id', '=', id).where('brand_id', '=', brandId).execute();
}

/** A likely duplicate of a customer, with its count of real leads. */
export type DuplicateRow = Pick<CustomerRow, 'id' | 'name' | 'company_name' | 'email' | 'phone'> & {
  lead_count: number | string | null;
};

/**
 * The brand's other customers with a real lead, not erased, that share the customer's email (any case), its phone,
 * or its name (any case) and a postal code (upper case, no spaces) among their addresses: at most `limit`, newest
 * first.
 */
export function selectDuplicates(
  { db, dialect }: Store,
  brandId: string,
  customer: { id: string; name: string; emailNormalized: string | null; phone: string | null },
  limit: number,
): Promise<DuplicateRow[]> {
  const postal = (alias: 'a' | 'b') => sql.raw(`upper(replace(${alias}.postal_code, ' ', ''))`);
  return db
    .selectFrom('customers as c')
    .select(['c.id', 'c.name', 'c.company_name', 'c.email', 'c.phone', realLeadCount(dialect)])
    .where('c.brand_id', '=', brandId)
    .where('c.id', '!=', customer.id)
    .where('c.erased_at', 'is', null)
    .where(hasRealLead(dialect, 'c'))
    .where((eb) =>
      eb.or([
        ...(customer.emailNormalized ? [eb('c.email_normalized', '=', customer.emailNormalized)] : []),
        ...(customer.phone ? [eb('c.phone', '=', customer.phone)] : []),
        eb.and([
          eb(sql`lower(c.name)`, '=', customer.name.toLowerCase()),
          sql<boolean>`exists (select 1 from addresses a where ${linksToRow(dialect, 'customer', 'a', 'c')} and ${postal('a')} in
            (select ${postal('b')} from addresses b where ${linksTo(dialect, 'customer', customer.id, 'b')}))`,
        ]),
      ]),
    )
    .orderBy('c.created_at', 'desc')
    .orderBy('c.id', 'desc')
    .limit(limit)
    .execute();
}

// Erasing (customers/erase.ts)

/** The customer's contact keys and erasure, for an erase (no read rules: spam-only customers too). */
export function selectCustomerForErase(
  { db }: Store,
  brandId: string,
  id: string,
): Promise<
  | (Pick<CustomerRow, 'id' | 'email' | 'phone'> & {
      email_normalized: string | null;
      erased_at: number | null;
    })
  | undefined
> {
  return db
    .selectFrom('customers')
    .select(['id', 'email', 'email_normalized', 'phone', 'erased_at'])
    .where('brand_id', '=', brandId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Blanks the contact fields of the brand's customers and marks them erased. */
export async function updateCustomersErased(
  tx: Tx,
  brandId: string,
  ids: readonly string[],
  now: number,
): Promise<void> {
  await tx.db
    .updateTable('customers')
    .set({
      name: '',
      first_name: null,
      last_name: null,
      email: null,
      email_normalized: null,
      phone: null,
      company_name: null,
      erased_at: now,
      updated_at: now,
    })
    .where('brand_id', '=', brandId)
    .where('id', 'in', ids)
    .execute();
}

/** Blanks the street, number and addition of these customers' addresses; returns the addresses' ids. */
export async function updateAddressesErased(
  tx: Tx,
  brandId: string,
  customerIds: readonly string[],
  now: number,
): Promise<string[]> {
  const rows = await tx.db
    .selectFrom('addresses')
    .select('id')
    .where('brand_id', '=', brandId)
    .where(linksToAny(tx.dialect, 'customer', customerIds))
    .execute();
  for (const { id } of rows) {
    // The match key holds the street: one of its own keeps the (customer, match_key) key unique.
    await tx.db
      .updateTable('addresses')
      .set({
        street: '',
        street_number: null,
        street_number_addition: null,
        match_key: `erased|${id}`,
        updated_at: now,
      })
      .where('id', '=', id)
      .execute();
  }
  return rows.map((r) => r.id);
}

/** The ids recorded in `merged` activity of these customers (the customers merged into them). */
export async function selectMergedFrom(
  { db }: Store,
  brandId: string,
  customerIds: readonly string[],
): Promise<string[]> {
  if (!customerIds.length) return [];
  const rows = await db
    .selectFrom('customer_activity')
    .select('detail')
    .where('brand_id', '=', brandId)
    .where('customer_id', 'in', customerIds)
    .where('kind', '=', 'merged')
    .execute();
  return rows
    .map((r) => (JSON.parse(r.detail) as { from?: unknown }).from)
    .filter((from): from is string => typeof from === 'string');
}

/** Edits' details of these customers (they hold values before and after). */
export function selectUpdateDetails(tx: Tx, brandId: string, customerIds: readonly string[]) {
  return tx.db
    .selectFrom('customer_activity')
    .select(['id', 'detail'])
    .where('brand_id', '=', brandId)
    .where('customer_id', 'in', customerIds)
    .where('kind', '=', 'updated')
    .execute();
}

export async function updateCustomerActivityDetail(tx: Tx, id: string, detail: string): Promise<void> {
  await tx.db.updateTable('customer_activity').set({ detail }).where('id', '=', id).execute();
}
