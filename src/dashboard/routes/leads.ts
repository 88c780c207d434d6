// Leads and work items: the lists with search, filters and paging; one lead's page and its state changes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteDeps } from '../../deps.js';
import { listCustomers } from '../../domain/customers.js';
import { leadStats } from '../../domain/dashboard-stats.js';
import {
  DomainError,
  type FieldError,
  InvalidTransitionError,
  ValidationError,
} from '../../domain/errors.js';
import {
  type AnyListItem,
  changeLeadStatus,
  getLead,
  listLeadActivity,
  listLeads,
  submittedDifferences,
  useSubmittedDetails,
} from '../../domain/leads/index.js';
import { countSpamLeads } from '../../domain/leads/spam.js';
import type { Page } from '../../domain/paging.js';
import type { SessionUser } from '../../domain/sessions.js';
import { isStatus, LEAD_SOURCES, PRIORITIES } from '../../domain/states.js';
import { html, type SafeHtml } from '../html.js';
import { pathParam, seeOther, sendPage, text } from '../http.js';
import { userActor, userOf } from '../session.js';
import { customerHref, notice } from '../views/components.js';
import {
  detailsAppliedNotice,
  type ListFilters,
  leadChangedNotice,
  leadEditedNotice,
  leadListPage,
  leadPage,
} from '../views/leads.js';

export const PAGE_SIZE = 25;
const hidden = { hide: true };
const userPage = { page: 'user' as const };

export function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

export default async function leadRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const { database } = deps;

  /** One lead's page as it is now, with a message on top. */
  async function showLead(
    reply: FastifyReply,
    user: SessionUser,
    id: string,
    message: SafeHtml | undefined,
    status = 200,
  ) {
    const lead = await getLead(database, user.brandId, id);
    const activity = await listLeadActivity(database, user.brandId, id);
    return sendPage(reply, leadPage({ user, lead, activity, message }), status);
  }

  async function list(stage: 'lead' | 'work', request: FastifyRequest, reply: FastifyReply) {
    const user = userOf(request);
    const query = request.query;
    const filters: ListFilters = {
      q: text(query, 'q').trim().slice(0, 200),
      status: text(query, 'status'),
      priority: text(query, 'priority'),
      source: text(query, 'source'),
      cursor: text(query, 'cursor'),
    };
    const errors: FieldError[] = [];
    if (filters.priority && !(PRIORITIES as readonly string[]).includes(filters.priority)) {
      errors.push({ field: 'priority', message: `must be one of ${PRIORITIES.join(', ')}` });
    }
    if (filters.source && !(LEAD_SOURCES as readonly string[]).includes(filters.source)) {
      errors.push({ field: 'source', message: `must be one of ${LEAD_SOURCES.join(', ')}` });
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
          source: filters.source ? [filters.source] : undefined,
          search: filters.q || undefined,
        });
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        errors.push(...error.errors);
      }
    }
    const stats = stage === 'lead' ? await leadStats(database, user.brandId) : undefined;
    const spamCount = stage === 'lead' ? await countSpamLeads(database, user.brandId) : undefined;
    const page = leadListPage({
      user,
      stage,
      result,
      filters,
      errors,
      stats,
      spamCount,
      publicUrl: originOf(request),
    });
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
    const moved = text(request.query, 'moved');
    const applied = text(request.query, 'applied');
    const edited = text(request.query, 'edited');
    const message = isStatus(moved)
      ? leadChangedNotice(moved)
      : applied
        ? detailsAppliedNotice(applied)
        : text(request.query, 'created')
          ? notice('Lead created.')
          : edited
            ? leadEditedNotice(edited)
            : undefined;
    return showLead(reply, user, id, message);
  });

  // The dashboard's state change: the same rules and the same domain call as PATCH /v1/leads/{id}.
  app.post('/leads/:id/status', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const id = pathParam(request, 'id');
    const status = text(request.body, 'status');
    if (!isStatus(status)) {
      const message = notice(`“${status}” is not a state. Choose one of the buttons.`, 'error');
      return showLead(reply, user, id, message, 422);
    }
    try {
      await changeLeadStatus(deps.database, user.brandId, id, status, user.userId);
    } catch (error) {
      if (!(error instanceof InvalidTransitionError)) throw error;
      return showLead(reply, user, id, notice(error.message, 'error'), 409);
    }
    return seeOther(reply, `/dashboard/leads/${id}?moved=${status}`);
  });

  // "Use these details": the contact details the lead was submitted with become the customer's (customer.updated),
  // recorded in the lead's history with the signed-in user.
  app.post('/leads/:id/use-submitted', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const id = pathParam(request, 'id');
    let changed: string[];
    try {
      changed = await useSubmittedDetails(database, user.brandId, id, userActor(user));
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'conflict') throw error;
      return showLead(reply, user, id, await conflictNotice(user, id, error.message), 409);
    }
    const applied = changed.length ? changed.join(',') : 'none';
    return seeOther(reply, `/dashboard/leads/${id}?applied=${encodeURIComponent(applied)}`);
  });

  /** Why the details were not applied, with a link to the customer who already has the submitted email. */
  async function conflictNotice(user: SessionUser, leadId: string, message: string): Promise<SafeHtml> {
    const lead = await getLead(database, user.brandId, leadId);
    const email = submittedDifferences(lead).find((d) => d.field === 'email')?.submitted;
    const other = email
      ? (await listCustomers(database, user.brandId, { limit: 1, order: 'desc', email })).data[0]
      : undefined;
    return notice(
      html`${message}${
        other ? html` <a href="${customerHref(other.id)}">Open the customer with that email</a>.` : ''
      }`,
      'error',
    );
  }
}
