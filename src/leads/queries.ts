// The leads capability's SQL, all of it. Kysely queries, reads taking a Store and writes the caller's Tx, except
// the statements of the hot paths, hand-written for measured speed and kept verbatim (each cites its
// measurement): a lead's create (bench/README.md "Speed, round two, continued: PostgreSQL"; commits b837174,
// 9477ae2) and the list and single-lead reads (bench/README.md "Speed, round two: lists from ready JSON";
// commits e6facc2, f46cf69).
import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { ADDRESS_FIELDS, columnsOf } from '../customers/fields.js';
import { ADVISORY_LOCKS_SQL } from '../platform/db/advisory-locks.js';
import {
  linkColumn,
  linkParameter,
  linksByKey,
  linksTo,
  linksToAny,
  withLinks,
} from '../platform/db/internal-keys.js';
import { keysetPage } from '../platform/db/keyset.js';
import { forUpdate, lockRow } from '../platform/db/portable.js';
import type {
  AddressTable,
  BrandTable,
  FormTable,
  LeadActivityTable,
  LeadNoteTable,
  LeadTable,
  Tables,
} from '../platform/db/schema.js';
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
import type { SubscribedEndpoint } from '../webhooks/deliveries.js';
import type { ListJsonWatched } from './list-json-triggers.js';
import {
  DETAIL_PROJECTION,
  INPUT_COLUMNS,
  LEAD_FROM,
  LIST_PROJECTION,
  WORK_ITEM_EXTRA_PROJECTION,
  WORK_ITEM_PROJECTION,
} from './shape.js';
import type { Stage, Status } from './states.js';

// Create

const BRAND = statement('select default_country, default_priority from brands where id = ?');
/**
 * PostgreSQL: the brand's country, the submission's contact locks (see linkCustomer) and the brand's enabled
 * webhook endpoints (what its events are delivered to), in one round trip (b837174: a create in 5 statements
 * instead of 12).
 */
const BRAND_LOCKING = statement(
  'select b.default_country, b.default_priority, ' +
    `(select count(*) from (${ADVISORY_LOCKS_SQL}) as locks) as locked, ` +
    "(select coalesce(json_agg(json_build_object('id', e.id, 'events', e.events)), '[]') " +
    'from webhook_endpoints e where e.brand_id = b.id and e.enabled = 1) as endpoints from brands b where b.id = ?',
);

/** The brand's settings a create reads first; on PostgreSQL with its enabled webhook endpoints. */
export type CreateBrandRow = {
  default_country: string;
  default_priority: string | null;
  endpoints?: SubscribedEndpoint[];
};

/**
 * PostgreSQL: the customer's insert, sent with the brand's read before its answer came, had no brand to refer to
 * (the only foreign key of customers).
 */
function customerWithoutBrand(error: unknown): boolean {
  const { code, table } = error as { code?: unknown; table?: unknown };
  return code === '23503' && table === 'customers';
}

/**
 * The first read of a create: the brand's default country and priority (`brand`, absent when there is no such
 * brand); on PostgreSQL in the same statement the advisory locks of the keys `lockKeys` gives (the submission's
 * contact, see contactLockKeys; SQLite has no such locks and never asks for them) and the brand's enabled webhook
 * endpoints (`endpoints`). After it the contact's locks are held wherever the database has them.
 *
 * On PostgreSQL the statement `customer()` gives (the customer's find-or-insert, see customerProbe) goes to the
 * server right after it, in the same round trip (Tx.pipeline), and its rows come back as `customerRows`: it runs
 * once the locks are held, with a snapshot of its own. On SQLite, where a statement costs no round trip, it is not
 * run (no `customerRows`).
 */
export async function selectBrandTakingContactLocks(
  tx: Tx,
  brandId: string,
  lockKeys: () => readonly string[],
  customer: () => SentStatement,
): Promise<{ brand?: CreateBrandRow | undefined; customerRows?: readonly unknown[] }> {
  if (tx.dialect !== 'postgres') return { brand: (await tx.all<CreateBrandRow>(BRAND, [brandId]))[0] };
  try {
    const [brands, customerRows] = await tx.pipeline([
      { s: BRAND_LOCKING, params: [lockKeys(), brandId] },
      customer(),
    ]);
    return { brand: brands?.[0] as CreateBrandRow | undefined, customerRows: customerRows ?? [] };
  } catch (error) {
    // No brand: what the read alone would have said (the failed statement leaves the write to be rolled back).
    if (customerWithoutBrand(error)) return {};
    throw error;
  }
}

/**
 * True when a create on `store` takes its contact's locks in a transaction of its own: PostgreSQL, outside a
 * write. Only then may it hold the phone's lock shared and be tried again holding it alone (customers.ts,
 * PhoneLock): SQLite has no such locks, and a write that is given cannot be tried again.
 */
export function takesContactLocksOfItsOwn(store: Store): boolean {
  return store.dialect === 'postgres' && !store.inTransaction;
}

/** The columns a create sets itself, then those copied from the input (shape.ts says which). */
export const OWN_COLUMNS = [
  'id',
  'brand_id',
  'customer_id',
  'address_id',
  'status',
  'stage',
  'source',
  'source_key_id',
  'source_key_name',
  'received_at',
  'created_at',
  'updated_at',
  'scheduled_at',
  'submitted',
  'source_form_id',
  'source_form_name',
  'spam',
  'extra_fields',
  'attribution',
  'consent',
  'source_user_id',
  'source_user_name',
  'list_json',
] as const;
// Hot (every create; b837174: deferred with the create's other inserts, one round trip on PostgreSQL).
// SQLite: and the customer's and address's keys (2026120801), from their ids given again as the last values.
const insertLeadText = (dialect: Dialect) => {
  const columns = [...OWN_COLUMNS, ...INPUT_COLUMNS.map((c) => c.column)];
  const values = columns.map(() => '?');
  if (linksByKey(dialect)) {
    columns.push('customer_key', 'address_key');
    values.push(linkParameter(dialect, 'customer'), linkParameter(dialect, 'address'));
  }
  return `insert into leads (${columns.join(', ')}) values (${values.join(', ')})`;
};
const INSERT_LEAD = statementPer({ sqlite: insertLeadText('sqlite'), postgres: insertLeadText('postgres') });
const CUSTOMER_ID_AT = OWN_COLUMNS.indexOf('customer_id');
const ADDRESS_ID_AT = OWN_COLUMNS.indexOf('address_id');

/** Inserts a new lead with the write's other inserts (Tx.defer): OWN_COLUMNS' values, then INPUT_COLUMNS'. */
export async function insertLead(tx: Tx, values: readonly unknown[]): Promise<void> {
  await tx.defer(
    INSERT_LEAD,
    linksByKey(tx.dialect) ? [...values, values[CUSTOMER_ID_AT], values[ADDRESS_ID_AT]] : values,
  );
}

// Status history

// Hot (every create; b837174: deferred with the create's other inserts).
const INSERT_HISTORY = statement(
  'insert into lead_status_history (lead_id, seq, status, at, actor, actor_type, actor_id, actor_name, reason) values (?, ?, ?, ?, ?, ?, ?, ?, ?)',
);

/** Adds an entry to a lead's status history, with the write's other inserts (Tx.defer). */
export async function insertHistoryEntry(
  tx: Tx,
  entry: {
    leadId: string;
    seq: number;
    status: string;
    at: number;
    actor: { type: string; id: string; name: string } | null;
    reason: string | null;
  },
): Promise<void> {
  const { leadId, seq, status, at, actor, reason } = entry;
  await tx.defer(INSERT_HISTORY, [
    leadId,
    seq,
    status,
    at,
    actor?.id ?? null,
    actor?.type ?? null,
    actor?.id ?? null,
    actor?.name ?? null,
    reason,
  ]);
}

// Status changes

/** The state of the brand's lead (spam leads cannot be moved: like reads, they are not there until released). */
export async function selectLeadStatus(
  store: Store,
  brandId: string,
  id: string,
): Promise<string | undefined> {
  const row = await store.db
    .selectFrom('leads')
    .select('status')
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .where('spam', '=', 0)
    .executeTakeFirst();
  return row?.status;
}

/**
 * Moves the lead from state `from` to `to` (stage `stage`), stamping `scheduled_at` too when given; with
 * `clearPlan`, the visit's planning and `scheduled_at` become null (a reopened lead). Whether it did (not when the
 * lead is no longer in `from`).
 */
export async function updateLeadStatus(
  tx: Tx,
  brandId: string,
  id: string,
  change: { from: string; to: string; stage: string; at: number; scheduledAt?: number; clearPlan?: boolean },
): Promise<boolean> {
  const result = await tx.db
    .updateTable('leads')
    .set({
      status: change.to,
      stage: change.stage,
      updated_at: change.at,
      ...(change.scheduledAt !== undefined ? { scheduled_at: change.scheduledAt } : {}),
      ...(change.clearPlan
        ? { scheduled_at: null, scheduled_for: null, duration_minutes: null, assignee_id: null }
        : {}),
    })
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .where('status', '=', change.from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The last sequence number of the lead's status history (0 when it has none). */
export async function selectLastHistorySeq(tx: Tx, leadId: string): Promise<number> {
  const row = await tx.db
    .selectFrom('lead_status_history')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('lead_id', '=', leadId)
    .executeTakeFirst();
  return Number(row?.seq ?? 0);
}

// Stats

/**
 * The brand's real leads received since `from` counted per quarter of an hour (`quarter`: received_at divided by
 * `quarterMs`), and counted per state.
 */
export function selectLeadCounts(
  { db }: Store,
  brandId: string,
  from: number,
  quarterMs: number,
): Promise<[{ quarter: number; n: number }[], { status: string; n: number }[]]> {
  // Integer division by a quarter hour's milliseconds is the same on both dialects. Naming every stage lets both
  // planners use the (brand_id, stage, received_at) index.
  const quarter = sql<number>`received_at / ${sql.lit(quarterMs)}`;
  return Promise.all([
    db
      .selectFrom('leads')
      .select([quarter.as('quarter'), (eb) => eb.fn.countAll<number>().as('n')])
      .where('brand_id', '=', brandId)
      .where('spam', '=', 0)
      .where('stage', 'in', ['lead', 'work', 'closed'])
      .where('received_at', '>=', from)
      .groupBy(quarter)
      .execute(),
    db
      .selectFrom('leads')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('brand_id', '=', brandId)
      .where('spam', '=', 0)
      .groupBy('status')
      .execute(),
  ]);
}

// Leads as other writes see them

/** Whether the brand has this lead (spam leads are not there until released, as for reads). */
export async function realLeadExists({ db }: Store, brandId: string, leadId: string): Promise<boolean> {
  const row = await db
    .selectFrom('leads')
    .select('id')
    .where('id', '=', leadId)
    .where('brand_id', '=', brandId)
    .where('spam', '=', 0)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Locks the lead's row for the rest of the write (PostgreSQL; see lockRow): two edits of one lead at once take
 * turns, so the second reads what the first wrote.
 */
export async function lockLead(tx: Tx, id: string): Promise<void> {
  await lockRow(tx, 'leads', id);
}

/**
 * Moves the lead's attachment count by `delta`. Like any update of the lead it clears the lead's stored list item
 * (the list JSON's trigger), so the lists show the new count.
 */
export async function updateAttachmentCount(tx: Tx, id: string, delta: number): Promise<void> {
  await tx.db
    .updateTable('leads')
    .set((eb) => ({ attachment_count: eb('attachment_count', '+', delta) }))
    .where('id', '=', id)
    .execute();
}

export async function selectBrandCountry({ db }: Store, brandId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('brands')
    .select('default_country')
    .where('id', '=', brandId)
    .executeTakeFirst();
  return row?.default_country;
}

/** Sets columns of the brand's lead. */
export async function updateLeadRow(
  tx: Tx,
  brandId: string,
  id: string,
  set: Updateable<LeadTable>,
): Promise<void> {
  await tx.db
    .updateTable('leads')
    .set(withLinks(tx.dialect, set))
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .execute();
}

/** The address's columns named. */
export function selectAddressColumns(
  tx: Tx,
  addressId: string,
  columns: readonly (keyof Selectable<AddressTable> & string)[],
): Promise<Record<string, unknown>> {
  return tx.db.selectFrom('addresses').select(columns).where('id', '=', addressId).executeTakeFirstOrThrow();
}

/** Sets columns of an address (a lead's edit corrects how its address is written). */
export async function updateAddressRow(
  tx: Tx,
  addressId: string,
  set: Updateable<AddressTable>,
): Promise<void> {
  await tx.db.updateTable('addresses').set(set).where('id', '=', addressId).execute();
}

// Activity

export async function insertActivity(tx: Tx, row: Insertable<LeadActivityTable>): Promise<void> {
  await tx.db.insertInto('lead_activity').values(row).execute();
}

// Notes

const NOTE_COLUMNS = ['id', 'text', 'author_type', 'author_id', 'author_name', 'created_at'] as const;

/** A note as the service shows it. */
export type NoteRow = Pick<Selectable<LeadNoteTable>, (typeof NOTE_COLUMNS)[number]>;

export async function insertNote(tx: Tx, row: Insertable<LeadNoteTable>): Promise<void> {
  await tx.db.insertInto('lead_notes').values(row).execute();
}

/** A page of the lead's notes (limit + 1 rows, see keysetPage). */
export function selectNotePage(
  { db }: Store,
  brandId: string,
  leadId: string,
  query: PageQuery,
): Promise<NoteRow[]> {
  return keysetPage(
    db
      .selectFrom('lead_notes')
      .select(NOTE_COLUMNS)
      .where('lead_id', '=', leadId)
      .where('brand_id', '=', brandId),
    { time: 'created_at', id: 'id' },
    query,
  ).execute();
}

/** One note of the brand's lead, unless the lead is spam. */
export function selectNote(
  { db }: Store,
  brandId: string,
  leadId: string,
  noteId: string,
): Promise<NoteRow | undefined> {
  return db
    .selectFrom('lead_notes as n')
    .innerJoin('leads as l', 'l.id', 'n.lead_id')
    .select(['n.id', 'n.text', 'n.author_type', 'n.author_id', 'n.author_name', 'n.created_at'])
    .where('n.id', '=', noteId)
    .where('n.lead_id', '=', leadId)
    .where('n.brand_id', '=', brandId)
    .where('l.spam', '=', 0)
    .executeTakeFirst();
}

/** What was done to the brand's lead besides its state changes, oldest first. */
export function selectLeadActivity({ db }: Store, brandId: string, leadId: string) {
  return db
    .selectFrom('lead_activity as a')
    .innerJoin('leads as l', 'l.id', 'a.lead_id')
    .select(['a.id', 'a.at', 'a.kind', 'a.actor_type', 'a.actor_id', 'a.actor_name', 'a.detail'])
    .where('a.lead_id', '=', leadId)
    .where('l.brand_id', '=', brandId)
    .orderBy('a.at')
    .orderBy('a.id')
    .execute();
}

/** Every lead of the brand's customer, spam too, oldest first by (received_at, id): a personal-data export's. */
export function selectAllCustomerLeadIds(
  { db, dialect }: Store,
  brandId: string,
  customerId: string,
): Promise<{ id: string; spam: number }[]> {
  return db
    .selectFrom('leads')
    .select(['id', 'spam'])
    .where(linksTo(dialect, 'customer', customerId))
    .where('brand_id', '=', brandId)
    .orderBy('received_at')
    .orderBy('id')
    .execute();
}

/** Every note of the brand's lead (spam too), oldest first: a personal-data export's. */
export function selectAllNotes({ db }: Store, brandId: string, leadId: string): Promise<NoteRow[]> {
  return db
    .selectFrom('lead_notes')
    .select(NOTE_COLUMNS)
    .where('lead_id', '=', leadId)
    .where('brand_id', '=', brandId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The customer's real leads with their addresses, newest first (at most `limit`). */
export function selectCustomerLeads(
  { db, dialect }: Store,
  brandId: string,
  customerId: string,
  limit: number,
) {
  return db
    .selectFrom('leads as l')
    .innerJoin('addresses as a', 'a.id', 'l.address_id')
    .select([
      'l.id',
      'l.title',
      'l.status',
      'l.priority',
      'l.received_at',
      'a.street',
      'a.street_number',
      'a.postal_code',
      'a.city',
    ])
    .where(linksTo(dialect, 'customer', customerId, 'l'))
    .where('l.brand_id', '=', brandId)
    .where('l.spam', '=', 0)
    .orderBy('l.received_at', 'desc')
    .orderBy('l.id', 'desc')
    .limit(limit)
    .execute();
}

// Spam

/** A page of the brand's spam (limit + 1 rows, see keysetPage), by (received, id). */
export function selectSpamPage({ db }: Store, brandId: string, query: PageQuery) {
  return keysetPage(
    db
      .selectFrom('leads')
      .select([
        'id',
        'title',
        'description',
        'received_at',
        'submitted',
        'source_form_id',
        'source_form_name',
      ])
      .where('brand_id', '=', brandId)
      .where('spam', '=', 1),
    { time: 'received_at', id: 'id' },
    query,
  ).execute();
}

export async function countSpam({ db }: Store, brandId: string): Promise<number> {
  const row = await db
    .selectFrom('leads')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('brand_id', '=', brandId)
    .where('spam', '=', 1)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Makes the brand's spam lead a lead, updated `now`; what it was submitted with, or undefined when no such spam. */
export function updateSpamReleased(
  tx: Tx,
  brandId: string,
  id: string,
  now: number,
): Promise<Pick<Selectable<LeadTable>, 'customer_id' | 'address_id' | 'submitted' | 'title'> | undefined> {
  return tx.db
    .updateTable('leads')
    .set({ spam: 0, updated_at: now })
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .where('spam', '=', 1)
    .returning(['customer_id', 'address_id', 'submitted', 'title'])
    .executeTakeFirst();
}

/** The place an address names (its written values). */
export function selectAddressPlace(tx: Tx, addressId: string) {
  return tx.db
    .selectFrom('addresses')
    .select(columnsOf(ADDRESS_FIELDS))
    .where('id', '=', addressId)
    .executeTakeFirstOrThrow();
}

/** Who spam is linked to. */
export type SpamRow = Pick<Selectable<LeadTable>, 'id' | 'customer_id' | 'address_id'>;

/** The brand's spam lead, locked for the rest of the write (PostgreSQL; see forUpdate). */
export function selectSpamLocked(tx: Tx, brandId: string, id: string): Promise<SpamRow | undefined> {
  return forUpdate(
    tx,
    tx.db
      .selectFrom('leads')
      .select(['id', 'customer_id', 'address_id'])
      .where('id', '=', id)
      .where('brand_id', '=', brandId)
      .where('spam', '=', 1),
  ).executeTakeFirst();
}

/** Up to `limit` spam leads of any brand received before `before`, oldest first, locked (see forUpdate). */
export function selectOldSpamLocked(tx: Tx, before: number, limit: number): Promise<SpamRow[]> {
  return forUpdate(
    tx,
    tx.db
      .selectFrom('leads')
      .select(['id', 'customer_id', 'address_id'])
      .where('spam', '=', 1)
      .where('received_at', '<', before)
      .orderBy('received_at')
      .limit(limit),
  ).execute();
}

/** Deletes these spam leads with their history and activity. */
export async function deleteSpamLeads(tx: Tx, ids: readonly string[]): Promise<void> {
  await tx.db.deleteFrom('lead_activity').where('lead_id', 'in', ids).execute();
  await tx.db.deleteFrom('lead_status_history').where('lead_id', 'in', ids).execute();
  await tx.db.deleteFrom('leads').where('id', 'in', ids).where('spam', '=', 1).execute();
}

// Planning

/** A lead's state and plan. */
export type PlanRow = Pick<
  Selectable<LeadTable>,
  'status' | 'scheduled_for' | 'duration_minutes' | 'assignee_id'
>;

/**
 * The brand's lead's state and plan (not spam), locked from this read on (PostgreSQL; see forUpdate): a
 * concurrent state change waits, and the plan is written to the state it was checked against.
 */
export function selectPlanLocked(tx: Tx, brandId: string, id: string): Promise<PlanRow | undefined> {
  return forUpdate(
    tx,
    tx.db
      .selectFrom('leads')
      .select(['status', 'scheduled_for', 'duration_minutes', 'assignee_id'])
      .where('id', '=', id)
      .where('brand_id', '=', brandId)
      .where('spam', '=', 0),
  ).executeTakeFirst();
}

/** Sets the lead's plan, if it is still in state `status`. */
export async function updatePlan(
  tx: Tx,
  brandId: string,
  id: string,
  status: string,
  plan: Omit<PlanRow, 'status'>,
): Promise<void> {
  await tx.db
    .updateTable('leads')
    .set(plan)
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .where('status', '=', status)
    .execute();
}

/** Another visit of the same person that a visit's time overlaps (overlappingVisitRows). */
export interface OverlappingVisitRow {
  id: string;
  title: string;
  status: string;
  scheduled_for: number;
  duration_minutes: number | null;
}

/**
 * The brand's other open visits of `assigneeId` whose time overlaps [start, end): work items not completed (a
 * cancelled one is stage 'closed', spam in no stage of these), earliest first. A visit without a duration is its
 * start moment; two visits starting at the same moment always overlap. Only visits starting after
 * start − MAX_DURATION can reach into the range, which keeps the read on the (brand_id, scheduled_for) index.
 */
export function selectOverlappingVisitRows(
  store: Store,
  brandId: string,
  visit: { leadId: string; assigneeId: string; start: number; end: number; maxDurationMs: number },
): Promise<OverlappingVisitRow[]> {
  const end = sql<number>`scheduled_for + coalesce(duration_minutes, 0) * 60000`;
  return store.db
    .selectFrom('leads')
    .select(['id', 'title', 'status', 'scheduled_for', 'duration_minutes'])
    .where('brand_id', '=', brandId)
    .where('scheduled_for', '>', visit.start - visit.maxDurationMs)
    .where('scheduled_for', '<=', Math.max(visit.end, visit.start))
    .where('assignee_id', '=', visit.assigneeId)
    .where('stage', '=', 'work')
    .where('status', '!=', 'completed')
    .where('spam', '=', 0)
    .where('id', '!=', visit.leadId)
    .where((eb) =>
      eb.or([
        eb('scheduled_for', '=', visit.start),
        eb.and([eb('scheduled_for', '<', visit.end), eb(end, '>', visit.start)]),
      ]),
    )
    .orderBy('scheduled_for')
    .orderBy('id')
    .limit(20)
    .execute() as Promise<OverlappingVisitRow[]>;
}

/** Whether the brand has this user and they can sign in. */
export async function activeUserExists({ db }: Store, brandId: string, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('id', '=', userId)
    .where('brand_id', '=', brandId)
    .where('disabled_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The brand's work items with a planned time from `from` (inclusive) to `to` (exclusive), earliest first, as
 * DETAIL_PROJECTION's rows: a hand-written text because the projection is (shape.ts, the single read's, f46cf69).
 */
export function selectVisitRows(
  store: Store,
  brandId: string,
  query: { from: number; to?: number; assigneeId?: string; limit: number },
): Promise<Record<string, unknown>[]> {
  const params: unknown[] = [brandId, query.from];
  let where = "l.brand_id = ? and l.spam = 0 and l.stage = 'work' and l.scheduled_for >= ?";
  if (query.to !== undefined) {
    where += ' and l.scheduled_for < ?';
    params.push(query.to);
  }
  if (query.assigneeId !== undefined) {
    where += ' and l.assignee_id = ?';
    params.push(query.assigneeId);
  }
  params.push(query.limit);
  return store.all<Record<string, unknown>>(
    statement(
      `select ${DETAIL_PROJECTION.columns} ${LEAD_FROM} where ${where} order by l.scheduled_for, l.id limit ?`,
    ),
    params,
  );
}

// Lists and the single read
//
// Hot (every list page, every count of the dashboard's lists, every read of one lead): hand-written for measured
// speed and kept verbatim, one text for both databases run without building (bench/README.md "Speed, round two:
// lists from ready JSON", a page's read 146 µs → 46 µs; commits d3aa4e0, e6facc2, f46cf69, 24c431e, 6380ef8).
// read.ts and list-json.ts check the filters, decide the page and shape the items.

/** A list's filters as its WHERE takes them, checked by read.ts (states parsed, customer and user the brand's). */
export interface LeadFilters {
  statuses?: readonly Status[] | undefined;
  priority?: string;
  source?: readonly string[];
  customerId?: string;
  scheduledFrom?: number;
  scheduledTo?: number;
  assigneeId?: string;
  receivedAfter?: number;
  receivedBefore?: number;
  updatedAfter?: number;
  /** Free text (see platform/db/search.ts); a blank one is no filter. */
  search?: string;
}

/** Where a page starts in the keyset order (after the cursor's position, when there is one) and its size. */
export interface PageWindow {
  after?: Position | undefined;
  order: SortOrder;
  limit: number;
}

// The keyset columns are selected under their own names as well, for the cursor.
const selectList = (columns: string) =>
  `select ${columns}, l.received_at as "k_time" ${LEAD_FROM} where l.brand_id = `;
const LIST_SELECT = selectList(LIST_PROJECTION.columns);
const WORK_LIST_SELECT = selectList(WORK_ITEM_PROJECTION.columns);

/**
 * The brand's leads or work items that match the filters (stage 'all': in any state): `select` is the statement
 * up to `where l.brand_id = `. Listing and counting share it, so a count is always the count of what is listed.
 */
async function matching(
  store: Store,
  select: string,
  brandId: string,
  stage: Stage | 'all',
  filters: LeadFilters,
): Promise<SqlBuilder> {
  const searching = filters.search !== undefined && filters.search.trim() !== '';
  // A search starts from the text index's matches (few), and one customer's leads from its index
  // (leads_customer_received, in the list's order), never from a walk of the brand's leads checking each one:
  // SQLite, without statistics, takes `brand_id = ?` for a narrow range and would walk all of them (100 ms at
  // 1 million leads). A unary + keeps that term out of index selection there (SQLite's documented way).
  const narrow = searching || filters.customerId !== undefined;
  const brandTerm =
    narrow && store.dialect === 'sqlite' ? select.replace(/l\.brand_id = $/, '+l.brand_id = ') : select;
  const q = new SqlBuilder().sql(brandTerm).value(brandId).sql(' and l.spam = 0');
  if (stage !== 'all') q.sql(' and l.stage = ').value(stage);
  // A page of the brand's leads or work items is planned once (one index range, whatever the values); with
  // filters or a search the best plan depends on how many leads the values match.
  const unfiltered = q.params.length;
  if (filters.statuses) q.sql(' and l.status in ').list(filters.statuses);
  if (filters.priority) q.sql(' and l.priority = ').value(filters.priority);
  if (filters.source?.length) q.sql(' and l.source in ').list(filters.source);
  if (filters.customerId !== undefined) {
    const [before, after] = linkParameter(store.dialect, 'customer').split('?');
    q.sql(` and l.${linkColumn(store.dialect, 'customer')} = ${before}`)
      .value(filters.customerId)
      .sql(after!);
  }
  if (filters.scheduledFrom !== undefined) q.sql(' and l.scheduled_for >= ').value(filters.scheduledFrom);
  if (filters.scheduledTo !== undefined) q.sql(' and l.scheduled_for < ').value(filters.scheduledTo);
  if (filters.assigneeId !== undefined) q.sql(' and l.assignee_id = ').value(filters.assigneeId);
  if (filters.receivedAfter !== undefined) q.sql(' and l.received_at > ').value(filters.receivedAfter);
  if (filters.receivedBefore !== undefined) q.sql(' and l.received_at < ').value(filters.receivedBefore);
  if (filters.updatedAfter !== undefined) q.sql(' and l.updated_at > ').value(filters.updatedAfter);
  if (searching) {
    appendSearch(q, await brandSearch(store, brandId, filters.search!)); // the text index: see search.ts
  }
  if (q.params.length > unfiltered) q.planPerCall();
  return q;
}

/** The window's position, the order and the limit (one more than a page, to know whether more follow). */
function paged(q: SqlBuilder, page: PageWindow): SqlBuilder {
  const { after } = page;
  if (after) {
    q.sql(` and (l.received_at, l.id) ${page.order === 'asc' ? '>' : '<'} (`)
      .value(after.time)
      .sql(', ')
      .value(after.id)
      .sql(')');
  }
  const direction = page.order === 'asc' ? 'asc' : 'desc';
  return q.sql(` order by l.received_at ${direction}, l.id ${direction} limit `).value(page.limit + 1);
}

/** A list's row: its projection's columns, with the keyset's time (received_at) as k_time. */
export type ListRow = Record<string, unknown> & { id: string; k_time: number };

/**
 * A page of the brand's leads or work items that match (limit + 1 rows), as `projection`'s columns (an export's),
 * or by default as the list item's of the stage (a lead's, or a work item's for any other stage).
 */
export async function selectListPage(
  store: Store,
  brandId: string,
  stage: Stage | 'all',
  filters: LeadFilters,
  page: PageWindow,
  projection?: { readonly columns: string },
): Promise<ListRow[]> {
  const select = projection
    ? selectList(projection.columns)
    : stage === 'lead'
      ? LIST_SELECT
      : WORK_LIST_SELECT;
  const q = paged(await matching(store, select, brandId, stage, filters), page);
  return store.all<ListRow>(q.build(), q.params);
}

/**
 * Counts what selectListPage lists for the same filters, in one pass over the same WHERE (and so the same
 * indexes): the total, and how many come before `position` in `order` (0 without a position).
 */
export async function countMatching(
  store: Store,
  brandId: string,
  stage: Stage | 'all',
  filters: LeadFilters,
  order: SortOrder,
  position?: Position,
): Promise<{ total: number; before: number }> {
  // The filters, the search included (its index is keyed by lead), are all on the leads: a count reads them alone.
  const from = 'from leads l';
  const select = position
    ? `select count(*) as "total", count(case when (l.received_at, l.id) ${order === 'asc' ? '<=' : '>='} (?, ?) then 1 end) as "before" ${from} where l.brand_id = `
    : `select count(*) as "total", 0 as "before" ${from} where l.brand_id = `;
  const q = await matching(store, select, brandId, stage, filters);
  const params = position ? [position.time, position.id, ...q.params] : q.params;
  const [row] = await store.all<{ total: number | string; before: number | string }>(q.build(), params);
  return { total: Number(row?.total ?? 0), before: Number(row?.before ?? 0) };
}

const USER_OF_BRAND = statement('select id from users where id = ? and brand_id = ?');

/** Whether the brand has this user (disabled or not: a list's assignee filter). */
export async function userOfBrandExists(store: Runner, brandId: string, userId: string): Promise<boolean> {
  return (await store.all(USER_OF_BRAND, [userId, brandId])).length > 0;
}

// The lists from ready JSON (list-json.ts). Leads: each row is its ready item, or `!` and the id of a lead that
// has none yet (JSON never starts so). One column, taken without an object per row (sql.ts, FIRST_COLUMN); the
// cursor comes from the last item itself.
const LEAD_JSON_SELECT = `${FIRST_COLUMN}select coalesce(l.list_json, '!' || l.id) from leads l where l.brand_id = `;
// Work items add their visit's fields, read each time (the assignee's name is the user's current one).
const WORK_JSON_SELECT = `select l.id as "id", l.received_at as "k_time", l.list_json as "list_json", ${WORK_ITEM_EXTRA_PROJECTION.columns} from leads l left join users asg on asg.id = l.assignee_id where l.brand_id = `;

/** A page of the brand's leads that match (limit + 1): each its ready list item, or `!` and its id. */
export async function selectLeadListJson(
  store: Store,
  brandId: string,
  filters: LeadFilters,
  page: PageWindow,
): Promise<string[]> {
  const q = paged(await matching(store, LEAD_JSON_SELECT, brandId, 'lead', filters), page);
  return firstColumn<string>(store, q.build(), q.params);
}

/** A work item's row of its list: its ready list item (or null) and its visit's fields. */
export type WorkItemJsonRow = Pick<Selectable<LeadTable>, 'id' | 'list_json'> & {
  /** received_at, the keyset's time. */
  k_time: number;
  [extra: string]: unknown;
};

/** A page of the brand's work items that match (limit + 1 rows). */
export async function selectWorkItemListJson(
  store: Store,
  brandId: string,
  filters: LeadFilters,
  page: PageWindow,
): Promise<WorkItemJsonRow[]> {
  const q = paged(await matching(store, WORK_JSON_SELECT, brandId, 'work', filters), page);
  return store.all<WorkItemJsonRow>(q.build(), q.params);
}

const RENDER_SELECT = `select ${LIST_PROJECTION.columns}, l.list_rev as "list_rev" ${LEAD_FROM} where l.id in `;

/** The list item's columns and list_rev of the leads with these ids (none for an id that names no lead). */
export async function selectListItemRows(
  store: Runner,
  ids: readonly string[],
): Promise<(Record<string, unknown> & { list_rev: number | string })[]> {
  const out: (Record<string, unknown> & { list_rev: number | string })[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const text = `${RENDER_SELECT}(${chunk.map(() => '?').join(', ')})`;
    out.push(
      ...(await store.all<Record<string, unknown> & { list_rev: number | string }>(statement(text), chunk)),
    );
  }
  return out;
}

const STORE_ONE = statement(
  'update leads set list_json = ?, list_rev = list_rev + 1 where id = ? and list_rev = ?',
);
const STORE_MANY_PG = statement(`update leads l set list_json = v.json, list_rev = l.list_rev + 1
  from unnest(?::text[], ?::integer[], ?::text[]) as v(id, rev, json) where l.id = v.id and l.list_rev = v.rev`);

/**
 * Stores list items on the leads whose list_rev is still the one they were rendered from (`rev`): one statement
 * on PostgreSQL, one per item on SQLite (which has no arrays, and no round trips to save). How many it stored.
 */
export async function storeListItems(
  tx: Tx,
  items: readonly { id: string; rev: number; json: string }[],
): Promise<number> {
  if (tx.dialect === 'postgres') {
    return tx.run(STORE_MANY_PG, [items.map((i) => i.id), items.map((i) => i.rev), items.map((i) => i.json)]);
  }
  let stored = 0;
  for (const i of items) stored += await tx.run(STORE_ONE, [i.json, i.id, i.rev]);
  return stored;
}

const LIST_JSON_AFTER = statement('select id, list_json from leads where id > ? order by id limit ?');

/** Up to `limit` leads of any brand after the id `after`, in id order, with their list item (null when none). */
export function selectListJsonAfter(
  store: Store,
  after: string,
  limit: number,
): Promise<{ id: string; list_json: string | null }[]> {
  return store.all<{ id: string; list_json: string | null }>(LIST_JSON_AFTER, [after, limit]);
}

// By id alone, the brand checked on the row (getLead): with `l.brand_id = ?` beside `l.id = ?`, PostgreSQL
// without statistics on the table yet (a new or freshly imported one, until autovacuum analyzes it) rated a
// (brand_id, …) index as cheap as the primary key and walked the brand's leads for each read.
const DETAIL_SELECT = `select ${DETAIL_PROJECTION.columns}, h.status as "h_status", h.at as "h_at", h.actor_type as "h_actor_type", h.actor_id as "h_actor_id", h.actor_name as "h_actor_name", h.reason as "h_reason" ${LEAD_FROM} left join lead_status_history h on h.lead_id = l.id where l.id = ? and l.spam = 0`;
export const DETAIL = statement(`${DETAIL_SELECT} order by h.seq`);
const DETAIL_WORK_ITEM = statement(`${DETAIL_SELECT} and l.scheduled_at is not null order by h.seq`);
// The same read with spam too: only a personal-data export asks for it (not a hot path; it is the single read's
// statement without its spam condition, so the export shows each lead exactly as the single read does).
const DETAIL_WITH_SPAM = statement(`${DETAIL_SELECT.replace(/ and l\.spam = 0$/, '')} order by h.seq`);

/** DETAIL_PROJECTION's row of a lead with one entry of its status history (h_…: null when it has none). */
export type LeadDetailRow = Record<string, unknown> & {
  h_status: Status | null;
  h_at: number | null;
  h_actor_type: 'key' | 'user' | 'form' | null;
  h_actor_id: string | null;
  h_actor_name: string | null;
  h_reason: string | null;
};

/**
 * The lead (not spam; of any brand: the caller checks the row's), once per entry of its status history in
 * order, in one statement; with workItemsOnly only if it has been scheduled. None when there is no such lead.
 */
export function selectLeadDetailRows(
  store: Runner,
  id: string,
  workItemsOnly = false,
): Promise<LeadDetailRow[]> {
  return store.all<LeadDetailRow>(workItemsOnly ? DETAIL_WORK_ITEM : DETAIL, [id]);
}

/** selectLeadDetailRows for a lead that may be spam (a personal-data export reads those too). */
export function selectLeadDetailRowsWithSpam(store: Runner, id: string): Promise<LeadDetailRow[]> {
  return store.all<LeadDetailRow>(DETAIL_WITH_SPAM, [id]);
}

// New-lead mails (run in every create when mail is on: kept as the create's other statements, b837174)

const MAIL_RECIPIENTS = statement(
  "select id, email, language from users where brand_id = ? and new_lead_mail = 'every' and disabled_at is null " +
    'order by created_at, id',
);
const MAIL_LEAD = statement(
  'select l.title, l.description, l.priority, l.submitted, l.created_at, l.source_user_id, b.name as brand_name, ' +
    'b.default_country, b.time_zone, b.language as brand_language, f.auto_reply, f.language as form_language ' +
    'from leads l ' +
    'join brands b on b.id = l.brand_id left join forms f on f.id = l.source_form_id ' +
    'where l.id = ? and l.brand_id = ?',
);

/** What a new lead's mails say of it, its brand and its form. */
export type MailLeadRow = Pick<
  Selectable<LeadTable>,
  'title' | 'description' | 'priority' | 'submitted' | 'created_at' | 'source_user_id'
> &
  Pick<Selectable<BrandTable>, 'default_country' | 'time_zone'> & {
    brand_name: string;
    /** The brand's language: the receipt of a lead that came through no form. */
    brand_language: string;
    /** Null when the lead came in through no form (left join). */
    auto_reply: Selectable<FormTable>['auto_reply'] | null;
    /** The form's language (its receipt's); null without a form. */
    form_language: string | null;
  };

/** The brand's active users who want a mail on each new lead, oldest user first: id, email and language. */
export function selectNewLeadRecipients(
  tx: Tx,
  brandId: string,
): Promise<{ id: string; email: string; language: string }[]> {
  return tx.all<{ id: string; email: string; language: string }>(MAIL_RECIPIENTS, [brandId]);
}

export async function selectMailLead(
  tx: Tx,
  brandId: string,
  leadId: string,
): Promise<MailLeadRow | undefined> {
  return (await tx.all<MailLeadRow>(MAIL_LEAD, [leadId, brandId]))[0];
}

// The list JSON's triggers (list-json-triggers.ts; migrations hand the database handle they run on)

const clear = (where: string) => `update leads set list_json = null, list_rev = list_rev + 1 where ${where}`;
const changed = (columns: readonly string[], distinct: string) =>
  columns.map((c) => `new.${c} ${distinct} old.${c}`).join(' or ');

/**
 * The statements that (re)create the triggers watching these columns, dropping those there are first: the
 * migration's triggers, written the same way (a table none of whose columns are listed gets none).
 */
function listJsonTriggerStatements(dialect: Dialect, watched: ListJsonWatched): string[] {
  const customers = watched.customers.join(', ');
  const addresses = watched.addresses.join(', ');
  if (dialect === 'sqlite') {
    return [
      'drop trigger if exists leads_list_json_lead',
      'drop trigger if exists leads_list_json_customer',
      'drop trigger if exists leads_list_json_address',
      // SQLite cannot change NEW: the lead's own trigger clears it with a second update, which moves list_rev and so
      // does not fire the trigger again (nor would it: recursive triggers are off).
      `create trigger leads_list_json_lead after update on leads when new.list_rev is old.list_rev
          begin ${clear('id = new.id')}; end`,
      ...(customers
        ? [
            `create trigger leads_list_json_customer after update of ${customers}
          on customers when ${changed(watched.customers, 'is not')} begin ${clear(watched.byKey ? 'customer_key = new.key' : 'customer_id = new.id')}; end`,
          ]
        : []),
      ...(addresses
        ? [
            `create trigger leads_list_json_address after update of ${addresses}
          on addresses when ${changed(watched.addresses, 'is not')} begin ${clear(watched.byKey ? 'address_key = new.key' : 'address_id = new.id')}; end`,
          ]
        : []),
    ];
  }
  return [
    'drop trigger if exists leads_list_json_lead on leads',
    'drop trigger if exists leads_list_json_customer on customers',
    'drop trigger if exists leads_list_json_address on addresses',
    `create or replace function leads_list_json_lead() returns trigger language plpgsql as $$
        begin
          if new.list_rev = old.list_rev then
            new.list_json := null;
            new.list_rev := old.list_rev + 1;
          end if;
          return new;
        end $$`,
    `create trigger leads_list_json_lead before update on leads for each row
        execute function leads_list_json_lead()`,
    `create or replace function leads_list_json_customer() returns trigger language plpgsql as $$
        begin ${clear('customer_id = new.id')}; return null; end $$`,
    ...(customers
      ? [
          `create trigger leads_list_json_customer after update of ${customers}
        on customers for each row when (${changed(watched.customers, 'is distinct from')})
        execute function leads_list_json_customer()`,
        ]
      : []),
    `create or replace function leads_list_json_address() returns trigger language plpgsql as $$
        begin ${clear('address_id = new.id')}; return null; end $$`,
    ...(addresses
      ? [
          `create trigger leads_list_json_address after update of ${addresses}
        on addresses for each row when (${changed(watched.addresses, 'is distinct from')})
        execute function leads_list_json_address()`,
        ]
      : []),
  ];
}

/** The columns a table has now. */
export async function tableColumns<DB>(
  db: Kysely<DB>,
  dialect: Dialect,
  table: string,
): Promise<Set<string>> {
  const { rows } =
    dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db)
      : await sql<{ name: string }>`select column_name as name from information_schema.columns
          where table_schema = current_schema() and table_name = ${table}`.execute(db);
  return new Set(rows.map((r) => r.name));
}

/** (Re)creates the list JSON's triggers watching these columns, dropping those there are first. */
export async function createListJsonTriggers<DB>(
  db: Kysely<DB>,
  dialect: Dialect,
  watched: ListJsonWatched,
): Promise<void> {
  for (const text of listJsonTriggerStatements(dialect, watched)) await sql.raw(text).execute(db);
}

/** Forgets every stored list item, moving list_rev on. */
export async function forgetListJson<DB>(db: Kysely<DB>): Promise<void> {
  await sql`update leads set list_json = null, list_rev = list_rev + 1 where list_json is not null`.execute(
    db,
  );
}

// Moving leads to another customer (a merge of customers)

/** Points the customer's leads at `addressId` where they pointed at `fromAddressId`. */
export async function updateLeadAddress(
  tx: Tx,
  brandId: string,
  customerId: string,
  fromAddressId: string,
  addressId: string,
): Promise<void> {
  await tx.db
    .updateTable('leads')
    .set(withLinks(tx.dialect, { address_id: addressId }))
    .where('brand_id', '=', brandId)
    .where(linksTo(tx.dialect, 'customer', customerId))
    .where(linksTo(tx.dialect, 'address', fromAddressId))
    .execute();
}

/**
 * Gives every lead of one customer (spam too) to another, each updated now (or just after its last change). Like
 * any update of a lead it clears its list item (the list JSON's trigger) and, the customer being another, writes
 * its search document again (the search triggers). Returns how many moved.
 */
export async function updateLeadsCustomer(
  tx: Tx,
  brandId: string,
  fromCustomerId: string,
  toCustomerId: string,
  now: number,
): Promise<number> {
  const result = await tx.db
    .updateTable('leads')
    .set((eb) => ({
      ...withLinks(tx.dialect, { customer_id: toCustomerId }),
      updated_at: sql<number>`case when ${eb.ref('updated_at')} >= ${now} then ${eb.ref('updated_at')} + 1 else ${now} end`,
    }))
    .where('brand_id', '=', brandId)
    .where(linksTo(tx.dialect, 'customer', fromCustomerId))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

// Erasing personal data (personal-data/erase.ts)

/** Every lead and work item of these customers, spam too. */
export async function selectLeadIdsOfCustomers(
  tx: Tx,
  brandId: string,
  customerIds: readonly string[],
): Promise<string[]> {
  if (!customerIds.length) return [];
  const rows = await tx.db
    .selectFrom('leads')
    .select('id')
    .where('brand_id', '=', brandId)
    .where(linksToAny(tx.dialect, 'customer', customerIds))
    .execute();
  return rows.map((r) => r.id);
}

/** Sets the same columns on the brand's leads. */
export async function updateLeadRows(
  tx: Tx,
  brandId: string,
  ids: readonly string[],
  set: Updateable<LeadTable>,
): Promise<void> {
  if (!ids.length) return;
  await tx.db
    .updateTable('leads')
    .set(withLinks(tx.dialect, set))
    .where('brand_id', '=', brandId)
    .where('id', 'in', ids)
    .execute();
}

/** Deletes every note on these leads; returns their ids. */
export async function deleteNotesOfLeads(tx: Tx, leadIds: readonly string[]): Promise<string[]> {
  if (!leadIds.length) return [];
  const rows = await tx.db.deleteFrom('lead_notes').where('lead_id', 'in', leadIds).returning('id').execute();
  return rows.map((r) => r.id);
}

/** The activity of these leads whose detail holds more than the names of the fields changed. */
export function selectActivityDetails(tx: Tx, leadIds: readonly string[]) {
  return tx.db
    .selectFrom('lead_activity')
    .select(['id', 'detail'])
    .where('lead_id', 'in', leadIds)
    .where('detail', '!=', '{}')
    .execute();
}

export async function updateActivityDetail(tx: Tx, id: string, detail: string): Promise<void> {
  await tx.db.updateTable('lead_activity').set({ detail }).where('id', '=', id).execute();
}

/** Leads of the brand in these states, not yet erased, unchanged since `before`; the oldest first. */
export function selectUntouchedLeads(
  store: Store,
  brandId: string,
  statuses: readonly string[],
  before: number,
  limit: number,
): Promise<{ id: string; customer_id: string }[]> {
  return store.db
    .selectFrom('leads')
    .select(['id', 'customer_id'])
    .where('brand_id', '=', brandId)
    .where('status', 'in', statuses)
    .where('erased_at', 'is', null)
    .where('updated_at', '<', before)
    .orderBy('updated_at')
    .limit(limit)
    .execute();
}

/** How many leads selectUntouchedLeads would find without a limit. */
export async function countUntouchedLeads(
  store: Store,
  brandId: string,
  statuses: readonly string[],
  before: number,
): Promise<number> {
  const row = await store.db
    .selectFrom('leads')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('brand_id', '=', brandId)
    .where('status', 'in', statuses)
    .where('erased_at', 'is', null)
    .where('updated_at', '<', before)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Which of these customers have a lead that is not erased and not among `leadIds`. */
export async function customersWithOtherLeads(
  tx: Tx,
  brandId: string,
  customerIds: readonly string[],
  leadIds: readonly string[],
): Promise<Set<string>> {
  if (!customerIds.length) return new Set();
  let query = tx.db
    .selectFrom('leads')
    .select('customer_id')
    .distinct()
    .where('brand_id', '=', brandId)
    .where(linksToAny(tx.dialect, 'customer', customerIds))
    .where('erased_at', 'is', null);
  if (leadIds.length) query = query.where('id', 'not in', leadIds);
  const rows = await query.execute();
  return new Set(rows.map((r) => r.customer_id));
}

/** The email each of these leads was submitted with (null where none). */
export async function selectSubmittedEmails(tx: Tx, ids: readonly string[]): Promise<(string | null)[]> {
  if (!ids.length) return [];
  const rows = await tx.db.selectFrom('leads').select('submitted').where('id', 'in', ids).execute();
  return rows.map((r) => (JSON.parse(r.submitted) as { email?: string | null }).email ?? null);
}

/** The earliest creation time of these leads (undefined for none). */
export async function selectEarliestCreated(tx: Tx, ids: readonly string[]): Promise<number | undefined> {
  if (!ids.length) return undefined;
  const row = await tx.db
    .selectFrom('leads')
    .select((eb) => eb.fn.min('created_at').as('at'))
    .where('id', 'in', ids)
    .executeTakeFirst();
  return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
}

// Daily new-lead summaries (new-lead-summary.ts)

/** A user who chose the daily summary, with their brand's time zone. */
export interface SummaryReaderRow {
  id: string;
  brand_id: string;
  email: string;
  new_lead_mail_at: number;
  time_zone: string;
  /** The latest day whose summary was handled for them, 'YYYY-MM-DD'; null: none yet. */
  last_day: string | null;
}

/**
 * The active users of every brand who chose the daily new-lead summary, oldest first, with the latest day done
 * (one seek in the summaries' unique index each), so a run writes only for a day not yet done.
 */
export function selectSummaryReaders({ db }: Store): Promise<SummaryReaderRow[]> {
  return db
    .selectFrom('users as u')
    .innerJoin('brands as b', 'b.id', 'u.brand_id')
    .select(['u.id', 'u.brand_id', 'u.email', 'u.new_lead_mail_at', 'b.time_zone'])
    .select((eb) =>
      eb
        .selectFrom('new_lead_summaries as s')
        .select((sb) => sb.fn.max('s.day').as('day'))
        .whereRef('s.user_id', '=', 'u.id')
        .as('last_day'),
    )
    .where('u.new_lead_mail', '=', 'daily')
    .where('u.disabled_at', 'is', null)
    .orderBy('u.created_at')
    .orderBy('u.id')
    .execute();
}

/**
 * Claims a user's summary of a day: inserts its row unless one is there (the unique user and day). True when this
 * call inserted it: of several instances claiming at once, exactly one does.
 */
export async function insertSummaryUnlessDone(
  tx: Tx,
  row: Insertable<Tables['new_lead_summaries']>,
): Promise<boolean> {
  const inserted = await tx.db
    .insertInto('new_lead_summaries')
    .values(row)
    .onConflict((oc) => oc.columns(['user_id', 'day']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** A summary's row with its reader and brand: what its mail is written from. */
export interface SummaryRow {
  id: string;
  brand_id: string;
  user_id: string;
  day: string;
  window_start: number;
  window_end: number;
  language: string;
  new_lead_mail: string;
  disabled_at: number | null;
  brand_name: string;
  brand_language: string;
  default_country: string;
  time_zone: string;
}

export function selectSummary({ db }: Store, id: string): Promise<SummaryRow | undefined> {
  return db
    .selectFrom('new_lead_summaries as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('brands as b', 'b.id', 's.brand_id')
    .select([
      's.id',
      's.brand_id',
      's.user_id',
      's.day',
      's.window_start',
      's.window_end',
      'u.language',
      'u.new_lead_mail',
      'u.disabled_at',
      'b.name as brand_name',
      'b.language as brand_language',
      'b.default_country',
      'b.time_zone',
    ])
    .where('s.id', '=', id)
    .executeTakeFirst();
}

/** What a summary lists of a lead. */
export type SummaryLeadRow = Pick<
  Selectable<LeadTable>,
  'id' | 'title' | 'description' | 'priority' | 'submitted' | 'received_at' | 'attachment_count'
>;

/**
 * The brand's leads a user's summary lists: received in [start, end), not spam, not erased, not typed in by the
 * user; in the order they came in, at most `limit`.
 */
function summaryLeads(db: Kysely<Tables>, brandId: string, userId: string, start: number, end: number) {
  return db
    .selectFrom('leads')
    .where('brand_id', '=', brandId)
    .where('received_at', '>=', start)
    .where('received_at', '<', end)
    .where('spam', '=', 0)
    .where('erased_at', 'is', null)
    .where((eb) => eb.or([eb('source_user_id', 'is', null), eb('source_user_id', '!=', userId)]));
}

export async function countSummaryLeads(
  { db }: Store,
  brandId: string,
  userId: string,
  start: number,
  end: number,
): Promise<number> {
  const row = await summaryLeads(db, brandId, userId, start, end)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function selectSummaryLeads(
  { db }: Store,
  brandId: string,
  userId: string,
  start: number,
  end: number,
  limit: number,
): Promise<SummaryLeadRow[]> {
  return summaryLeads(db, brandId, userId, start, end)
    .select(['id', 'title', 'description', 'priority', 'submitted', 'received_at', 'attachment_count'])
    .orderBy('received_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The brand's first lead that came in through a website form, spam aside (the "Get started" checklist). */
export function selectFirstFormLead(
  { db }: Store,
  brandId: string,
): Promise<{ id: string; title: string; customer_id: string; source_form_id: string | null } | undefined> {
  return db
    .selectFrom('leads')
    .select(['id', 'title', 'customer_id', 'source_form_id'])
    .where('brand_id', '=', brandId)
    .where('source_form_id', 'is not', null)
    .where('spam', '=', 0)
    .where('erased_at', 'is', null)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

// Calendar feeds and visit notices (visit-calendar.ts, visit-notices.ts)

/** One more on the visit's SEQUENCE, in the write that changes it. */
export async function bumpVisitSequence(tx: Tx, id: string): Promise<void> {
  await tx.db
    .updateTable('leads')
    .set((eb) => ({ visit_sequence: eb('visit_sequence', '+', 1) }))
    .where('id', '=', id)
    .execute();
}

/** A visit as a calendar shows it, and what its customer was last told of it. */
export interface CalendarVisitRow {
  id: string;
  brand_id: string;
  title: string;
  status: string;
  spam: number;
  scheduled_for: number | null;
  duration_minutes: number | null;
  assignee_id: string | null;
  updated_at: number;
  visit_sequence: number;
  visit_notice_sequence: number | null;
  visit_notice_ref: string | null;
  visit_notice_kind: string | null;
  visit_notice_start: number | null;
  customer_name: string;
  customer_email: string | null;
  customer_phone: string | null;
  street: string;
  street_number: string | null;
  street_number_addition: string | null;
  postal_code: string;
  city: string;
}

function calendarVisits({ db }: Store) {
  return db
    .selectFrom('leads as l')
    .innerJoin('customers as c', 'c.id', 'l.customer_id')
    .innerJoin('addresses as a', 'a.id', 'l.address_id')
    .select([
      'l.id',
      'l.brand_id',
      'l.title',
      'l.status',
      'l.spam',
      'l.scheduled_for',
      'l.duration_minutes',
      'l.assignee_id',
      'l.updated_at',
      'l.visit_sequence',
      'l.visit_notice_sequence',
      'l.visit_notice_ref',
      'l.visit_notice_kind',
      'l.visit_notice_start',
      'c.name as customer_name',
      'c.email as customer_email',
      'c.phone as customer_phone',
      'a.street',
      'a.street_number',
      'a.street_number_addition',
      'a.postal_code',
      'a.city',
    ]);
}

/**
 * A feed's visits: the brand's work items planned from `from` on (one assignee's when given), and those cancelled
 * (changed) since `cancelledSince` that still have a time; spam never. Earliest first, at most `limit`.
 */
export async function selectCalendarVisitRows(
  store: Store,
  brandId: string,
  query: { from: number; cancelledSince: number; assigneeId?: string; limit: number },
): Promise<CalendarVisitRow[]> {
  let q = calendarVisits(store)
    .where('l.brand_id', '=', brandId)
    .where('l.spam', '=', 0)
    .where('l.scheduled_for', '>=', query.from)
    .where((eb) =>
      eb.or([
        eb('l.stage', '=', 'work'),
        eb.and([eb('l.status', '=', 'cancelled'), eb('l.updated_at', '>=', query.cancelledSince)]),
      ]),
    );
  if (query.assigneeId !== undefined) q = q.where('l.assignee_id', '=', query.assigneeId);
  return (await q
    .orderBy('l.scheduled_for')
    .orderBy('l.id')
    .limit(query.limit)
    .execute()) as CalendarVisitRow[];
}

/** One lead's visit, its row locked for the rest of the write (the mail worker's check against a change). */
export async function selectCalendarVisitLocked(tx: Tx, id: string): Promise<CalendarVisitRow | undefined> {
  await lockLead(tx, id);
  return (await calendarVisits(tx).where('l.id', '=', id).executeTakeFirst()) as CalendarVisitRow | undefined;
}

/** What the customer was just told of the visit. */
export async function updateVisitNotice(
  tx: Tx,
  id: string,
  told: { sequence: number; ref: string; kind: string; start: number },
): Promise<void> {
  await tx.db
    .updateTable('leads')
    .set({
      visit_notice_sequence: told.sequence,
      visit_notice_ref: told.ref,
      visit_notice_kind: told.kind,
      visit_notice_start: told.start,
    })
    .where('id', '=', id)
    .execute();
}

/** The brand's name, language, country, time zone and visit-notice setting: what a visit notice is written with. */
export function selectNoticeBrand({ db }: Store, brandId: string) {
  return db
    .selectFrom('brands')
    .select(['name', 'language', 'default_country', 'time_zone', 'visit_notices'])
    .where('id', '=', brandId)
    .executeTakeFirst();
}

/** A user's address, name and language: the colleague told of a visit given to them. */
export function selectNoticeUser({ db }: Store, brandId: string, userId: string) {
  return db
    .selectFrom('users')
    .select(['email', 'name', 'language'])
    .where('id', '=', userId)
    .where('brand_id', '=', brandId)
    .where('disabled_at', 'is', null)
    .executeTakeFirst();
}
