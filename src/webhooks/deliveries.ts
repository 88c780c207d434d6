// The webhook delivery queue: one row per (endpoint, event, send request), claimed by workers with a lease.
import type { Store, Tx } from '../platform/db/store.js';
import { type RetryPolicy, retryDelayMs } from '../platform/queue/retry.js';
import { DomainError, NotFoundError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { type Page, type SortOrder, toPage } from '../shared/paging.js';
import { iso } from '../shared/time.js';
import type { EventType } from './events.js';
import {
  type DeliveryLogRow,
  deferDeliveryInsert,
  disableFailingEndpoint,
  failPendingDeliveries,
  insertDelivery,
  type SubscribedEndpoint,
  selectDelivery,
  selectDeliveryEventId,
  selectDeliveryJobs,
  selectDeliveryPage,
  selectEndpointState,
  selectSubscribedEndpoints,
  updateClaimedDelivery,
  updateEndpointOutcome,
} from './queries.js';

export { deliveryQueue, type SubscribedEndpoint } from './queries.js';

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
    endpoints = selectSubscribedEndpoints(tx, brandId);
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
    await deferDeliveryInsert(r, {
      id: newId('webhookDelivery', event.now),
      endpointId: endpoint.id,
      eventId: event.eventId,
      now: event.now,
    });
  }
  if (subscribed.length) r.signalAfterCommit('webhook-deliveries');
  return subscribed.length;
}

function toDelivery(row: DeliveryLogRow): WebhookDelivery {
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

async function assertEndpointOfBrand(store: Store, brandId: string, endpointId: string) {
  const endpoint = await selectEndpointState(store, brandId, endpointId);
  if (!endpoint) throw new NotFoundError(`No webhook endpoint with id ${endpointId}`);
  return endpoint;
}

/** An endpoint's delivery log, newest first, keyset-paged by (createdAt, id). */
export async function listDeliveries(
  store: Store,
  brandId: string,
  endpointId: string,
  query: { limit: number; order: SortOrder; cursor?: string },
): Promise<Page<WebhookDelivery>> {
  await assertEndpointOfBrand(store, brandId, endpointId);
  const rows = await selectDeliveryPage(store, endpointId, query);
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
    const endpoint = await assertEndpointOfBrand(tx, brandId, endpointId);
    const eventId = await selectDeliveryEventId(tx, endpointId, deliveryId);
    if (eventId === undefined) {
      throw new NotFoundError(`No delivery with id ${deliveryId} for endpoint ${endpointId}`);
    }
    if (!endpoint.enabled) {
      throw new DomainError(
        'conflict',
        'The endpoint is disabled, so nothing is sent to it. Enable it first (PATCH with {"enabled": true}).',
      );
    }
    const id = newId('webhookDelivery', now);
    await insertDelivery(tx, {
      id,
      endpoint_id: endpointId,
      event_id: eventId,
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
    });
    const row = await selectDelivery(tx, id);
    if (!row) throw new Error(`the delivery ${id} just inserted was not found`);
    tx.signalAfterCommit('webhook-deliveries');
    return toDelivery(row);
  });
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
  store: Store,
  owner: string,
  ids: string[],
  now: number,
): Promise<DeliveryJob[]> {
  if (!ids.length) return [];
  const rows = await selectDeliveryJobs(store, owner, ids);
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
    return await store.write(async (tx) => {
      await updateEndpointOutcome(tx, job.endpointId, outcome.ok, outcome.at);
      const updated = await updateClaimedDelivery(tx, owner, job.id, {
        status,
        attempt,
        next_attempt_at: next,
        response_status: outcome.responseStatus,
        duration_ms: outcome.durationMs,
        error: outcome.error,
        last_attempt_at: outcome.at,
        lease_owner: null,
        // It ran to a result: its holder did not die with it.
        crashes: 0,
        lease_until: 0,
      });
      // Roll the endpoint change back too: this attempt does not count.
      if (!updated) throw new LeaseLost();
      if (!outcome.ok) await disableIfFailingTooLong(tx, job, outcome, giveUp, policy.retryWindowMs);
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
  tx: Tx,
  job: DeliveryJob,
  outcome: AttemptOutcome,
  gaveUp: boolean,
  windowMs: number,
) {
  const hours = Math.round((windowMs / 3_600_000) * 10) / 10;
  const last =
    outcome.responseStatus !== null ? `HTTP ${outcome.responseStatus}` : (outcome.error ?? 'no response');
  const disabled = await disableFailingEndpoint(
    tx,
    job.endpointId,
    {
      failingBefore: outcome.at - windowMs,
      ...(gaveUp ? { noSuccessSince: job.createdAt } : {}),
    },
    {
      at: outcome.at,
      reason: `Every delivery failed for ${hours} hours (last attempt: ${last}). Fix the receiver, then enable the endpoint again.`,
    },
  );
  if (disabled) await failPendingDeliveries(tx, job.endpointId, 'endpoint disabled', outcome.at);
}

/** Ends one claimed delivery without sending it (its endpoint was disabled after it was queued). */
export async function abandonDelivery(store: Store, owner: string, id: string, reason: string, now: number) {
  await store.write((tx) =>
    updateClaimedDelivery(tx, owner, id, {
      status: 'failed',
      error: reason,
      lease_owner: null,
      lease_until: 0,
      next_attempt_at: now,
    }),
  );
}

/** Gives a claimed row back without counting an attempt (shutdown interrupted it), so it is due again at once. */
export async function releaseLease(store: Store, owner: string, id: string): Promise<void> {
  await store.write((tx) => updateClaimedDelivery(tx, owner, id, { lease_owner: null, lease_until: 0 }));
}
