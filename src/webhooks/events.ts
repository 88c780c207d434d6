// Events: what happened to a brand's leads, written in the same transaction as the change they describe.

import type { Store, Tx } from '../platform/db/store.js';
import { ValidationError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { type SortOrder, toPage } from '../shared/paging.js';
import { iso } from '../shared/time.js';
import { enqueueDeliveries } from './deliveries.js';
import { deferEventInsert, selectEventPage, selectEventsMentioning, updateEventData } from './queries.js';

export const EVENT_TYPES = [
  'lead.created',
  'lead.status_changed',
  'lead.updated',
  'note.created',
  'attachment.created',
  'attachment.deleted',
  'customer.created',
  'customer.updated',
  'customer.merged',
  'customer.erased',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * What an event carries, stored and sent as JSON: lead.* events `{ lead, from?, to?, changed? }` (the single-lead
 * read after the change), customer.* events `{ customer, changed? }` (customer.merged `{ customer, from }`, customer.erased `{ customer: { id }, erasedAt }`), note.created `{ note, leadId }`, attachment.* `{ attachment }`. The
 * capability that makes the change builds it; the API's Event schema (webhooks/api/event-schemas.ts) documents it.
 */
export type EventData = { readonly [field: string]: unknown };

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}

/**
 * Stores an event and queues a webhook delivery for every enabled endpoint of the brand subscribed to its type.
 * Call it with the transaction that makes the change, so the change, its event and its deliveries commit together.
 */
export async function recordEvent(
  r: Tx,
  brandId: string,
  type: EventType,
  data: EventData,
  now: number = Date.now(),
): Promise<string> {
  const id = newId('event', now);
  await deferEventInsert(r, { id, brand_id: brandId, type, created_at: now, data: JSON.stringify(data) });
  await enqueueDeliveries(r, { brandId, eventId: id, type, now });
  return id;
}

/**
 * The exact JSON a webhook receives, built from the stored text so every delivery (and every retry) of an event
 * carries the same bytes.
 */
export function eventJson(row: { id: string; type: string; created_at: number; data: string }): string {
  return `{"id":${JSON.stringify(row.id)},"type":${JSON.stringify(row.type)},"createdAt":"${iso(row.created_at)}","data":${row.data}}`;
}

export function parseEventTypes(value: string | undefined, field = 'type'): EventType[] | undefined {
  if (value === undefined) return undefined;
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.filter((s) => !isEventType(s));
  if (!list.length || bad.length) {
    throw new ValidationError([
      {
        field,
        message: `must be one or more of ${EVENT_TYPES.join(', ')} (comma-separated)${bad.length ? `; got ${bad.join(', ')}` : ''}`,
      },
    ]);
  }
  return [...new Set(list)] as EventType[];
}

export interface EventListQuery {
  limit: number;
  order: SortOrder;
  cursor?: string;
  /** Comma-separated event types. */
  type?: string;
  createdAfter?: number;
}

/**
 * The brand's events, newest first by (createdAt, id) unless order is asc, keyset-paged: the whole list envelope
 * as JSON, each event the exact bytes its webhook deliveries carry (eventJson over the stored text). Events never
 * change, so nothing is parsed or serialised again: a page of 100 is a concatenation.
 */
export async function listEventsJson(store: Store, brandId: string, query: EventListQuery): Promise<string> {
  const rows = await selectEventPage(store, brandId, { ...query, types: parseEventTypes(query.type) });
  const page = toPage(rows, query.limit, query.order, (r) => ({ time: r.created_at, id: r.id }), eventJson);
  return `{"data":[${page.data.join(',')}],"limit":${page.limit},"hasMore":${page.hasMore},"nextCursor":${JSON.stringify(page.nextCursor)}}`;
}

/**
 * Erasure: rewrites the data of the brand's events that mention one of these ids with `rewrite` (undelivered and
 * delivered alike: a delivery sends its event's data as it is when it is sent). `since`: no event about them is
 * older (the records' creation), so only the brand's events from then on are read. Returns how many changed.
 */
export async function rewriteEvents(
  tx: Tx,
  brandId: string,
  ids: readonly string[],
  rewrite: (data: string) => string,
  since?: number,
): Promise<number> {
  if (!ids.length) return 0;
  let changed = 0;
  for (const row of await selectEventsMentioning(tx, brandId, ids, since)) {
    const data = rewrite(row.data);
    if (data === row.data) continue;
    await updateEventData(tx, row.id, data);
    changed++;
  }
  return changed;
}
