// Leads and work items: the lists with search, filters and paging; one lead's page and its state changes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { userActor, userOf } from '../../accounts/dashboard/session.js';
import type { SessionUser } from '../../accounts/sessions.js';
import { listCustomers } from '../../customers/customers.js';
import { sendCsv } from '../../platform/http/csv-export.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { customerHref, notice } from '../../platform/web/components.js';
import { errorPage } from '../../platform/web/error-pages.js';
import { html, type SafeHtml } from '../../platform/web/html.js';
import { originOf, pathParam, seeOther, sendPage, text } from '../../platform/web/http.js';
import {
  DomainError,
  type FieldError,
  InvalidTransitionError,
  ValidationError,
} from '../../shared/errors.js';
import { decodeCursor, type Page } from '../../shared/paging.js';
import {
  type AnyListItem,
  addNote,
  changeLeadStatus,
  countLeads,
  type ExportQuery,
  exportLeads,
  getLead,
  type LeadCount,
  type LeadExport,
  type ListStage,
  listLeadActivity,
  listLeads,
  listNotes,
  MAX_NOTE_LENGTH,
  MAX_REASON_LENGTH,
  NotPlannableError,
  parseNoteText,
  parseReason,
  patchLead,
  submittedDifferences,
  useSubmittedDetails,
} from '../index.js';
import { countSpamLeads } from '../spam.js';
import { allowedTransitions, isStatus, LEAD_SOURCES, PRIORITIES, WORK_ITEM_STATUSES } from '../states.js';
import { leadStats } from '../stats.js';
import { peopleOf } from './planning-routes.js';
import {
  confirmStatusPage,
  type FeedFilter,
  type NoteFormState,
  needsConfirmation,
  noteAddedNotice,
  parseFeedFilter,
  staleStateNotice,
} from './views/lead-timeline.js';
import {
  detailsAppliedNotice,
  LEAD_PAGE_STATUS_FILTERS,
  type ListFilters,
  leadChangedNotice,
  leadEditedNotice,
  leadListPage,
  leadPage,
} from './views/leads.js';
import type { VisitFormState } from './views/visits.js';
import { parseVisitForm } from './visit-form.js';

export const PAGE_SIZE = 25;
/** Notes shown on a lead's page (newest first); the API lists every one. */
const NOTES_SHOWN = 100;
const hidden = { hide: true };
const userPage = { page: 'user' as const };

export default async function leadRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const { database } = deps;

  /** One lead's page as it is now, with a message on top (and the visit form as sent, when it had problems). */
  async function showLead(
    reply: FastifyReply,
    user: SessionUser,
    id: string,
    message: SafeHtml | undefined,
    status = 200,
    extra: { feed?: FeedFilter; noteForm?: NoteFormState; visitForm?: VisitFormState } = {},
  ) {
    const lead = await getLead(database, user.brandId, id);
    const activity = await listLeadActivity(database, user.brandId, id);
    const notes = await listNotes(database, user.brandId, id, { limit: NOTES_SHOWN, order: 'desc' });
    const people = await peopleOf(deps, user.brandId);
    return sendPage(
      reply,
      leadPage({
        user,
        lead,
        activity,
        notes: notes.data,
        moreNotes: notes.hasMore,
        message,
        people,
        ...extra,
      }),
      status,
    );
  }

  /**
   * The Schedule form (status 'scheduled') and Change visit (no status): the visit as typed in the brand's time
   * zone, through the same domain call as PATCH /v1/leads/{id}.
   */
  async function planVisit(request: FastifyRequest, reply: FastifyReply, id: string, status?: 'scheduled') {
    const user = userOf(request);
    const form = parseVisitForm(request.body, user.timeZone);
    if (form.errors.length) return showLead(reply, user, id, undefined, 422, { visitForm: form });
    try {
      await patchLead(database, user.brandId, id, { status, plan: form.plan }, userActor(user));
    } catch (error) {
      if (error instanceof ValidationError) {
        const errors = error.errors.map((e) =>
          e.field === 'assigneeId' ? { ...e, message: 'must be someone of this brand, or nobody yet' } : e,
        );
        return showLead(reply, user, id, undefined, 422, { visitForm: { values: form.values, errors } });
      }
      if (error instanceof InvalidTransitionError || error instanceof NotPlannableError) {
        return showLead(reply, user, id, notice(error.message, 'error'), 409);
      }
      throw error;
    }
    return seeOther(reply, `/dashboard/leads/${id}?${status ? `moved=${status}` : 'visit=saved'}`);
  }

  /** The list's filters as the query string has them, and what is wrong with them. */
  function filtersOf(
    request: FastifyRequest,
    stage: 'lead' | 'work',
  ): { filters: ListFilters; errors: FieldError[]; listStage: ListStage } {
    const query = request.query;
    const filters: ListFilters = {
      q: text(query, 'q').trim().slice(0, 200),
      status: text(query, 'status'),
      priority: text(query, 'priority'),
      source: text(query, 'source'),
      cursor: text(query, 'cursor'),
    };
    const errors: FieldError[] = [];
    // Friendly words for a filter value the lists do not offer (an edited or old link), never the API's.
    const statuses: readonly string[] = stage === 'work' ? WORK_ITEM_STATUSES : LEAD_PAGE_STATUS_FILTERS;
    if (filters.status && !statuses.includes(filters.status)) {
      errors.push({ field: 'status', message: 'is not one we know: choose a state from the list' });
    }
    if (filters.priority && !(PRIORITIES as readonly string[]).includes(filters.priority)) {
      errors.push({ field: 'priority', message: 'is not one we know: choose a priority from the list' });
    }
    if (filters.source && !(LEAD_SOURCES as readonly string[]).includes(filters.source)) {
      errors.push({ field: 'source', message: 'is not one we know: choose a source from the list' });
    }
    // The leads page also lists cancelled items (stage closed) and every item (status=all).
    const listStage: ListStage =
      stage === 'work'
        ? 'work'
        : filters.status === 'cancelled'
          ? 'closed'
          : filters.status === 'all'
            ? 'all'
            : 'lead';
    return { filters, errors, listStage };
  }

  /** The domain's list query for the dashboard's filters (the export takes the same, without paging). */
  function queryOf(filters: ListFilters): ExportQuery {
    return {
      order: 'desc',
      status: filters.status && filters.status !== 'all' ? filters.status : undefined,
      priority: filters.priority || undefined,
      source: filters.source ? [filters.source] : undefined,
      search: filters.q || undefined,
    };
  }

  // "1–25 of 312": counted over the list's own WHERE, and kept while the database is unchanged (SQLite's version
  // token; on PostgreSQL, where other instances write unseen, every page view counts again).
  const counts = new Map<string, { version: string; count: LeadCount }>();
  async function countOf(
    brandId: string,
    stage: ListStage,
    filters: ListFilters,
    query: ExportQuery,
  ): Promise<LeadCount> {
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
  }

  async function list(stage: 'lead' | 'work', request: FastifyRequest, reply: FastifyReply) {
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
              ? { field: 'cursor', message: 'link is out of date: start again from the newest' }
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
    });
    return sendPage(reply, page, errors.length ? 422 : 200);
  }

  /** "Export CSV": every item the list's filters match (not just this page), as the API exports them. */
  async function exportList(stage: 'lead' | 'work', request: FastifyRequest, reply: FastifyReply) {
    const user = userOf(request);
    const { filters, errors, listStage } = filtersOf(request, stage);
    let data: LeadExport | undefined;
    if (!errors.length) {
      try {
        data = await exportLeads(database, user.brandId, listStage, queryOf(filters));
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        errors.push(...error.errors);
      }
    }
    if (!data) {
      const message = `Nothing was exported: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}.`;
      return sendPage(reply, errorPage('Cannot export these filters', message, user), 422);
    }
    // With the byte order mark: people open the file in Excel, which needs it to read UTF-8.
    return sendCsv(request, reply, data, { name: stage === 'work' ? 'work-items' : 'leads', bom: true });
  }

  app.get('/', { schema: hidden, config: userPage }, async (_request, reply) =>
    reply.redirect('/dashboard/leads'),
  );
  app.get('/leads', { schema: hidden, config: userPage }, (request, reply) => list('lead', request, reply));
  app.get('/work-items', { schema: hidden, config: userPage }, (request, reply) =>
    list('work', request, reply),
  );
  app.get('/leads/export.csv', { schema: hidden, config: userPage }, (request, reply) =>
    exportList('lead', request, reply),
  );
  app.get('/work-items/export.csv', { schema: hidden, config: userPage }, (request, reply) =>
    exportList('work', request, reply),
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
        : text(request.query, 'noted')
          ? noteAddedNotice()
          : text(request.query, 'created')
            ? notice('Lead created.')
            : edited
              ? leadEditedNotice(edited)
              : text(request.query, 'visit') === 'saved'
                ? notice('The visit is saved.')
                : undefined;
    return showLead(reply, user, id, message, 200, { feed: parseFeedFilter(text(request.query, 'show')) });
  });

  // The dashboard's state change: the same rules and the same domain call as PATCH /v1/leads/{id}, by the
  // signed-in user. A final state (completed, cancelled) is confirmed first on a page of its own, which asks a
  // cancellation's reason; `from` is the state the page showed, so a stale tab changes nothing.
  app.post('/leads/:id/status', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const id = pathParam(request, 'id');
    const status = text(request.body, 'status');
    if (!isStatus(status)) {
      const message = notice(`“${status}” is not a state. Choose one of the buttons.`, 'error');
      return showLead(reply, user, id, message, 422);
    }
    const sentFrom = text(request.body, 'from');
    const from = isStatus(sentFrom) ? sentFrom : undefined;
    const reasonText = text(request.body, 'reason');
    const stale = async () => {
      const lead = await getLead(database, user.brandId, id);
      const changed = from !== undefined && from !== lead.status;
      return showLead(reply, user, id, staleStateNotice(lead, status, changed), 409);
    };
    if (status === 'scheduled') {
      // A Schedule form from a page that showed another state changes nothing, like any stale button.
      if (from !== undefined && from !== (await getLead(database, user.brandId, id)).status) return stale();
      return planVisit(request, reply, id, status);
    }
    if (needsConfirmation(status) && text(request.body, 'confirm') !== 'yes') {
      const lead = await getLead(database, user.brandId, id);
      if ((from !== undefined && from !== lead.status) || !allowedTransitions(lead.status).includes(status)) {
        return stale();
      }
      return sendPage(reply, confirmStatusPage({ user, lead, status }));
    }
    let reason: string | null = null;
    if (status === 'cancelled') {
      try {
        reason = parseReason(reasonText);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        const lead = await getLead(database, user.brandId, id);
        const length = [...reasonText.trim()].length;
        const reasonError = `A reason can be at most ${MAX_REASON_LENGTH} characters; this one has ${length}.`;
        return sendPage(
          reply,
          confirmStatusPage({ user, lead, status, reason: reasonText, reasonError }),
          422,
        );
      }
    }
    try {
      await changeLeadStatus(deps.database, user.brandId, id, status, userActor(user), {
        reason,
        ...(from !== undefined ? { from } : {}),
      });
    } catch (error) {
      if (!(error instanceof InvalidTransitionError)) throw error;
      return stale();
    }
    return seeOther(reply, `/dashboard/leads/${id}?moved=${status}`);
  });

  // An internal note by the signed-in user (note.created). A refused note keeps what was typed beside the message.
  app.post('/leads/:id/notes', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const id = pathParam(request, 'id');
    const typed = text(request.body, 'text');
    let noteText: string;
    try {
      noteText = parseNoteText(typed);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const length = [...typed.trim()].length;
      const message =
        length > MAX_NOTE_LENGTH
          ? `A note can be at most ${MAX_NOTE_LENGTH.toLocaleString('en-GB')} characters; this one has ${length.toLocaleString('en-GB')}.`
          : length === 0 || error.errors[0]?.message === 'must not be empty'
            ? 'Write something before adding the note.'
            : `The note ${error.errors[0]?.message ?? 'was not accepted'}.`;
      return showLead(reply, user, id, undefined, 422, { noteForm: { text: typed, error: message } });
    }
    await addNote(database, user.brandId, id, noteText, userActor(user));
    return seeOther(reply, `/dashboard/leads/${id}?noted=1#notes`);
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
