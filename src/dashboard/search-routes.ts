// GET /dashboard/search?q=: the header's search across everything. Leads and work items in any state (the leads
// group is what the leads page's Open and Cancelled tabs show, the work-items group the work-items page: completed
// included) and customers, each through its own list's search (platform/db/search.ts), so "all N results" opens
// that list with the same search and finds the same N.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hidden, userOf, userPage } from '../accounts/dashboard/session.js';
import { countCustomerSummaries, listCustomerSummaries } from '../customers/customers.js';
import { tooShortToSearch } from '../customers/dashboard/list-routes.js';
import { CUSTOMERS_PATH } from '../customers/dashboard/list-view.js';
import { OPEN_AND_CANCELLED } from '../leads/dashboard/views/leads.js';
import { countLeads, type ListStage, listLeads } from '../leads/index.js';
import type { RouteDeps } from '../platform/http/deps.js';
import { sendPage, text, withQuery } from '../platform/web/http.js';
import { ValidationError } from '../shared/errors.js';
import { type SearchGroup, type SearchResults, searchPage } from './search-view.js';

/** How many results each group shows before its "all N results" link. */
export const SEARCH_GROUP_SIZE = 5;

type Store = RouteDeps['database'];

/** The first few leads or work items of a list that match, and how many match. */
async function leadGroup(
  store: Store,
  brandId: string,
  stage: ListStage,
  status: string | undefined,
  search: string,
  href: string,
) {
  const query = { order: 'desc' as const, search, ...(status ? { status } : {}) };
  const page = await listLeads(store, brandId, stage, { ...query, limit: SEARCH_GROUP_SIZE });
  const { total } = await countLeads(store, brandId, stage, query);
  return { items: page.data, total, href };
}

/** Every group's first results and count for a search. */
export async function searchEverything(store: Store, brandId: string, q: string): Promise<SearchResults> {
  const leads = await leadGroup(
    store,
    brandId,
    'all',
    OPEN_AND_CANCELLED,
    q,
    withQuery('/dashboard/leads', { q, status: OPEN_AND_CANCELLED }),
  );
  const workItems = await leadGroup(
    store,
    brandId,
    'work',
    undefined,
    q,
    withQuery('/dashboard/work-items', { q }),
  );
  const page = await listCustomerSummaries(store, brandId, { limit: SEARCH_GROUP_SIZE, search: q });
  const { total } = await countCustomerSummaries(store, brandId, q);
  const customers: SearchGroup<(typeof page.data)[number]> = {
    items: page.data,
    total,
    href: withQuery(CUSTOMERS_PATH, { q }),
  };
  return { leads, workItems, customers };
}

async function showSearch(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const q = text(request.query, 'q').trim().slice(0, 200);
  const tooShort = tooShortToSearch(q);
  try {
    const results = q && !tooShort ? await searchEverything(deps.database, user.brandId, q) : undefined;
    return sendPage(reply, searchPage({ user, q, tooShort, results }));
  } catch (error) {
    // A search no list runs (too many words, control characters) or one stopped at its budget: said, never a 500.
    if (!(error instanceof ValidationError)) throw error;
    return sendPage(reply, searchPage({ user, q, tooShort, error: error.errors[0] }), 422);
  }
}

export default async function searchRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  app.get('/search', { schema: hidden, config: userPage }, (request, reply) =>
    showSearch(deps, request, reply),
  );
}
