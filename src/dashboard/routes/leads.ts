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
  NotPlannableError,
  submittedDifferences,
  updateLead,
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
  leadListPage,
  leadPage,
} from '../views/leads.js';
import type { VisitFormState } from '../views/visits.js';
import { parseVisitForm } from '../visit-form.js';
import { peopleOf } from './planning.js';

export const PAGE_SIZE = 25;
const hidden = { hide: true };
const userPage = { page: 'user' as const };

export function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

export default async function leadRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const { database } = deps;

  /** One lead's page as it is now, with a message on top (and the visit form as sent, when it had problems). */
  async function showLead(
    reply: FastifyReply,
    user: SessionUser,
    id: string,
    message: SafeHtml | undefined,
    status = 200,
    visitForm?: VisitFormState,
  ) {
    const lead = await getLead(database, user.brandId, id);
    const activity = await listLeadActivity(database, user.brandId, id);
    const people = await peopleOf(deps, user.brandId);
    return sendPage(reply, leadPage({ user, lead, activity, message, people, visitForm }), status);
  }

  /**
   * The Schedule form (status 'scheduled') and Change visit (no status): the visit as typed in the brand's time
   * zone, through the same domain call as PATCH /v1/leads/{id}.
   */
  async function planVisit(request: FastifyRequest, reply: FastifyReply, id: string, status?: 'scheduled') {
    const user = userOf(request);
    const form = parseVisitForm(request.body, user.timeZone);
    if (form.errors.length) return showLead(reply, user, id, undefined, 422, form);
    try {
      await updateLead(database, user.brandId, id, { status, plan: form.plan }, user.userId);
    } catch (error) {
      if (error instanceof ValidationError) {
        const errors = error.errors.map((e) =>
          e.field === 'assigneeId' ? { ...e, message: 'must be someone of this brand, or nobody yet' } : e,
        );
        return showLead(reply, user, id, undefined, 422, { values: form.values, errors });
      }
      if (error instanceof InvalidTransitionError || error instanceof NotPlannableError) {
        return showLead(reply, user, id, notice(error.message, 'error'), 409);
      }
      throw error;
    }
    return seeOther(reply, `/dashboard/leads/${id}?${status ? `moved=${status}` : 'visit=saved'}`);
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
    const stats =
      stage === 'lead' ? await leadStats(database, user.brandId, 30, Date.now(), user.timeZone) : undefined;
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
    const message = isStatus(moved)
      ? leadChangedNotice(moved)
      : applied
        ? detailsAppliedNotice(applied)
        : text(request.query, 'visit') === 'saved'
          ? notice('The visit is saved.')
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
    if (status === 'scheduled') return planVisit(request, reply, id, status);
    try {
      await changeLeadStatus(deps.database, user.brandId, id, status, user.userId);
    } catch (error) {
      if (!(error instanceof InvalidTransitionError)) throw error;
      return showLead(reply, user, id, notice(error.message, 'error'), 409);
    }
    return seeOther(reply, `/dashboard/leads/${id}?moved=${status}`);
  });

  // "Change visit" on the page of an open work item.
  app.post('/leads/:id/visit', { schema: hidden, config: userPage }, async (request, reply) =>
    planVisit(request, reply, pathParam(request, 'id')),
  );

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
