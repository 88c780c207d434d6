// The customers list (/dashboard/customers): the brand's customers, newest first, found by the leads' search
// (name, company, email, phone in any format, postal code), 25 a page with "1–25 of 312".
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hidden, userOf, userPage } from '../../accounts/dashboard/session.js';
import { MIN_TERM } from '../../platform/db/search.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { sendPage, text } from '../../platform/web/http.js';
import { type FieldError, ValidationError } from '../../shared/errors.js';
import { decodeCursor, type Page } from '../../shared/paging.js';
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

async function listCustomersPage(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
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
      count = await countCustomerSummaries(deps.database, user.brandId, search, position);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      errors.push(STALE_CURSOR);
    }
  }
  const page = customerListPage({ user, q, cursor, result, count, tooShort, errors });
  return sendPage(reply, page, errors.length ? 422 : 200);
}

export default async function customerListRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  app.get('/customers', { schema: hidden, config: userPage }, (request, reply) =>
    listCustomersPage(deps, request, reply),
  );
}
