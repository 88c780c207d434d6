// Leads and work items: the lists with search, filters and paging; one lead's page and its state changes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteDeps } from '../../deps.js';
import { leadStats } from '../../domain/dashboard-stats.js';
import { type FieldError, InvalidTransitionError, ValidationError } from '../../domain/errors.js';
import { type AnyListItem, changeLeadStatus, getLead, listLeads } from '../../domain/leads/index.js';
import type { Page } from '../../domain/paging.js';
import { isStatus, PRIORITIES } from '../../domain/states.js';
import { pathParam, seeOther, sendPage, text } from '../http.js';
import { userOf } from '../session.js';
import { notice } from '../views/components.js';
import { type ListFilters, leadChangedNotice, leadListPage, leadPage } from '../views/leads.js';

export const PAGE_SIZE = 25;
const hidden = { hide: true };
const userPage = { page: 'user' as const };

export function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

export default async function leadRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const { database } = deps;

  async function list(stage: 'lead' | 'work', request: FastifyRequest, reply: FastifyReply) {
    const user = userOf(request);
    const query = request.query;
    const filters: ListFilters = {
      q: text(query, 'q').trim().slice(0, 200),
      status: text(query, 'status'),
      priority: text(query, 'priority'),
      cursor: text(query, 'cursor'),
    };
    const errors: FieldError[] = [];
    if (filters.priority && !(PRIORITIES as readonly string[]).includes(filters.priority)) {
      errors.push({ field: 'priority', message: `must be one of ${PRIORITIES.join(', ')}` });
    }
    let result: Page<AnyListItem> = { data: [], limit: PAGE_SIZE, hasMore: false, nextCursor: null };
    if (!errors.length) {
      try {
        result = await listLeads(deps.database, user.brandId, stage, {
          limit: PAGE_SIZE,
          order: 'desc',
          cursor: filters.cursor || undefined,
          status: filters.status || undefined,
          priority: filters.priority || undefined,
          search: filters.q || undefined,
        });
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        errors.push(...error.errors);
      }
    }
    const stats = stage === 'lead' ? await leadStats(database, user.brandId) : undefined;
    const page = leadListPage({ user, stage, result, filters, errors, stats, publicUrl: originOf(request) });
    return sendPage(reply, page, errors.length ? 422 : 200);
  }

  app.get('/', { schema: hidden, config: userPage }, async (_request, reply) =>
    reply.redirect('/dashboard/leads'),
  );
  app.get('/leads', { schema: hidden, config: userPage }, (request, reply) => list('lead', request, reply));
  app.get('/work-items', { schema: hidden, config: userPage }, (request, reply) =>
    list('work', request, reply),
  );

  app.get('/leads/:id', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const id = pathParam(request, 'id');
    const lead = await getLead(deps.database, user.brandId, id);
    const moved = text(request.query, 'moved');
    return sendPage(
      reply,
      leadPage({ user, lead, message: isStatus(moved) ? leadChangedNotice(moved) : undefined }),
    );
  });

  // The dashboard's state change: the same rules and the same domain call as PATCH /v1/leads/{id}.
  app.post('/leads/:id/status', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const id = pathParam(request, 'id');
    const status = text(request.body, 'status');
    if (!isStatus(status)) {
      const lead = await getLead(deps.database, user.brandId, id);
      const message = notice(`“${status}” is not a state. Choose one of the buttons.`, 'error');
      return sendPage(reply, leadPage({ user, lead, message }), 422);
    }
    try {
      await changeLeadStatus(deps.database, user.brandId, id, status, user.userId);
    } catch (error) {
      if (!(error instanceof InvalidTransitionError)) throw error;
      const lead = await getLead(deps.database, user.brandId, id);
      return sendPage(reply, leadPage({ user, lead, message: notice(error.message, 'error') }), 409);
    }
    return seeOther(reply, `/dashboard/leads/${id}?moved=${status}`);
  });
}
