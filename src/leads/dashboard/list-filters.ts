// The filters of the leads and work-items lists (and of their CSV exports), as the query string has them.
import type { FastifyRequest } from 'fastify';
import { text } from '../../platform/web/http.js';
import type { FieldError } from '../../shared/errors.js';
import type { ExportQuery, ListStage } from '../index.js';
import { LEAD_SOURCES, PRIORITIES, WORK_ITEM_STATUSES } from '../states.js';
import { LEAD_PAGE_STATUS_FILTERS, type ListFilters, OPEN_AND_CANCELLED } from './views/leads.js';

/** The list's filters as the query string has them, and what is wrong with them. */
export function filtersOf(
  request: FastifyRequest,
  stage: 'lead' | 'work',
): { filters: ListFilters; errors: FieldError[]; listStage: ListStage } {
  const query = request.query;
  const filters: ListFilters = {
    q: text(query, 'q').trim().slice(0, 200),
    status: text(query, 'status'),
    priority: text(query, 'priority'),
    source: text(query, 'source'),
    cursor: text(query, 'cursor'),
  };
  const errors: FieldError[] = [];
  // Friendly words for a filter value the lists do not offer (an edited or old link), never the API's.
  const statuses: readonly string[] = stage === 'work' ? WORK_ITEM_STATUSES : LEAD_PAGE_STATUS_FILTERS;
  if (filters.status && !statuses.includes(filters.status)) {
    errors.push({
      field: 'status',
      message: 'is not one we know: choose a state from the list',
      text: { key: 'leads.error.state' },
    });
  }
  if (filters.priority && !(PRIORITIES as readonly string[]).includes(filters.priority)) {
    errors.push({
      field: 'priority',
      message: 'is not one we know: choose a priority from the list',
      text: { key: 'leads.error.priority' },
    });
  }
  if (filters.source && !(LEAD_SOURCES as readonly string[]).includes(filters.source)) {
    errors.push({
      field: 'source',
      message: 'is not one we know: choose a source from the list',
      text: { key: 'leads.error.source' },
    });
  }
  // The leads page also lists cancelled items (stage closed), open and cancelled ones (their states, over every
  // stage) and every item (status=all).
  const listStage: ListStage =
    stage === 'work'
      ? 'work'
      : filters.status === 'cancelled'
        ? 'closed'
        : filters.status === 'all' || filters.status === OPEN_AND_CANCELLED
          ? 'all'
          : 'lead';
  return { filters, errors, listStage };
}

/** The domain's list query for the dashboard's filters (the export takes the same, without paging). */
export function queryOf(filters: ListFilters): ExportQuery {
  return {
    order: 'desc',
    status: filters.status && filters.status !== 'all' ? filters.status : undefined,
    priority: filters.priority || undefined,
    source: filters.source ? [filters.source] : undefined,
    search: filters.q || undefined,
  };
}
