// The leads and work-items lists: search, filters, paging and the "1–25 of 312" count; the leads list with its
// charts and the spam count.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findBrand } from '../../accounts/brands.js';
import { hidden, userOf, userPage } from '../../accounts/dashboard/session.js';
import type { SessionUser } from '../../accounts/sessions.js';
import { isAdmin } from '../../accounts/users.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { originOf, sendPage } from '../../platform/web/http.js';
import { ValidationError } from '../../shared/errors.js';
import { decodeCursor, type Page } from '../../shared/paging.js';
import {
  type AnyListItem,
  countLeads,
  type ExportQuery,
  type LeadCount,
  type ListStage,
  listLeads,
} from '../index.js';
import { countSpamLeads } from '../spam.js';
import { leadStats } from '../stats.js';
import { filtersOf, queryOf } from './list-filters.js';
import { type ListFilters, leadListPage } from './views/leads.js';

export const PAGE_SIZE = 25;

type CountOf = (
  brandId: string,
  stage: ListStage,
  filters: ListFilters,
  query: ExportQuery,
) => Promise<LeadCount>;

/**
 * "1–25 of 312": counted over the list's own WHERE, and kept while the database is unchanged (SQLite's version
 * token; on PostgreSQL, where other instances write unseen, every page view counts again).
 */
function countCache(database: RouteDeps['database']): CountOf {
  const counts = new Map<string, { version: string; count: LeadCount }>();
  return async (brandId, stage, filters, query) => {
    const position = filters.cursor ? decodeCursor(filters.cursor) : undefined;
    const version = database.version();
    const key = JSON.stringify([brandId, stage, query, position ?? null]);
    const cached = version === undefined ? undefined : counts.get(key);
    if (cached && cached.version === version) return cached.count;
    const count = await countLeads(database, brandId, stage, query, position);
    if (version !== undefined && database.version() === version) {
      if (counts.size >= 1000) counts.delete(counts.keys().next().value!);
      counts.set(key, { version, count });
    }
    return count;
  };
}

async function list(
  deps: RouteDeps,
  countOf: CountOf,
  stage: 'lead' | 'work',
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const { database } = deps;
  const user = userOf(request);
  const { filters, errors, listStage } = filtersOf(request, stage);
  let result: Page<AnyListItem> = { data: [], limit: PAGE_SIZE, hasMore: false, nextCursor: null };
  let count: LeadCount | undefined;
  if (!errors.length) {
    try {
      const query = queryOf(filters);
      result = await listLeads(deps.database, user.brandId, listStage, {
        ...query,
        limit: PAGE_SIZE,
        cursor: filters.cursor || undefined,
      });
      count = await countOf(user.brandId, listStage, filters, query);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      errors.push(
        ...error.errors.map((e) =>
          e.field === 'cursor'
            ? {
                field: 'cursor',
                message: 'link is out of date: start again from the newest',
                text: { key: 'leads.error.cursor' as const },
              }
            : e,
        ),
      );
    }
  }
  const stats =
    stage === 'lead' ? await leadStats(database, user.brandId, 30, Date.now(), user.timeZone) : undefined;
  const spamCount = stage === 'lead' ? await countSpamLeads(database, user.brandId) : undefined;
  const page = leadListPage({
    user,
    stage,
    result,
    count,
    filters,
    errors,
    stats,
    spamCount,
    publicUrl: originOf(request),
    firstRun: await firstRunShown(deps, user, result),
  });
  return sendPage(reply, page, errors.length ? 422 : 200);
}

/** An admin's empty lead list leads to "Get started" until the brand hides it. */
async function firstRunShown(
  deps: RouteDeps,
  user: SessionUser,
  result: Page<AnyListItem>,
): Promise<boolean> {
  if (result.data.length || !isAdmin(user)) return false;
  return (await findBrand(deps.database, user.brandId))?.firstRunDismissedAt === null;
}

export default async function listRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const countOf = countCache(deps.database);
  app.get('/', { schema: hidden, config: userPage }, async (_request, reply) =>
    reply.redirect('/dashboard/leads'),
  );
  app.get('/leads', { schema: hidden, config: userPage }, (request, reply) =>
    list(deps, countOf, 'lead', request, reply),
  );
  app.get('/work-items', { schema: hidden, config: userPage }, (request, reply) =>
    list(deps, countOf, 'work', request, reply),
  );
}
