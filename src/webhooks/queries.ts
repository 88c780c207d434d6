// The webhooks capability's SQL, all of it: events, endpoints and the delivery queue. Kysely queries, except the
// three statements a lead create runs (see below). Reads take a Store (the database or a write's tx); writes take
// the write's Tx, so the transaction is the caller's.
import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import { keysetPage } from '../platform/db/keyset.js';
import { leasedQueue } from '../platform/db/lease.js';
import { mentionsAny } from '../platform/db/mentions.js';
import type { EventTable, WebhookDeliveryTable, WebhookEndpointTable } from '../platform/db/schema.js';
import { statement } from '../platform/db/sql.js';
import type { Store, Tx } from '../platform/db/store.js';
import type { PageQuery } from '../shared/paging.js';

// Hand-written statements, not Kysely: every lead create runs them (its customer.created and lead.created events,
// their deliveries, and the brand's endpoints, read once per transaction). Kysely builds and compiles a query on
// every call, which measured 24% of a single read's CPU and ~10% of a create's; fixed texts took creates on SQLite
// from 952 to 2,923 req/s together with group commit (commit 1930c31; bench/README.md, "What was done, and what
// each step bought", step 1). The two inserts are also deferred (Tx.defer): on PostgreSQL they reach the server
// with the create's other inserts as one statement of data-modifying CTEs, which is built from statement texts
// (combinedInserts; commit b837174, a create in 5 statements instead of 12).
const SUBSCRIBED_ENDPOINTS = statement(
  'select id, events from webhook_endpoints where brand_id = ? and enabled = 1',
);
const INSERT_EVENT = statement(
  'insert into events (id, brand_id, type, created_at, data) values (?, ?, ?, ?, ?)',
);
const INSERT_DELIVERY = statement(
  'insert into webhook_deliveries (id, endpoint_id, event_id, attempt, status, next_attempt_at, lease_owner, ' +
    "lease_until, response_status, duration_ms, error, last_attempt_at, created_at) values (?, ?, ?, 0, 'pending', " +
    '?, null, 0, null, null, null, null, ?)',
);

// Events

/** Queues the insert of an event with the caller's write (Tx.defer). */
export function deferEventInsert(tx: Tx, row: Selectable<EventTable>): Promise<void> {
  return tx.defer(INSERT_EVENT, [row.id, row.brand_id, row.type, row.created_at, row.data]);
}

export type EventRow = Pick<Selectable<EventTable>, 'id' | 'type' | 'created_at' | 'data'>;

/**
 * The event types every create writes, which SQLite's index of events by type leaves out (migration
 * 2026120901): a list of them reads the brand's events in order instead.
 */
export const EVERY_CREATE_TYPES: readonly string[] = ['lead.created', 'customer.created'];
// The index's condition word for word (SQLite uses a partial index only for a query that repeats it); on
// PostgreSQL, whose index has every type, it changes nothing.
const RARE_TYPES = sql<boolean>`"type" not in ('lead.created', 'customer.created')`;

/** A page of the brand's events (limit + 1 rows, see keysetPage), of `types` and after `createdAfter` if given. */
export function selectEventPage(
  { db }: Store,
  brandId: string,
  query: PageQuery & { types?: string[] | undefined; createdAfter?: number | undefined },
): Promise<EventRow[]> {
  let q = keysetPage(
    db.selectFrom('events').select(['id', 'type', 'created_at', 'data']).where('brand_id', '=', brandId),
    { time: 'created_at', id: 'id' },
    query,
  );
  if (query.types) {
    q = q.where('type', 'in', query.types);
    if (!query.types.some((type) => EVERY_CREATE_TYPES.includes(type))) q = q.where(RARE_TYPES);
  }
  if (query.createdAfter !== undefined) q = q.where('created_at', '>', query.createdAfter);
  return q.execute();
}

// Endpoints

/** An enabled endpoint of a brand and the event types it subscribes to (space-separated). */
export type SubscribedEndpoint = Pick<Selectable<WebhookEndpointTable>, 'id' | 'events'>;

/** The brand's enabled endpoints (a statement: see above). */
export function selectSubscribedEndpoints(tx: Tx, brandId: string): Promise<SubscribedEndpoint[]> {
  return tx.all<SubscribedEndpoint>(SUBSCRIBED_ENDPOINTS, [brandId]);
}

const ENDPOINT_COLUMNS = [
  'id',
  'url',
  'description',
  'events',
  'enabled',
  'created_at',
  'updated_at',
  'disabled_at',
  'disabled_reason',
] as const;

/** What the API shows of an endpoint (never its secrets). */
export type EndpointRow = Pick<Selectable<WebhookEndpointTable>, (typeof ENDPOINT_COLUMNS)[number]>;

export async function countEndpoints({ db }: Store, brandId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('brand_id', '=', brandId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertEndpoint(tx: Tx, row: Insertable<WebhookEndpointTable>): Promise<void> {
  await tx.db.insertInto('webhook_endpoints').values(row).execute();
}

/** A page of the brand's endpoints (limit + 1 rows, see keysetPage). */
export function selectEndpointPage({ db }: Store, brandId: string, query: PageQuery): Promise<EndpointRow[]> {
  return keysetPage(
    db.selectFrom('webhook_endpoints').select(ENDPOINT_COLUMNS).where('brand_id', '=', brandId),
    { time: 'created_at', id: 'id' },
    query,
  ).execute();
}

export function selectEndpoint({ db }: Store, brandId: string, id: string): Promise<EndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .select(ENDPOINT_COLUMNS)
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .executeTakeFirst();
}

/** Whether the brand has this endpoint, and whether it is enabled; undefined when it has not. */
export function selectEndpointState(
  { db }: Store,
  brandId: string,
  id: string,
): Promise<Pick<Selectable<WebhookEndpointTable>, 'id' | 'enabled'> | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .select(['id', 'enabled'])
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .executeTakeFirst();
}

export async function updateEndpoint(
  tx: Tx,
  brandId: string,
  id: string,
  set: Updateable<WebhookEndpointTable>,
): Promise<void> {
  await tx.db
    .updateTable('webhook_endpoints')
    .set(set)
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .execute();
}

/** Deletes the brand's endpoint (its deliveries go with it); false when it has none by that id. */
export async function deleteEndpoint(tx: Tx, brandId: string, id: string): Promise<boolean> {
  const result = await tx.db
    .deleteFrom('webhook_endpoints')
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function selectEndpointSecret(
  { db }: Store,
  brandId: string,
  id: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select('secret')
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .executeTakeFirst();
  return row?.secret;
}

/**
 * Replaces the endpoint's secret `current` by `next`, keeping `current` as the previous one until `expiresAt`.
 * False when the secret is no longer `current` (another rotation came first).
 */
export async function rotateEndpointSecret(
  tx: Tx,
  id: string,
  secrets: { current: string; next: string; expiresAt: number },
  now: number,
): Promise<boolean> {
  const updated = await tx.db
    .updateTable('webhook_endpoints')
    .set({
      secret: secrets.next,
      previous_secret: secrets.current,
      previous_secret_expires_at: secrets.expiresAt,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('secret', '=', secrets.current)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** An attempt's effect on its endpoint: a success clears the failing run; a failure starts one unless running. */
export async function updateEndpointOutcome(tx: Tx, id: string, ok: boolean, at: number): Promise<void> {
  await tx.db
    .updateTable('webhook_endpoints')
    .set((eb) =>
      ok
        ? { failing_since: null, last_success_at: at }
        : { failing_since: eb.fn.coalesce('failing_since', eb.val(at)) },
    )
    .where('id', '=', id)
    .execute();
}

/**
 * Disables the enabled endpoint when it has been failing since `failingBefore` or earlier, or (`noSuccessSince`)
 * has had no success since then. True when this disabled it.
 */
export async function disableFailingEndpoint(
  tx: Tx,
  id: string,
  when: { failingBefore: number; noSuccessSince?: number },
  change: { at: number; reason: string },
): Promise<boolean> {
  const { noSuccessSince } = when;
  const disabled = await tx.db
    .updateTable('webhook_endpoints')
    .set({ enabled: 0, disabled_at: change.at, disabled_reason: change.reason, updated_at: change.at })
    .where('id', '=', id)
    .where('enabled', '=', 1)
    .where('failing_since', 'is not', null)
    .where((eb) =>
      eb.or([
        eb('failing_since', '<=', when.failingBefore),
        ...(noSuccessSince !== undefined
          ? [eb.or([eb('last_success_at', 'is', null), eb('last_success_at', '<', noSuccessSince)])]
          : []),
      ]),
    )
    .executeTakeFirst();
  return Number(disabled.numUpdatedRows) === 1;
}

// Deliveries

/** Queues the insert of a pending delivery, due `now`, with the caller's write (Tx.defer). */
export function deferDeliveryInsert(
  tx: Tx,
  delivery: { id: string; endpointId: string; eventId: string; now: number },
): Promise<void> {
  return tx.defer(INSERT_DELIVERY, [
    delivery.id,
    delivery.endpointId,
    delivery.eventId,
    delivery.now,
    delivery.now,
  ]);
}

export async function insertDelivery(tx: Tx, row: Insertable<WebhookDeliveryTable>): Promise<void> {
  await tx.db.insertInto('webhook_deliveries').values(row).execute();
}

/** A delivery as its endpoint's log shows it: the delivery and its event's type. */
export type DeliveryLogRow = Pick<
  Selectable<WebhookDeliveryTable>,
  | 'id'
  | 'event_id'
  | 'attempt'
  | 'status'
  | 'response_status'
  | 'duration_ms'
  | 'error'
  | 'created_at'
  | 'last_attempt_at'
  | 'next_attempt_at'
> &
  Pick<Selectable<EventTable>, 'type'>;

function deliveryLog({ db }: Store) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select([
      'd.id',
      'd.event_id',
      'e.type',
      'd.attempt',
      'd.status',
      'd.response_status',
      'd.duration_ms',
      'd.error',
      'd.created_at',
      'd.last_attempt_at',
      'd.next_attempt_at',
    ]);
}

/** A page of an endpoint's delivery log (limit + 1 rows, see keysetPage). */
export function selectDeliveryPage(
  store: Store,
  endpointId: string,
  query: PageQuery,
): Promise<DeliveryLogRow[]> {
  return keysetPage(
    deliveryLog(store).where('d.endpoint_id', '=', endpointId),
    { time: 'd.created_at', id: 'd.id' },
    query,
  ).execute();
}

export function selectDelivery(store: Store, id: string): Promise<DeliveryLogRow | undefined> {
  return deliveryLog(store).where('d.id', '=', id).executeTakeFirst();
}

/** The event of an endpoint's delivery; undefined when the endpoint has no delivery by that id. */
export async function selectDeliveryEventId(
  { db }: Store,
  endpointId: string,
  id: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('event_id')
    .where('id', '=', id)
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirst();
  return row?.event_id;
}

/** Webhook deliveries as a leased queue: due deliveries claimed by a worker, and its gauges. */
export const deliveryQueue = leasedQueue('webhook_deliveries', 'error');

/** A claimed delivery with its event and its endpoint's URL and secrets. */
export type DeliveryJobRow = Pick<Selectable<WebhookDeliveryTable>, 'id' | 'attempt' | 'created_at'> & {
  event_id: string;
  type: string;
  event_created_at: number;
  data: string;
  endpoint_id: string;
} & Pick<
    Selectable<WebhookEndpointTable>,
    'url' | 'secret' | 'previous_secret' | 'previous_secret_expires_at' | 'enabled'
  >;

/** The deliveries of `ids` that `owner` still holds, with what sending them needs. */
export function selectDeliveryJobs({ db }: Store, owner: string, ids: string[]): Promise<DeliveryJobRow[]> {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .select([
      'd.id',
      'd.attempt',
      'd.created_at',
      'e.id as event_id',
      'e.type',
      'e.created_at as event_created_at',
      'e.data',
      'w.id as endpoint_id',
      'w.url',
      'w.secret',
      'w.previous_secret',
      'w.previous_secret_expires_at',
      'w.enabled',
    ])
    .where('d.id', 'in', ids)
    .where('d.lease_owner', '=', owner)
    .execute();
}

/**
 * Changes a delivery `owner` holds under its lease while it is pending (an attempt's result, giving it up, giving
 * the lease back). False when the lease was lost: another worker took the row after it expired.
 */
export async function updateClaimedDelivery(
  tx: Tx,
  owner: string,
  id: string,
  set: Updateable<WebhookDeliveryTable>,
): Promise<boolean> {
  const updated = await tx.db
    .updateTable('webhook_deliveries')
    .set(set)
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** Ends every pending delivery of an endpoint that will not be sent to anymore. */
export async function failPendingDeliveries(
  tx: Tx,
  endpointId: string,
  reason: string,
  now: number,
): Promise<void> {
  await tx.db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', error: reason, lease_owner: null, lease_until: 0, next_attempt_at: now })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute();
}

// Erasure (personal-data/erase.ts)

/** The brand's events since `since` (all: undefined) whose data mentions one of these ids. */
export function selectEventsMentioning(
  tx: Tx,
  brandId: string,
  ids: readonly string[],
  since: number | undefined,
) {
  let query = tx.db.selectFrom('events').select(['id', 'data']).where('brand_id', '=', brandId);
  if (since !== undefined) query = query.where('created_at', '>=', since);
  return query.where(mentionsAny('data', ids)).execute();
}

export async function updateEventData(tx: Tx, id: string, data: string): Promise<void> {
  await tx.db.updateTable('events').set({ data }).where('id', '=', id).execute();
}
