// Turns a list route's validated query parameters into the domain's list query (paging, timestamps, filters).
import type { Static, TObject } from '@sinclair/typebox';
import type { ListQuery } from '../../platform/http/schemas.js';
import { type FieldError, ValidationError } from '../../shared/errors.js';
import { normalizeLimit, parseTimestamp, resolveOrder } from '../../shared/paging.js';
import type { LeadListQuery } from '../index.js';
import type { LeadListQuerySchema, WorkItemListQuerySchema } from './schemas.js';

/** The paging parameters every list schema spreads in, as ajv leaves them. */
type PagingQuery = Static<TObject<typeof ListQuery>>;

/** Parses the named ISO timestamp parameters, reporting every bad one at once. */
export function timestampsFrom<K extends string>(
  query: Partial<Record<NoInfer<K>, string>>,
  fields: readonly K[],
): Record<K, number | undefined> {
  const errors: FieldError[] = [];
  const out = {} as Record<K, number | undefined>;
  for (const field of fields) {
    try {
      out[field] = parseTimestamp(query[field], field);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      errors.push(...error.errors);
    }
  }
  if (errors.length) throw new ValidationError(errors);
  return out;
}

/** The paging part every list shares: limit (capped at 100), order, cursor. */
export function pagingFrom(query: PagingQuery) {
  return {
    limit: normalizeLimit(query.limit),
    order: resolveOrder(query.order, query.cursor),
    cursor: query.cursor,
  };
}

/** The lead and work-item lists take the same parameters (only the statuses they accept differ). */
export function listQueryFrom(query: Static<typeof LeadListQuerySchema>): LeadListQuery {
  return {
    ...pagingFrom(query),
    ...timestampsFrom(query, ['receivedAfter', 'receivedBefore', 'updatedAfter'] as const),
    status: query.status,
    source: query.source
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    customerId: query.customerId,
    search: query.q,
  };
}

/** The work-item list: the lead list's parameters plus the planning filters. */
export function workItemQueryFrom(query: Static<typeof WorkItemListQuerySchema>): LeadListQuery {
  return {
    ...listQueryFrom(query),
    ...timestampsFrom(query, ['scheduledFrom', 'scheduledTo'] as const),
    assigneeId: query.assigneeId,
  };
}
