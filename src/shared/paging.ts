// Keyset paging shared by every list: limit rules, opaque cursors, and time filters. The SQL step of it,
// keysetPage, is in platform/db/keyset.ts.
import { ValidationError } from './errors.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

export type SortOrder = 'asc' | 'desc';

export interface Position {
  /** The sort time in epoch milliseconds. */
  time: number;
  id: string;
}

export interface Page<T> {
  data: T[];
  limit: number;
  hasMore: boolean;
  nextCursor: string | null;
}

export interface Cursor extends Position {
  /** The order the cursor's page was listed in; continuing in the other order would skip items. */
  order: SortOrder;
}

/** `l1.` + base64url("<a|d>.<time>.<id>"): opaque to clients, versioned so its shape can change later. */
export function encodeCursor(position: Position, order: SortOrder): string {
  const text = `${order === 'asc' ? 'a' : 'd'}.${position.time}.${position.id}`;
  return `l1.${Buffer.from(text).toString('base64url')}`;
}

function parseCursor(cursor: string): Cursor | undefined {
  if (!cursor.startsWith('l1.') || cursor.length > 200) return undefined;
  const text = Buffer.from(cursor.slice(3), 'base64url').toString('utf8');
  const match = /^([ad])\.(\d{1,15})\.([a-z]{3}_[0-9a-z]{26})$/.exec(text);
  if (!match) return undefined;
  return { order: match[1] === 'a' ? 'asc' : 'desc', time: Number(match[2]), id: match[3]! };
}

export function isCursor(value: string): boolean {
  return parseCursor(value) !== undefined;
}

export function decodeCursor(cursor: string, field = 'cursor'): Cursor {
  const parsed = parseCursor(cursor);
  if (!parsed) throw new ValidationError([{ field, message: 'is not a cursor this API issued' }]);
  return parsed;
}

/**
 * Resolves the order of a list request: a cursor continues in the order it was issued for, and an explicit
 * order= that contradicts it is refused rather than silently skipping items.
 */
export function resolveOrder(order: SortOrder | undefined, cursor: string | undefined): SortOrder {
  if (!cursor) return order ?? 'desc';
  const parsed = decodeCursor(cursor);
  if (order && order !== parsed.order) {
    throw new ValidationError([
      {
        field: 'order',
        message: `the cursor continues an order=${parsed.order} listing; drop order= or use ${parsed.order}`,
      },
    ]);
  }
  return parsed.order;
}

export function normalizeLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  return Math.min(limit, MAX_LIMIT);
}

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

// Date.parse rolls impossible days over (2026-02-30 becomes 2026-03-02): a filter must not silently move.
function isCalendarDate(value: string): boolean {
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export function isTimestamp(value: string): boolean {
  try {
    parseTimestamp(value, 'value');
    return true;
  } catch {
    return false;
  }
}

/** Parses an ISO 8601 timestamp filter into epoch ms. A value without zone is taken as UTC. */
export function parseTimestamp(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (!ISO_TIMESTAMP.test(trimmed)) {
    throw new ValidationError([
      { field, message: 'must be an ISO 8601 timestamp such as 2026-11-21T09:30:00.000Z' },
    ]);
  }
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(trimmed);
  const normalized = trimmed.includes('T') && !hasZone ? `${trimmed}Z` : trimmed;
  const ms = Date.parse(normalized);
  if (Number.isNaN(ms) || !isCalendarDate(trimmed)) {
    throw new ValidationError([{ field, message: 'is not a valid date and time' }]);
  }
  return ms;
}

/** Builds a page from limit+1 fetched rows. */
export function toPage<R, T>(
  rows: R[],
  limit: number,
  order: SortOrder,
  position: (row: R) => Position,
  map: (row: R) => T,
): Page<T> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map(map),
    limit,
    hasMore,
    nextCursor: hasMore && last ? encodeCursor(position(last), order) : null,
  };
}

/** The paging part of a list request. */
export interface PageQuery {
  limit: number;
  order: SortOrder;
  cursor?: string;
}
