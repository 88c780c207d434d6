// The API's lists of leads and work items from ready JSON: each lead's list item is kept as the bytes the API
// sends (leads.list_json), so a page is one index range read of the leads table alone and a concatenation, not
// 101 joined rows of 16 columns mapped to objects and serialised again.
//
// The copy may be missing, never stale (migrations/2026112401_list_json.ts): triggers clear it whenever the lead,
// or the listed fields of its customer or address, change, and move list_rev on. A migration that changes what
// the item lists recreates them from the field table (list-json-triggers.ts). A page renders the items it
// finds without one exactly as the list always has (the projection in shape.ts, JSON.stringify in the schema's
// order), sends them, and writes them back afterwards, guarded by list_rev: a write-back of a rendering that a
// change overtook finds another list_rev and writes nothing. Creating a lead stores its item at once (create.ts).
// The statements, hand-written for speed, are in queries.ts ("Lists and the single read").

import type { Runner } from '../platform/db/sql.js';
import type { Store } from '../platform/db/store.js';
import { ReadyJson } from '../platform/http/response-cache.js';
import { encodeCursor, toPage } from '../shared/paging.js';
import {
  selectLeadListJson,
  selectListItemRows,
  selectListJsonAfter,
  selectWorkItemListJson,
  storeListItems,
} from './queries.js';
import { checkedFilters, type LeadListQuery, pageWindow } from './read.js';
import { LIST_PROJECTION, WORK_ITEM_EXTRA_PROJECTION } from './shape.js';

const envelope = (items: readonly string[], limit: number, hasMore: boolean, nextCursor: string | null) =>
  new ReadyJson(
    `{"data":[${items.join(',')}],"limit":${limit},"hasMore":${hasMore},"nextCursor":${JSON.stringify(nextCursor)}}`,
  );

/**
 * The brand's leads (stage 'lead') or work items (stage 'work') for the query, as listLeads lists them, as the
 * JSON the list routes send (their response schema's serialisation, byte for byte).
 */
export async function listLeadsJson(
  store: Store,
  brandId: string,
  stage: 'lead' | 'work',
  query: LeadListQuery,
): Promise<ReadyJson> {
  return stage === 'lead' ? leadsJson(store, brandId, query) : workItemsJson(store, brandId, query);
}

async function leadsJson(store: Store, brandId: string, query: LeadListQuery): Promise<ReadyJson> {
  const filters = await checkedFilters(store, brandId, 'lead', query);
  const values = await selectLeadListJson(store, brandId, filters, pageWindow(query));
  const hasMore = values.length > query.limit;
  let items = hasMore ? values.slice(0, query.limit) : values;
  if (items.some((v) => v.startsWith('!'))) items = await withRendered(store, items);
  const last = items[items.length - 1];
  let nextCursor: string | null = null;
  if (hasMore && last) {
    const { id, receivedAt } = JSON.parse(last) as { id: string; receivedAt: string };
    nextCursor = encodeCursor({ time: Date.parse(receivedAt), id }, query.order);
  }
  return envelope(items, query.limit, hasMore, nextCursor);
}

/** The page with its `!id` entries rendered (and written back); leads gone meanwhile are left out. */
async function withRendered(store: Store, items: string[]): Promise<string[]> {
  const ids = items.filter((v) => v.startsWith('!')).map((v) => v.slice(1));
  const rendered = await renderListJson(store, ids);
  writeBack(store, [...rendered.values()]);
  return items.flatMap((v) => {
    if (!v.startsWith('!')) return [v];
    const item = rendered.get(v.slice(1));
    return item ? [item.json] : [];
  });
}

async function workItemsJson(store: Store, brandId: string, query: LeadListQuery): Promise<ReadyJson> {
  const filters = await checkedFilters(store, brandId, 'work', query);
  const rows = await selectWorkItemListJson(store, brandId, filters, pageWindow(query));
  const page = toPage(
    rows,
    query.limit,
    query.order,
    (r) => ({ time: r.k_time, id: r.id }),
    (r) => r,
  );
  const missing = page.data.filter((r) => r.list_json === null);
  if (missing.length) {
    const rendered = await renderListJson(
      store,
      missing.map((r) => r.id),
    );
    for (const row of missing) row.list_json = rendered.get(row.id)?.json ?? null;
    writeBack(store, [...rendered.values()]);
  }
  const items: string[] = [];
  for (const row of page.data) if (row.list_json !== null) items.push(withVisit(row.list_json, row));
  return envelope(items, page.limit, page.hasMore, page.nextCursor);
}

/** A work item's list item: the lead's, with the visit's fields after its last one. */
function withVisit(json: string, row: Record<string, unknown>): string {
  const extra = JSON.stringify(WORK_ITEM_EXTRA_PROJECTION.map(row));
  return `${json.slice(0, -1)},${extra.slice(1)}`;
}

export interface RenderedItem {
  id: string;
  /** The list_rev it was rendered from. */
  rev: number;
  json: string;
}

/** The leads' list items rendered from their rows now, by id (ids that name no lead are left out). */
export async function renderListJson(
  store: Runner,
  ids: readonly string[],
): Promise<Map<string, RenderedItem>> {
  const out = new Map<string, RenderedItem>();
  for (const row of await selectListItemRows(store, ids)) {
    const item = LIST_PROJECTION.map(row);
    out.set(item.id, { id: item.id, rev: Number(row.list_rev), json: JSON.stringify(item) });
  }
  return out;
}

/** Stores rendered items where nothing has changed since they were rendered. Returns how many it stored. */
export async function storeListJson(store: Store, items: readonly RenderedItem[]): Promise<number> {
  if (!items.length) return 0;
  return store.write((tx) => storeListItems(tx, items));
}

// Ids whose write-back is under way: concurrent reads of the same page do not write the same items again.
const writing = new Set<string>();

/** Writes rendered items back after the response, best effort: one that fails is rendered again next time. */
function writeBack(store: Store, items: RenderedItem[]): void {
  const mine = items.filter((i) => !writing.has(i.id));
  if (!mine.length) return;
  for (const i of mine) writing.add(i.id);
  storeListJson(store, mine)
    .catch(() => {})
    .finally(() => {
      for (const i of mine) writing.delete(i.id);
    });
}

/**
 * Renders and stores the list item of every lead that has none, in batches by id: after leads were written
 * around the service (a bulk import, a restore, the benchmarks' seeding), so the first reads of old pages are as
 * fast as the rest. Returns how many it stored.
 */
export async function renderMissingListJson(store: Store, options: { batch?: number } = {}): Promise<number> {
  const batch = options.batch ?? 1000;
  let after = '';
  let stored = 0;
  for (;;) {
    const rows = await selectListJsonAfter(store, after, batch);
    if (!rows.length) return stored;
    after = rows[rows.length - 1]!.id;
    const missing = rows.filter((r) => r.list_json === null).map((r) => r.id);
    if (missing.length)
      stored += await storeListJson(store, [...(await renderListJson(store, missing)).values()]);
  }
}
