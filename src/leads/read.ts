// Reading leads and work items: the keyset-paged lists and the single read with its status history.
// The statements, hand-written for speed, are in queries.ts ("Lists and the single read").

import { leadAttachments } from '../attachments/attachments.js';
import { customerExists } from '../customers/customers.js';
import type { Runner } from '../platform/db/sql.js';
import type { Store } from '../platform/db/store.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import { decodeCursor, type Page, type Position, type SortOrder, toPage } from '../shared/paging.js';
import { iso } from '../shared/time.js';
import {
  countMatching,
  type LeadFilters,
  type PageWindow,
  selectFirstFormLead,
  selectLeadDetailRows,
  selectLeadDetailRowsWithSpam,
  selectListPage,
  userOfBrandExists,
} from './queries.js';
import {
  type AnyListItem,
  DETAIL_PROJECTION,
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

/** What a list reads for each item: the list item (default), or another projection such as an export row. */
export type ListProjection = Projection<Record<string, unknown>>;

/**
 * The query's filters, checked: its states parsed for the stage; a customer or user it names must be the
 * brand's (ValidationError otherwise: an unknown id is not "no results"). What they match: queries.ts.
 */
export async function checkedFilters(
  store: Store,
  brandId: string,
  stage: ListStage,
  query: Omit<LeadListQuery, 'limit' | 'order' | 'cursor'>,
): Promise<LeadFilters> {
  const statuses = parseStatusFilter(query.status, stage);
  if (query.customerId !== undefined && !(await customerExists(store, brandId, query.customerId))) {
    throw new ValidationError([{ field: 'customerId', message: 'is not a customer of this brand' }]);
  }
  if (query.assigneeId !== undefined && !(await userOfBrandExists(store, brandId, query.assigneeId))) {
    throw new ValidationError([{ field: 'assigneeId', message: 'is not a user of this brand' }]);
  }
  return { ...query, statuses };
}

/** The query's page: after its cursor's position (if any), in its order, `limit` items (one more is read). */
export function pageWindow(query: Pick<LeadListQuery, 'cursor' | 'order' | 'limit'>): PageWindow {
  return {
    after: query.cursor ? decodeCursor(query.cursor) : undefined,
    order: query.order,
    limit: query.limit,
  };
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
  const filters = await checkedFilters(store, brandId, stage, query);
  const rows = await selectListPage(store, brandId, stage, filters, pageWindow(query), projection);
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
  const filters = await checkedFilters(store, brandId, stage, query);
  return countMatching(store, brandId, stage, filters, query.order, position);
}

/**
 * One lead in any state, or (workItemsOnly) one that has been scheduled. NotFoundError for another brand's id.
 * Lead and history come from one statement, so the status always matches the last history entry even while the
 * lead is being changed. Inside a write (a Tx), it reads the lead as that write has left it: events carry that.
 */
export async function getLead(
  store: Runner,
  brandId: string,
  id: string,
  /** withSpam: a spam lead is read too (a personal-data export); otherwise it is not there. */
  options: { workItemsOnly?: boolean; withSpam?: boolean } = {},
): Promise<LeadDetail> {
  const rows = options.withSpam
    ? await selectLeadDetailRowsWithSpam(store, id)
    : await selectLeadDetailRows(store, id, options.workItemsOnly);
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
    attachments: await leadAttachments(store, id),
  };
}

/** The brand's first lead from a website form (spam and erased ones aside), for the "Get started" checklist. */
export async function firstFormLead(
  store: Store,
  brandId: string,
): Promise<{ id: string; title: string; customerId: string; formId: string } | undefined> {
  const row = await selectFirstFormLead(store, brandId);
  return row
    ? { id: row.id, title: row.title, customerId: row.customer_id, formId: row.source_form_id ?? '' }
    : undefined;
}
