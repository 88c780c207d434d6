// The customers list (/dashboard/customers): the brand's customers, newest first, found by the leads' search
// (name, company, email, phone in any format, postal code), 25 a page with "1–25 of 312".
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hidden, userOf, userPage } from '../../accounts/dashboard/session.js';
import { MIN_TERM } from '../../platform/db/search.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { sendPage, text } from '../../platform/web/http.js';
import { type FieldError, ValidationError } from '../../shared/errors.js';
import { decodeCursor, type Page, type Position } from '../../shared/paging.js';
import { type CustomerDetail, countCustomerSummaries, listCustomerSummaries } from '../customers.js';
import { customerListPage } from './list-view.js';

export const CUSTOMERS_PER_PAGE = 25;

/** True when a search has too few characters (spaces aside) for the text index to find anything. */
export function tooShortToSearch(q: string): boolean {
  return q !== '' && [...q.replace(/\s+/g, '')].length < MIN_TERM;
}

const STALE_CURSOR: FieldError = {
  field: 'cursor',
  message: 'link is out of date: start again from the newest',
  text: { key: 'leads.error.cursor' },
};

type CountOf = (
  brandId: string,
  search: string | undefined,
  position: Position | undefined,
) => Promise<{ total: number; before: number }>;

/**
 * "1–25 of 312", counted over the list's own WHERE and kept while the database is unchanged (SQLite's version
 * token; on PostgreSQL, where other instances write unseen, every page view counts again), as the leads lists do:
 * counting 100,000 customers took 350 ms.
 */
function customerCountCache(database: RouteDeps['database']): CountOf {
  const counts = new Map<string, { version: string; count: { total: number; before: number } }>();
  return async (brandId, search, position) => {
    const version = database.version();
    const key = JSON.stringify([brandId, search ?? null, position ?? null]);
    const cached = version === undefined ? undefined : counts.get(key);
    if (cached && cached.version === version) return cached.count;
    const count = await countCustomerSummaries(database, brandId, search, position);
    if (version !== undefined && database.version() === version) {
      if (counts.size >= 1000) counts.delete(counts.keys().next().value!);
      counts.set(key, { version, count });
    }
    return count;
  };
}

async function listCustomersPage(
  deps: RouteDeps,
  countOf: CountOf,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const user = userOf(request);
  const q = text(request.query, 'q').trim().slice(0, 200);
  const cursor = text(request.query, 'cursor');
  const tooShort = tooShortToSearch(q);
  let result: Page<CustomerDetail> = {
    data: [],
    limit: CUSTOMERS_PER_PAGE,
    hasMore: false,
    nextCursor: null,
  };
  let count: { total: number; before: number } | undefined;
  const errors: FieldError[] = [];
  if (!tooShort) {
    try {
      const position = cursor ? decodeCursor(cursor) : undefined;
      const search = q || undefined;
      result = await listCustomerSummaries(deps.database, user.brandId, {
        limit: CUSTOMERS_PER_PAGE,
        ...(cursor ? { cursor } : {}),
        ...(search ? { search } : {}),
      });
      count = await countOf(user.brandId, search, position);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      errors.push(STALE_CURSOR);
    }
  }
  const page = customerListPage({ user, q, cursor, result, count, tooShort, errors });
  return sendPage(reply, page, errors.length ? 422 : 200);
}

export default async function customerListRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const countOf = customerCountCache(deps.database);
  app.get('/customers', { schema: hidden, config: userPage }, (request, reply) =>
    listCustomersPage(deps, countOf, request, reply),
  );
}
