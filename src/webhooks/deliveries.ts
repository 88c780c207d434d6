// The webhook delivery queue: one row per (endpoint, event, send request), claimed by workers with a lease.
import { sql } from 'kysely';
import { claimDueRows, type QueueStats, queueStats } from '../platform/db/lease.js';
import { statement } from '../platform/db/sql.js';
import type { DB, Store, Tx } from '../platform/db/store.js';
import { type RetryPolicy, retryDelayMs } from '../platform/queue/retry.js';
import { DomainError, NotFoundError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { keysetPage, type Page, type SortOrder, toPage } from '../shared/paging.js';
import { iso } from '../shared/time.js';
import type { EventType } from './events.js';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDelivery {
  id: string;
  eventId: string;
  eventType: EventType;
  /** Attempts made so far. */
  attempt: number;
  status: DeliveryStatus;
  /** HTTP status of the last attempt; null before the first or when no response came. */
  responseStatus: number | null;
  durationMs: number | null;
  /** Why the last attempt failed, when it did. */
  error: string | null;
  createdAt: string;
  lastAttemptAt: string | null;
  /** When the next attempt is due; null once the delivery succeeded or failed for good. */
  nextAttemptAt: string | null;
}

const SUBSCRIBED_ENDPOINTS = statement(
  'select id, events from webhook_endpoints where brand_id = ? and enabled = 1',
);
const INSERT_DELIVERY = statement(
  'insert into webhook_deliveries (id, endpoint_id, event_id, attempt, status, next_attempt_at, lease_owner, ' +
    "lease_until, response_status, duration_ms, error, last_attempt_at, created_at) values (?, ?, ?, 0, 'pending', " +
    '?, null, 0, null, null, null, null, ?)',
);

/** An enabled endpoint of a brand and the event types it subscribes to (space-separated). */
export interface SubscribedEndpoint {
  id: string;
  events: string;
}
type Endpoints = Promise<SubscribedEndpoint[]>;
/** Each transaction's brands' endpoints, read once: a create writes two events (customer and lead). */
const endpointsOfTx = new WeakMap<Tx, Map<string, Endpoints>>();

function endpointsByBrand(tx: Tx): Map<string, Endpoints> {
  let byBrand = endpointsOfTx.get(tx);
  if (!byBrand) {
    byBrand = new Map();
    endpointsOfTx.set(tx, byBrand);
  }
  return byBrand;
}

function subscribedEndpoints(tx: Tx, brandId: string): Endpoints {
  const byBrand = endpointsByBrand(tx);
  let endpoints = byBrand.get(brandId);
  if (!endpoints) {
    endpoints = tx.all<SubscribedEndpoint>(SUBSCRIBED_ENDPOINTS, [brandId]);
    byBrand.set(brandId, endpoints);
  }
  return endpoints;
}

/** Tells enqueueDeliveries the brand's enabled endpoints, read by this transaction along with something else. */
export function knowEndpoints(tx: Tx, brandId: string, endpoints: SubscribedEndpoint[]): void {
  endpointsByBrand(tx).set(brandId, Promise.resolve(endpoints));
}

/**
 * Queues a delivery of the event to each enabled endpoint of the brand that subscribes to its type, and wakes the
 * delivery workers once the transaction has committed.
 */
export async function enqueueDeliveries(
  r: Tx,
  event: { brandId: string; eventId: string; type: EventType; now: number },
): Promise<number> {
  const endpoints = await subscribedEndpoints(r, event.brandId);
  const subscribed = endpoints.filter((e) => e.events.split(' ').includes(event.type));
  for (const endpoint of subscribed) {
    await r.defer(INSERT_DELIVERY, [
      newId('webhookDelivery', event.now),
      endpoint.id,
      event.eventId,
      event.now,
      event.now,
    ]);
  }
  if (subscribed.length) r.signalAfterCommit('webhook-deliveries');
  return subscribed.length;
}

type DeliveryRow = {
  id: string;
  event_id: string;
  type: string;
  attempt: number;
  status: string;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  created_at: number;
  last_attempt_at: number | null;
  next_attempt_at: number;
};

function toDelivery(row: DeliveryRow): WebhookDelivery {
  const status = row.status as DeliveryStatus;
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.type as EventType,
    attempt: row.attempt,
    status,
    responseStatus: row.response_status,
    durationMs: row.duration_ms,
    error: row.error,
    createdAt: iso(row.created_at),
    lastAttemptAt: row.last_attempt_at === null ? null : iso(row.last_attempt_at),
    nextAttemptAt: status === 'pending' ? iso(row.next_attempt_at) : null,
  };
}

function deliveryQuery(db: DB) {
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

async function assertEndpointOfBrand(db: DB, brandId: string, endpointId: string) {
  const endpoint = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'enabled'])
    .where('id', '=', endpointId)
    .where('brand_id', '=', brandId)
    .executeTakeFirst();
  if (!endpoint) throw new NotFoundError(`No webhook endpoint with id ${endpointId}`);
  return endpoint;
}

/** An endpoint's delivery log, newest first, keyset-paged by (createdAt, id). */
export async function listDeliveries(
  { db }: Store,
  brandId: string,
  endpointId: string,
  query: { limit: number; order: SortOrder; cursor?: string },
): Promise<Page<WebhookDelivery>> {
  await assertEndpointOfBrand(db, brandId, endpointId);
  const rows = await keysetPage(
    deliveryQuery(db).where('d.endpoint_id', '=', endpointId),
    { time: 'd.created_at', id: 'd.id' },
    query,
  ).execute();
  return toPage(rows, query.limit, query.order, (r) => ({ time: r.created_at, id: r.id }), toDelivery);
}

/** Queues the delivery's event to its endpoint again, due now, as a new delivery with its own log entry. */
export function resendDelivery(
  store: Store,
  brandId: string,
  endpointId: string,
  deliveryId: string,
  now: number = Date.now(),
): Promise<WebhookDelivery> {
  return store.write(async (tx) => {
    const db = tx.db;
    const endpoint = await assertEndpointOfBrand(db, brandId, endpointId);
    const original = await db
      .selectFrom('webhook_deliveries')
      .select('event_id')
      .where('id', '=', deliveryId)
      .where('endpoint_id', '=', endpointId)
      .executeTakeFirst();
    if (!original) throw new NotFoundError(`No delivery with id ${deliveryId} for endpoint ${endpointId}`);
    if (!endpoint.enabled) {
      throw new DomainError(
        'conflict',
        'The endpoint is disabled, so nothing is sent to it. Enable it first (PATCH with {"enabled": true}).',
      );
    }
    const id = newId('webhookDelivery', now);
    await db
      .insertInto('webhook_deliveries')
      .values({
        id,
        endpoint_id: endpointId,
        event_id: original.event_id,
        attempt: 0,
        status: 'pending',
        next_attempt_at: now,
        lease_owner: null,
        lease_until: 0,
        response_status: null,
        duration_ms: null,
        error: null,
        last_attempt_at: null,
        created_at: now,
      })
      .execute();
    const row = await deliveryQuery(db).where('d.id', '=', id).executeTakeFirstOrThrow();
    tx.signalAfterCommit('webhook-deliveries');
    return toDelivery(row);
  });
}

/** Leases up to `limit` due deliveries to `owner` (see claimDueRows). */
export function claimDueDeliveries(
  store: Store,
  owner: string,
  limit: number,
  leaseMs: number,
  now: number = Date.now(),
): Promise<string[]> {
  return claimDueRows(store, 'webhook_deliveries', owner, limit, leaseMs, now);
}

/** Deliveries waiting to be sent (due, or waiting for a retry) and the age of the oldest: the queue's gauges. */
export function deliveryQueueStats(store: Store, now: number = Date.now()): Promise<QueueStats> {
  return queueStats(store, 'webhook_deliveries', now);
}

/** Everything a worker needs to send one claimed delivery. */
export interface DeliveryJob {
  id: string;
  attempt: number;
  createdAt: number;
  endpointId: string;
  url: string;
  secrets: string[];
  enabled: boolean;
  eventId: string;
  event: { id: string; type: string; created_at: number; data: string };
}

export async function loadDeliveryJobs(
  { db }: Store,
  owner: string,
  ids: string[],
  now: number,
): Promise<DeliveryJob[]> {
  if (!ids.length) return [];
  const rows = await db
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
  return rows.map((r) => ({
    id: r.id,
    attempt: r.attempt,
    createdAt: r.created_at,
    endpointId: r.endpoint_id,
    url: r.url,
    // While a rotated-out secret is still valid, sign with both so receivers can switch over without a gap.
    secrets:
      r.previous_secret && (r.previous_secret_expires_at ?? 0) > now
        ? [r.secret, r.previous_secret]
        : [r.secret],
    enabled: r.enabled === 1,
    eventId: r.event_id,
    event: { id: r.event_id, type: r.type, created_at: r.event_created_at, data: r.data },
  }));
}

export interface AttemptOutcome {
  ok: boolean;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  at: number;
}

class LeaseLost extends Error {}

/**
 * Stores the result of an attempt made under the lease. Nothing is written when the lease was lost (another
 * worker took the row after it expired): that worker's result counts.
 *
 * Every transaction that touches an endpoint and its deliveries locks the endpoint row first (here, on update and
 * on delete alike), so they queue instead of deadlocking on PostgreSQL.
 */
export async function recordAttempt(
  store: Store,
  owner: string,
  job: DeliveryJob,
  outcome: AttemptOutcome,
  policy: RetryPolicy,
): Promise<DeliveryStatus | 'lease_lost'> {
  const attempt = job.attempt + 1;
  const deadline = job.createdAt + policy.retryWindowMs;
  const giveUp = !outcome.ok && outcome.at >= deadline;
  const status: DeliveryStatus = outcome.ok ? 'succeeded' : giveUp ? 'failed' : 'pending';
  const next =
    status === 'pending'
      ? Math.min(outcome.at + retryDelayMs(attempt, policy.retryBaseMs), deadline)
      : outcome.at;
  try {
    return await store.write(async ({ db: trx }) => {
      await trx
        .updateTable('webhook_endpoints')
        .set(
          outcome.ok
            ? { failing_since: null, last_success_at: outcome.at }
            : { failing_since: sql<number>`coalesce(failing_since, ${outcome.at})` },
        )
        .where('id', '=', job.endpointId)
        .execute();
      const updated = await trx
        .updateTable('webhook_deliveries')
        .set({
          status,
          attempt,
          next_attempt_at: next,
          response_status: outcome.responseStatus,
          duration_ms: outcome.durationMs,
          error: outcome.error,
          last_attempt_at: outcome.at,
          lease_owner: null,
          lease_until: 0,
        })
        .where('id', '=', job.id)
        .where('lease_owner', '=', owner)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      // Roll the endpoint change back too: this attempt does not count.
      if (Number(updated.numUpdatedRows) !== 1) throw new LeaseLost();
      if (!outcome.ok) await disableIfFailingTooLong(trx, job, outcome, giveUp, policy.retryWindowMs);
      return status;
    });
  } catch (error) {
    if (error instanceof LeaseLost) return 'lease_lost';
    throw error;
  }
}

/**
 * Disables the endpoint when it has failed for the whole retry window: every attempt in the window failed, or this
 * delivery gave up after the window with no success for the endpoint since the delivery was created.
 */
async function disableIfFailingTooLong(
  trx: DB,
  job: DeliveryJob,
  outcome: AttemptOutcome,
  gaveUp: boolean,
  windowMs: number,
) {
  const hours = Math.round((windowMs / 3_600_000) * 10) / 10;
  const last =
    outcome.responseStatus !== null ? `HTTP ${outcome.responseStatus}` : (outcome.error ?? 'no response');
  const disabled = await trx
    .updateTable('webhook_endpoints')
    .set({
      enabled: 0,
      disabled_at: outcome.at,
      disabled_reason: `Every delivery failed for ${hours} hours (last attempt: ${last}). Fix the receiver, then enable the endpoint again.`,
      updated_at: outcome.at,
    })
    .where('id', '=', job.endpointId)
    .where('enabled', '=', 1)
    .where('failing_since', 'is not', null)
    .where((eb) =>
      eb.or([
        eb('failing_since', '<=', outcome.at - windowMs),
        ...(gaveUp
          ? [eb.or([eb('last_success_at', 'is', null), eb('last_success_at', '<', job.createdAt)])]
          : []),
      ]),
    )
    .executeTakeFirst();
  if (Number(disabled.numUpdatedRows) === 1) {
    await failPendingDeliveries(trx, job.endpointId, 'endpoint disabled', outcome.at);
  }
}

/** Ends every pending delivery of an endpoint that will not be sent to anymore. `db`: a write's tx.db. */
export async function failPendingDeliveries(db: DB, endpointId: string, reason: string, now: number) {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', error: reason, lease_owner: null, lease_until: 0, next_attempt_at: now })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute();
}

/** Ends one claimed delivery without sending it (its endpoint was disabled after it was queued). */
export async function abandonDelivery(store: Store, owner: string, id: string, reason: string, now: number) {
  await store.write(({ db }) =>
    db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', error: reason, lease_owner: null, lease_until: 0, next_attempt_at: now })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'pending')
      .execute(),
  );
}

/** Gives a claimed row back without counting an attempt (shutdown interrupted it), so it is due again at once. */
export async function releaseLease(store: Store, owner: string, id: string): Promise<void> {
  await store.write(({ db }) =>
    db
      .updateTable('webhook_deliveries')
      .set({ lease_owner: null, lease_until: 0 })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'pending')
      .execute(),
  );
}
