import { type FieldError, ValidationError } from '../../../domain/errors.js';
import type { LeadListQuery } from '../../../domain/leads/index.js';
import { normalizeLimit, parseTimestamp, resolveOrder, type SortOrder } from '../../../domain/paging.js';

/** Parses the named ISO timestamp parameters, reporting every bad one at once. */
export function timestampsFrom<K extends string>(
  query: Record<string, unknown>,
  fields: readonly K[],
): Record<K, number | undefined> {
  const errors: FieldError[] = [];
  const out = {} as Record<K, number | undefined>;
  for (const field of fields) {
    try {
      out[field] = parseTimestamp(query[field] as string | undefined, field);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      errors.push(...error.errors);
    }
  }
  if (errors.length) throw new ValidationError(errors);
  return out;
}

/** The paging part every list shares: limit (capped at 100), order, cursor. */
export function pagingFrom(query: Record<string, unknown>) {
  return {
    limit: normalizeLimit(query.limit as number | undefined),
    order: resolveOrder(query.order as SortOrder | undefined, query.cursor as string | undefined),
    cursor: query.cursor as string | undefined,
  };
}

export function listQueryFrom(query: Record<string, unknown>): LeadListQuery {
  return {
    ...pagingFrom(query),
    ...timestampsFrom(query, ['receivedAfter', 'receivedBefore', 'updatedAfter'] as const),
    status: query.status as string | undefined,
  };
}
