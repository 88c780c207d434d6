// Reading leads and work items: the keyset-paged lists and the single read with its status history.

import { customerExists } from '../customers/customers.js';
import { appendSearch, planFor } from '../platform/db/search.js';
import { type Runner, SqlBuilder, statement } from '../platform/db/sql.js';
import type { Store } from '../platform/db/store.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import { decodeCursor, type Page, type Position, type SortOrder, toPage } from '../shared/paging.js';
import { iso } from '../shared/time.js';
import {
  type AnyListItem,
  DETAIL_PROJECTION,
  LEAD_FROM,
  type LeadDetail,
  LIST_PROJECTION,
  type Projection,
  WORK_ITEM_PROJECTION,
} from './shape.js';
import { ALL_STATUSES, LEAD_STATUSES, type Stage, type Status, WORK_ITEM_STATUSES } from './states.js';

export interface LeadListQuery {
  limit: number;
  order: SortOrder;
  cursor?: string;
  receivedAfter?: number;
  receivedBefore?: number;
  updatedAfter?: number;
  /** Comma-separated states, each one the list serves. */
  status?: string;
  /** Free-text search (`q`; see search.ts): title, description, customer, company, email, phone, address. */
  search?: string;
  priority?: string;
  /** Only leads from these sources (see LEAD_SOURCES). */
  source?: readonly string[];
  /** Only this customer's (a customer of another brand or none is a 422, not an empty list). */
  customerId?: string;
  /** Work items whose visit is at or after this (inclusive), epoch ms. */
  scheduledFrom?: number;
  /** Work items whose visit is before this (exclusive), epoch ms. */
  scheduledTo?: number;
  /** Only this user's visits (a user of another brand or none is a 422). */
  assigneeId?: string;
}

/** Which items a listing holds: one stage's (the API's lists, the dashboard's), or every state ('all'). */
export type ListStage = Stage | 'all';

const STAGE_STATUSES: Record<ListStage, readonly Status[]> = {
  lead: LEAD_STATUSES,
  work: WORK_ITEM_STATUSES,
  closed: ['cancelled'],
  all: ALL_STATUSES,
};

export function parseStatusFilter(value: string | undefined, stage: ListStage): Status[] | undefined {
  if (value === undefined) return undefined;
  const allowed: readonly string[] = STAGE_STATUSES[stage];
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.filter((s) => !allowed.includes(s));
  if (!list.length || bad.length) {
    throw new ValidationError([
      {
        field: 'status',
        message: `must be one or more of ${allowed.join(', ')} (comma-separated)${bad.length ? `; got ${bad.join(', ')}` : ''}`,
      },
    ]);
  }
  return [...new Set(list)] as Status[];
}

// The keyset columns are selected under their own names as well, for the cursor.
const selectList = (columns: string) =>
  `select ${columns}, l.received_at as "k_time" ${LEAD_FROM} where l.brand_id = `;
const LIST_SELECT = selectList(LIST_PROJECTION.columns);
const WORK_LIST_SELECT = selectList(WORK_ITEM_PROJECTION.columns);

/** What a list reads for each item: the list item (default), or another projection such as an export row. */
export type ListProjection = Projection<Record<string, unknown>>;

/**
 * The brand's leads or work items that match the query's filters (not its cursor): `select` is the statement up
 * to `where l.brand_id = `. Listing and counting share it, so a count is always the count of what is listed.
 */
export async function matching(
  store: Store,
  select: string,
  brandId: string,
  stage: ListStage,
  query: Omit<LeadListQuery, 'limit' | 'order' | 'cursor'>,
): Promise<SqlBuilder> {
  const statuses = parseStatusFilter(query.status, stage);
  if (query.customerId !== undefined && !(await customerExists(store, brandId, query.customerId))) {
    throw new ValidationError([{ field: 'customerId', message: 'is not a customer of this brand' }]);
  }
  if (query.assigneeId !== undefined && !(await userOfBrand(store, brandId, query.assigneeId))) {
    throw new ValidationError([{ field: 'assigneeId', message: 'is not a user of this brand' }]);
  }
  const searching = query.search !== undefined && query.search.trim() !== '';
  // A search starts from the text index's matches (few), never from a walk of the brand's leads checking each
  // one: SQLite, without statistics, takes `brand_id = ?` for a narrow range and would walk all of them (100 ms
  // at 1 million leads). A unary + keeps that term out of index selection there (SQLite's documented way).
  const brandTerm =
    searching && store.dialect === 'sqlite' ? select.replace(/l\.brand_id = $/, '+l.brand_id = ') : select;
  const q = new SqlBuilder().sql(brandTerm).value(brandId).sql(' and l.spam = 0');
  if (stage !== 'all') q.sql(' and l.stage = ').value(stage);
  // A page of the brand's leads or work items is planned once (one index range, whatever the values); with
  // filters or a search the best plan depends on how many leads the values match.
  const unfiltered = q.params.length;
  if (statuses) q.sql(' and l.status in ').list(statuses);
  if (query.priority) q.sql(' and l.priority = ').value(query.priority);
  if (query.source?.length) q.sql(' and l.source in ').list(query.source);
  if (query.customerId !== undefined) q.sql(' and l.customer_id = ').value(query.customerId);
  if (query.scheduledFrom !== undefined) q.sql(' and l.scheduled_for >= ').value(query.scheduledFrom);
  if (query.scheduledTo !== undefined) q.sql(' and l.scheduled_for < ').value(query.scheduledTo);
  if (query.assigneeId !== undefined) q.sql(' and l.assignee_id = ').value(query.assigneeId);
  if (query.receivedAfter !== undefined) q.sql(' and l.received_at > ').value(query.receivedAfter);
  if (query.receivedBefore !== undefined) q.sql(' and l.received_at < ').value(query.receivedBefore);
  if (query.updatedAfter !== undefined) q.sql(' and l.updated_at > ').value(query.updatedAfter);
  if (searching) {
    appendSearch(q, store.dialect, await planFor(store, brandId, query.search!)); // the text index: see search.ts
  }
  if (q.params.length > unfiltered) q.planPerCall();
  return q;
}

/**
 * Lists the brand's leads (stage 'lead') or work items (stage 'work'), keyset-paged by (receivedAt, id). With a
 * `projection`, each item is that projection's object instead of the list item (the exports page with this).
 */
export async function listLeads(
  store: Store,
  brandId: string,
  stage: ListStage,
  query: LeadListQuery,
): Promise<Page<AnyListItem>>;
export async function listLeads(
  store: Store,
  brandId: string,
  stage: ListStage,
  query: LeadListQuery,
  projection: ListProjection,
): Promise<Page<Record<string, unknown>>>;
export async function listLeads(
  store: Store,
  brandId: string,
  stage: ListStage,
  query: LeadListQuery,
  projection?: ListProjection,
): Promise<Page<AnyListItem | Record<string, unknown>>> {
  const select = projection
    ? selectList(projection.columns)
    : stage === 'lead'
      ? LIST_SELECT
      : WORK_LIST_SELECT;
  const q = await matching(store, select, brandId, stage, query);
  pageOf(q, query);
  const rows = await store.all<Record<string, unknown> & { id: string; k_time: number }>(q.build(), q.params);
  const mapper: { map(row: Record<string, unknown>): AnyListItem | Record<string, unknown> } =
    projection ?? (stage === 'lead' ? LIST_PROJECTION : WORK_ITEM_PROJECTION);
  return toPage(
    rows,
    query.limit,
    query.order,
    (r) => ({ time: r.k_time, id: r.id }),
    (r) => mapper.map(r),
  );
}

/** The cursor's position, the order and the limit (one more than a page, to know whether more follow). */
export function pageOf(q: SqlBuilder, query: Pick<LeadListQuery, 'cursor' | 'order' | 'limit'>): SqlBuilder {
  const after = query.cursor ? decodeCursor(query.cursor) : undefined;
  if (after) {
    q.sql(` and (l.received_at, l.id) ${query.order === 'asc' ? '>' : '<'} (`)
      .value(after.time)
      .sql(', ')
      .value(after.id)
      .sql(')');
  }
  const direction = query.order === 'asc' ? 'asc' : 'desc';
  return q.sql(` order by l.received_at ${direction}, l.id ${direction} limit `).value(query.limit + 1);
}

export interface LeadCount {
  /** Items matching the filters. */
  total: number;
  /** Of those, the ones listed before `position` in the query's order (0 without a position). */
  before: number;
}

/**
 * Counts what listLeads lists for the same filters, in one pass over the same WHERE (and so the same indexes):
 * the total, and how many come before the position a page starts after (its cursor), for "26–50 of 312".
 */
export async function countLeads(
  store: Store,
  brandId: string,
  stage: ListStage,
  query: Omit<LeadListQuery, 'limit' | 'cursor'>,
  position?: Position,
): Promise<LeadCount> {
  // The filters, the search included (its index is keyed by lead), are all on the leads: a count reads them alone.
  const from = 'from leads l';
  const select = position
    ? `select count(*) as "total", count(case when (l.received_at, l.id) ${query.order === 'asc' ? '<=' : '>='} (?, ?) then 1 end) as "before" ${from} where l.brand_id = `
    : `select count(*) as "total", 0 as "before" ${from} where l.brand_id = `;
  const q = await matching(store, select, brandId, stage, query);
  const params = position ? [position.time, position.id, ...q.params] : q.params;
  const [row] = await store.all<{ total: number | string; before: number | string }>(q.build(), params);
  return { total: Number(row?.total ?? 0), before: Number(row?.before ?? 0) };
}

const USER_OF_BRAND = statement('select id from users where id = ? and brand_id = ?');

async function userOfBrand(store: Runner, brandId: string, userId: string): Promise<boolean> {
  return (await store.all(USER_OF_BRAND, [userId, brandId])).length > 0;
}

// By id alone, the brand checked on the row (getLead): with `l.brand_id = ?` beside `l.id = ?`, PostgreSQL
// without statistics on the table yet (a new or freshly imported one, until autovacuum analyzes it) rated a
// (brand_id, …) index as cheap as the primary key and walked the brand's leads for each read.
const DETAIL_SELECT = `select ${DETAIL_PROJECTION.columns}, h.status as "h_status", h.at as "h_at", h.actor_type as "h_actor_type", h.actor_id as "h_actor_id", h.actor_name as "h_actor_name", h.reason as "h_reason" ${LEAD_FROM} left join lead_status_history h on h.lead_id = l.id where l.id = ? and l.spam = 0`;
export const DETAIL = statement(`${DETAIL_SELECT} order by h.seq`);
const DETAIL_WORK_ITEM = statement(`${DETAIL_SELECT} and l.scheduled_at is not null order by h.seq`);

type DetailRow = Record<string, unknown> & {
  h_status: Status | null;
  h_at: number | null;
  h_actor_type: 'key' | 'user' | 'form' | null;
  h_actor_id: string | null;
  h_actor_name: string | null;
  h_reason: string | null;
};

/**
 * One lead in any state, or (workItemsOnly) one that has been scheduled. NotFoundError for another brand's id.
 * Lead and history come from one statement, so the status always matches the last history entry even while the
 * lead is being changed. Inside a write (a Tx), it reads the lead as that write has left it: events carry that.
 */
export async function getLead(
  store: Runner,
  brandId: string,
  id: string,
  options: { workItemsOnly?: boolean } = {},
): Promise<LeadDetail> {
  const rows = await store.all<DetailRow>(options.workItemsOnly ? DETAIL_WORK_ITEM : DETAIL, [id]);
  const first = rows[0];
  if (!first || first.brandId !== brandId)
    throw new NotFoundError(`No ${options.workItemsOnly ? 'work item' : 'lead'} with id ${id}`);
  return {
    ...DETAIL_PROJECTION.map(first),
    statusHistory: rows.flatMap((h) =>
      h.h_status === null || h.h_at === null
        ? []
        : [
            {
              status: h.h_status,
              at: iso(h.h_at),
              actor:
                h.h_actor_type && h.h_actor_id
                  ? { type: h.h_actor_type, id: h.h_actor_id, name: h.h_actor_name ?? h.h_actor_id }
                  : null,
              reason: h.h_reason,
            },
          ],
    ),
  };
}
