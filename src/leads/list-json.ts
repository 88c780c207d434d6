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

import type { Selectable } from 'kysely';
import type { LeadTable } from '../platform/db/schema.js';
import { FIRST_COLUMN, firstColumn, type Runner, statement } from '../platform/db/sql.js';
import type { Store } from '../platform/db/store.js';
import { ReadyJson } from '../platform/http/response-cache.js';
import { encodeCursor, toPage } from '../shared/paging.js';
import { type LeadListQuery, matching, pageOf } from './read.js';
import { LEAD_FROM, LIST_PROJECTION, WORK_ITEM_EXTRA_PROJECTION } from './shape.js';

type WorkRow = Pick<Selectable<LeadTable>, 'id' | 'list_json'> & {
  /** received_at, the keyset's time. */
  k_time: number;
  [extra: string]: unknown;
};

// Leads: each row is its ready item, or `!` and the id of a lead that has none yet (JSON never starts so). One
// column, taken without an object per row (sql.ts, FIRST_COLUMN); the cursor comes from the last item itself.
const LEAD_SELECT = `${FIRST_COLUMN}select coalesce(l.list_json, '!' || l.id) from leads l where l.brand_id = `;
// Work items add their visit's fields, read each time (the assignee's name is the user's current one).
const WORK_SELECT = `select l.id as "id", l.received_at as "k_time", l.list_json as "list_json", ${WORK_ITEM_EXTRA_PROJECTION.columns} from leads l left join users asg on asg.id = l.assignee_id where l.brand_id = `;

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
  const q = pageOf(await matching(store, LEAD_SELECT, brandId, 'lead', query), query);
  const values = await firstColumn<string>(store, q.build(), q.params);
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
  const q = pageOf(await matching(store, WORK_SELECT, brandId, 'work', query), query);
  const rows = await store.all<WorkRow>(q.build(), q.params);
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

const RENDER_SELECT = `select ${LIST_PROJECTION.columns}, l.list_rev as "list_rev" ${LEAD_FROM} where l.id in `;

/** The leads' list items rendered from their rows now, by id (ids that name no lead are left out). */
export async function renderListJson(
  store: Runner,
  ids: readonly string[],
): Promise<Map<string, RenderedItem>> {
  const out = new Map<string, RenderedItem>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const text = `${RENDER_SELECT}(${chunk.map(() => '?').join(', ')})`;
    const rows = await store.all<Record<string, unknown> & { list_rev: number | string }>(
      statement(text),
      chunk,
    );
    for (const row of rows) {
      const item = LIST_PROJECTION.map(row);
      out.set(item.id, { id: item.id, rev: Number(row.list_rev), json: JSON.stringify(item) });
    }
  }
  return out;
}

const STORE_ONE = statement(
  'update leads set list_json = ?, list_rev = list_rev + 1 where id = ? and list_rev = ?',
);
const STORE_MANY_PG = statement(`update leads l set list_json = v.json, list_rev = l.list_rev + 1
  from unnest(?::text[], ?::integer[], ?::text[]) as v(id, rev, json) where l.id = v.id and l.list_rev = v.rev`);

/** Stores rendered items where nothing has changed since they were rendered. Returns how many it stored. */
export async function storeListJson(store: Store, items: readonly RenderedItem[]): Promise<number> {
  if (!items.length) return 0;
  return store.write(async (tx) => {
    if (tx.dialect === 'postgres') {
      return tx.run(STORE_MANY_PG, [
        items.map((i) => i.id),
        items.map((i) => i.rev),
        items.map((i) => i.json),
      ]);
    }
    let stored = 0;
    for (const i of items) stored += await tx.run(STORE_ONE, [i.json, i.id, i.rev]);
    return stored;
  });
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
    const rows = await store.all<{ id: string; list_json: string | null }>(
      statement('select id, list_json from leads where id > ? order by id limit ?'),
      [after, batch],
    );
    if (!rows.length) return stored;
    after = rows[rows.length - 1]!.id;
    const missing = rows.filter((r) => r.list_json === null).map((r) => r.id);
    if (missing.length)
      stored += await storeListJson(store, [...(await renderListJson(store, missing)).values()]);
  }
}
