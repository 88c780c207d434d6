// The lead and work-item lists, and one lead's page.

import type { SessionUser } from '../../../accounts/sessions.js';
import { isAdmin } from '../../../accounts/users.js';
import {
  CONTACT_FIELDS,
  CUSTOMER_FIELD_LABELS,
  customerTypeLabel,
  fieldLabel,
  fieldWords,
} from '../../../customers/fields.js';
import { customerTitle } from '../../../customers/names.js';
import {
  csrfField,
  customerHref,
  errorSummary,
  notice,
  phoneLink,
  detailRow as row,
  time,
} from '../../../platform/web/components.js';
import { phoneText } from '../../../platform/web/format.js';
import { type HtmlValue, html, type SafeHtml } from '../../../platform/web/html.js';
import { withQuery } from '../../../platform/web/http.js';
import { page } from '../../../platform/web/layout.js';
import { richText } from '../../../platform/web/messages.js';
import type { FieldError } from '../../../shared/errors.js';
import { type MessageKey, type Translator, translator } from '../../../shared/i18n/index.js';
import type { Page } from '../../../shared/paging.js';
import { leadField, leadFieldsWhere, officeLabel } from '../../fields.js';
import {
  type AnyListItem,
  type LeadActivity,
  type LeadCount,
  type LeadDetail,
  type Note,
  PLANNABLE_STATUSES,
  submittedDifferences,
} from '../../index.js';
import {
  allowedTransitions,
  LEAD_SOURCES,
  LEAD_STATUSES,
  PRIORITIES,
  type Status,
  stageOf,
  WORK_ITEM_STATUSES,
} from '../../states.js';
import type { LeadStats } from '../../stats.js';
import { attachmentsSection } from './attachments.js';
import { perDayChart, perStatusChart } from './charts.js';
import {
  PRIORITY_KEYS,
  priorityBadge,
  priorityLabel,
  SOURCE_LABELS,
  sourceLabel,
  statusBadge,
  statusLabel,
  TRANSITION_LABELS,
} from './labels.js';
import { leadFieldLabels } from './lead-form.js';
import { type FeedFilter, type NoteFormState, timelineSection } from './lead-timeline.js';
import { spamLink } from './spam.js';
import {
  changeVisitSection,
  type Person,
  scheduleForm,
  type VisitFormState,
  visitSummary,
} from './visits.js';

export interface ListFilters {
  q: string;
  status: string;
  priority: string;
  source: string;
  cursor: string;
}

/** Where a lead came from, in a few words: "Website form “Contact”", "API", "Phone (typed in by Sanne)". */
export function sourceText(
  tr: Translator,
  item: { source: string; sourceFormName: string | null; sourceUserName?: string | null },
): string {
  const source = sourceLabel(tr, item.source);
  if (item.sourceFormName) return tr.t('lead.source.withForm', { source, form: item.sourceFormName });
  return item.sourceUserName ? tr.t('lead.source.typedInBy', { source, name: item.sourceUserName }) : source;
}

export interface LeadListView {
  user: SessionUser;
  stage: 'lead' | 'work';
  result: Page<AnyListItem>;
  /** How many items the filters match, and how many come before this page (absent when the filters are bad). */
  count?: LeadCount | undefined;
  filters: ListFilters;
  errors: FieldError[];
  stats?: LeadStats | undefined;
  /** Spam held back (the lead list links to it). */
  spamCount?: number | undefined;
  publicUrl: string;
  /** An admin whose brand has not hidden "Get started": the empty list leads there first. */
  firstRun?: boolean;
}

const FILTER_LABELS: Record<string, MessageKey> = {
  status: 'leads.filter.state',
  priority: 'leads.filter.priority',
  source: 'leads.filter.source',
  cursor: 'leads.filter.page',
  q: 'leads.filter.search',
};

/** The filters' names in the reader's language, for the problems with them. */
export function filterLabels(tr: Translator): Record<string, string> {
  return Object.fromEntries(Object.entries(FILTER_LABELS).map(([name, key]) => [name, tr.t(key)]));
}

function option(value: string, label: string, selected: string): SafeHtml {
  return html`<option value="${value}"${value === selected ? html` selected` : ''}>${label}</option>`;
}

/**
 * Everything the leads page's tabs Open and Cancelled show, as one list: what the search across everything links
 * to for its leads (in any state).
 */
export const OPEN_AND_CANCELLED = 'request,quoted,cancelled';

/** The leads page's state filter also shows cancelled items, open and cancelled ones, and every item ("All states"). */
export const LEAD_PAGE_STATUS_FILTERS = [
  'request',
  'quoted',
  'cancelled',
  OPEN_AND_CANCELLED,
  'all',
] as const;

function statusOptions(tr: Translator, work: boolean, selected: string): SafeHtml[] {
  if (work) {
    return [
      option('', tr.t('leads.filter.allStates'), selected),
      ...WORK_ITEM_STATUSES.map((s) => option(s, statusLabel(tr, s), selected)),
    ];
  }
  return [
    option('', tr.t('leads.filter.openStates'), selected),
    ...LEAD_STATUSES.map((s) => option(s, statusLabel(tr, s), selected)),
    option('cancelled', statusLabel(tr, 'cancelled'), selected),
    option(OPEN_AND_CANCELLED, tr.t('leads.filter.openAndCancelled'), selected),
    option('all', tr.t('leads.filter.everyState'), selected),
  ];
}

/** Open, Cancelled, All: the views of the leads page, as tabs above the filters. */
function leadTabs(tr: Translator, status: string): SafeHtml {
  const tabs: { value: string; label: MessageKey }[] = [
    { value: '', label: 'leads.tab.open' },
    { value: 'cancelled', label: 'leads.tab.cancelled' },
    { value: 'all', label: 'leads.tab.all' },
  ];
  const current = status === 'request' || status === 'quoted' ? '' : status;
  return html`<nav class="tabs" aria-label="${tr.t('leads.tab.label')}">${tabs.map(
    (t) =>
      html`<a href="/dashboard/leads${t.value ? `?status=${t.value}` : ''}"${t.value === current ? html` aria-current="page"` : ''}>${tr.t(t.label)}</a>`,
  )}</nav>`;
}

function filterForm(tr: Translator, path: string, work: boolean, filters: ListFilters): SafeHtml {
  const active = Boolean(filters.q || filters.status || filters.priority || filters.source);
  return html`<form class="filters" method="get" action="${path}" role="search">
  <div class="field field-grow">
    <label for="field-q">${tr.t('leads.filter.search')}</label>
    <input id="field-q" name="q" type="search" value="${filters.q}" maxlength="200" placeholder="${tr.t('leads.filter.searchPlaceholder')}">
  </div>
  <div class="field">
    <label for="field-status">${tr.t('leads.filter.state')}</label>
    <select id="field-status" name="status">
      ${statusOptions(tr, work, filters.status)}
    </select>
  </div>
  <div class="field">
    <label for="field-priority">${tr.t('leads.filter.priority')}</label>
    <select id="field-priority" name="priority">
      ${option('', tr.t('leads.filter.any'), filters.priority)}
      ${PRIORITIES.map((p) => option(p, tr.t(PRIORITY_KEYS[p]), filters.priority))}
    </select>
  </div>
  <div class="field">
    <label for="field-source">${tr.t('leads.filter.source')}</label>
    <select id="field-source" name="source">
      ${option('', tr.t('leads.filter.any'), filters.source)}
      ${LEAD_SOURCES.map((s) => option(s, tr.t(SOURCE_LABELS[s]), filters.source))}
    </select>
  </div>
  <div class="filter-actions">
    <button type="submit" class="button button-primary">${tr.t('leads.filter.apply')}</button>
    ${active ? html`<a class="button button-quiet" href="${path}">${tr.t('leads.filter.clear')}</a>` : ''}
  </div>
</form>`;
}

function place(item: AnyListItem): string {
  return [item.address.postalCode, item.address.city].filter(Boolean).join(' ');
}

/** The customer in a list: a link to their page; a business by its company name, with the person below it. */
function customerCell(tr: Translator, customer: AnyListItem['customer'], brandCountry: string): SafeHtml {
  const contact = customer.email ?? (customer.phone ? phoneText(customer.phone, brandCountry) : null);
  const title = customerTitle(customer, tr.t('erase.erasedName'));
  return html`<div><a class="customer-link" href="${customerHref(customer.id)}">${title}</a>${
    customer.companyName ? html`<span class="sub">${customer.name}</span>` : ''
  }${contact ? html`<span class="sub">${contact}</span>` : ''}</div>`;
}

/** The rows of a list: a job's title, customer, place, priority, state, and when it came in or its visit. */
export function leadListTable(
  tr: Translator,
  items: AnyListItem[],
  stage: 'lead' | 'work',
  brandCountry: string,
): SafeHtml {
  const job = tr.t('leads.column.job');
  const customer = tr.t('leads.column.customer');
  const where = tr.t('leads.column.place');
  const priority = tr.t('leads.column.priority');
  const state = tr.t('leads.column.state');
  const last = tr.t(stage === 'work' ? 'leads.column.visit' : 'leads.column.received');
  return html`<table class="list">
  <thead><tr>
    <th scope="col">${job}</th><th scope="col">${customer}</th><th scope="col">${where}</th><th scope="col">${priority}</th>
    <th scope="col">${state}</th><th scope="col">${last}</th>
  </tr></thead>
  <tbody>${items.map(
    (item) => html`<tr>
    <td data-label="${job}" class="cell-title"><a href="/dashboard/leads/${item.id}">${item.title}</a><span class="sub">${sourceText(tr, item)}</span></td>
    <td data-label="${customer}">${customerCell(tr, item.customer, brandCountry)}</td>
    <td data-label="${where}">${place(item)}</td>
    <td data-label="${priority}">${priorityBadge(tr, item.priority)}</td>
    <td data-label="${state}">${statusBadge(tr, item.status)}</td>
    ${stage === 'work' ? html`<td data-label="${last}">${visitSummary(tr, item)}</td>` : html`<td data-label="${last}">${time(item.receivedAt)}</td>`}
  </tr>`,
  )}</tbody>
</table>`;
}

const code = (inner: SafeHtml) => html`<code>${inner}</code>`;

function emptyState(tr: Translator, view: LeadListView): SafeHtml {
  const filtered = Boolean(
    view.filters.q || view.filters.status || view.filters.priority || view.filters.source,
  );
  if (filtered) return html`<div class="empty"><p>${tr.t('leads.empty.filtered')}</p></div>`;
  if (view.stage === 'work') {
    return html`<div class="empty"><p>${tr.t('workItems.empty')}</p></div>`;
  }
  return html`<div class="empty">
  <h2>${tr.t('leads.empty.title')}</h2>
  ${view.firstRun ? html`<p class="empty-start">${richText(tr, 'leads.empty.start', { link: (inner) => html`<a class="button button-primary" href="/dashboard/start">${inner}</a>` })}</p>` : ''}
  <p>${
    isAdmin(view.user)
      ? richText(tr, 'leads.empty.howAdmin', {
          link: (inner) => html`<a href="/dashboard/settings/api-keys">${inner}</a>`,
          code,
        })
      : richText(tr, 'leads.empty.howMember', { code })
  }</p>
  <pre class="code">curl -X POST ${view.publicUrl}/v1/leads \\
  -H "X-API-Key: YOUR_KEY" -H "Content-Type: application/json" \\
  -d '{"title":"Leaking tap","customerName":"Sam Jansen","email":"sam@example.com",
       "street":"Keizersgracht","streetNumber":"123","postalCode":"1015 CJ","city":"Amsterdam"}'</pre>
  <p>${richText(tr, 'leads.empty.reload', { link: (inner) => html`<a href="/docs">${inner}</a>` })}</p>
</div>`;
}

const LEAD_PAGE_INTRO: Record<string, MessageKey> = {
  cancelled: 'leads.intro.cancelled',
  [OPEN_AND_CANCELLED]: 'leads.intro.openAndCancelled',
  all: 'leads.intro.all',
};

/** Where this page is in the list: "1–25 of 312", "301–312 of 312", "0 leads" ("1–25 van 312", "0 aanvragen"). */
export function countText(tr: Translator, count: LeadCount, shown: number, stage: 'lead' | 'work'): string {
  if (!shown) {
    return tr.t(stage === 'work' ? 'workItems.count.none' : 'leads.count.none', { count: count.total });
  }
  return tr.t('leads.count.range', {
    from: count.before + 1,
    to: count.before + shown,
    total: count.total,
  });
}

/** The count of the list and its "Export CSV" link, which carries the filters (never the page's cursor). */
function listBar(tr: Translator, view: LeadListView, exportHref: string): SafeHtml {
  return html`<div class="list-bar">
  <p class="muted list-count">${view.count ? countText(tr, view.count, view.result.data.length, view.stage) : ''}</p>
  ${view.errors.length ? '' : html`<a class="button button-quiet" href="${exportHref}">${tr.t('leads.exportCsv')}</a>`}
</div>`;
}

export function leadListPage(view: LeadListView): SafeHtml {
  const tr = translator(view.user.locale);
  const work = view.stage === 'work';
  const path = work ? '/dashboard/work-items' : '/dashboard/leads';
  const title = tr.t(work ? 'workItems.title' : 'leads.title');
  const { result, filters } = view;
  const filterParams = {
    q: filters.q,
    status: filters.status,
    priority: filters.priority,
    source: filters.source,
  };
  const body: HtmlValue = html`<div class="page-head">
  ${work ? '' : html`<p class="page-actions"><a class="button button-primary" href="/dashboard/leads/new">${tr.t('leads.new')}</a></p>`}
  <h1>${title}</h1>
  <p class="muted">${tr.t(work ? 'workItems.intro' : (LEAD_PAGE_INTRO[filters.status] ?? 'leads.intro.open'))}${
    view.spamCount === undefined ? '' : html` ${spamLink(tr, view.spamCount)}`
  }</p>
</div>
${
  view.stats
    ? html`<details class="overview" data-open-wide>
  <summary class="overview-toggle">${tr.t('leads.overview.title')} <span class="muted">${tr.t('leads.overview.subtitle')}</span></summary>
  <section class="charts" aria-label="${tr.t('leads.overview.title')}">${perDayChart(tr, view.stats.perDay)}${perStatusChart(tr, view.stats.perStatus)}</section>
</details>`
    : ''
}
${work ? '' : leadTabs(tr, filters.status)}
${filterForm(tr, path, work, filters)}
${errorSummary(tr, view.errors, filterLabels(tr))}
${listBar(tr, view, withQuery(`${path}/export.csv`, filterParams))}
${result.data.length ? leadListTable(tr, result.data, view.stage, view.user.brandCountry) : view.errors.length ? '' : emptyState(tr, view)}
${
  filters.cursor || result.nextCursor
    ? html`<nav class="pager" aria-label="${tr.t('list.pager.label')}">
  ${filters.cursor ? html`<a class="button button-quiet" href="${withQuery(path, filterParams)}">${tr.t('list.pager.newest')}</a>` : html`<span></span>`}
  ${result.nextCursor ? html`<a class="button" href="${withQuery(path, { ...filterParams, cursor: result.nextCursor })}" rel="next">${tr.t('list.pager.older')}</a>` : ''}
</nav>`
    : ''
}`;
  return page({ title, user: view.user, section: work ? 'work-items' : 'leads', body });
}

export interface LeadView {
  user: SessionUser;
  lead: LeadDetail;
  /** What was done to the lead besides state changes (listLeadActivity), oldest first. */
  activity: LeadActivity[];
  /** Its internal notes, newest first. */
  notes: Note[];
  /** More notes exist than `notes` holds. */
  moreNotes?: boolean;
  /** Which entries the timeline shows. */
  feed?: FeedFilter;
  /** The note form as typed, with its error, after a refused note. */
  noteForm?: NoteFormState | undefined;
  message?: SafeHtml | undefined;
  /** Who a visit can be given to (the Schedule and Change visit forms). */
  people?: Person[] | undefined;
  /** The visit form as sent, when it had problems. */
  visitForm?: VisitFormState | undefined;
  /** Why the files just sent were refused. */
  fileErrors?: readonly FieldError[] | undefined;
}

function shown(value: string | null): HtmlValue {
  return value ?? html`<span class="muted">—</span>`;
}

/** A submitted or recorded contact value; phones as people write them. */
function contactValue(field: string, value: string | null, brandCountry: string): HtmlValue {
  return field === 'phone' && value ? phoneText(value, brandCountry) : shown(value);
}

/** The contact details the lead was submitted with, where they differ from the customer's record. */
function submittedSection(tr: Translator, user: SessionUser, lead: LeadDetail): SafeHtml | '' {
  const differences = submittedDifferences(lead);
  if (!differences.length) return '';
  const fieldHead = tr.t('lead.submitted.field');
  const submittedHead = tr.t('lead.submitted.submitted');
  const recordHead = tr.t('lead.submitted.record');
  const label = (field: string) =>
    Object.hasOwn(CUSTOMER_FIELD_LABELS, field) ? tr.t(CUSTOMER_FIELD_LABELS[field]!) : field;
  return html`<section class="card card-highlight" aria-labelledby="submitted-title">
  <h2 id="submitted-title">${tr.t('lead.submitted.title')}</h2>
  <p class="muted">${tr.t('lead.submitted.intro')}</p>
  <table class="list compare">
    <thead><tr><th scope="col">${fieldHead}</th><th scope="col">${submittedHead}</th><th scope="col">${recordHead}</th></tr></thead>
    <tbody>${differences.map(
      (d) => html`<tr>
      <td data-label="${fieldHead}" class="cell-title">${label(d.field)}</td>
      <td data-label="${submittedHead}">${contactValue(d.field, d.submitted, user.brandCountry)}</td>
      <td data-label="${recordHead}">${contactValue(d.field, d.current, user.brandCountry)}</td>
    </tr>`,
    )}</tbody>
  </table>
  <form class="actions" method="post" action="/dashboard/leads/${lead.id}/use-submitted">
    ${csrfField(user.csrfToken)}
    <button type="submit" class="button button-primary">${tr.t('lead.submitted.use')}</button>
    <span class="muted">${tr.t('lead.submitted.useHint')}</span>
  </form>
</section>`;
}

function transitionForms(tr: Translator, view: LeadView): SafeHtml {
  const { user, lead } = view;
  const next = allowedTransitions(lead.status);
  // Only completed is final; a cancelled lead can be reopened (states.ts).
  if (!next.length) return html`<p class="muted">${tr.t('lead.final.completed')}</p>`;
  // Scheduling asks when, how long and who: a form of its own rather than a button.
  const schedule = next.includes('scheduled')
    ? scheduleForm(user, lead, view.people ?? [], view.visitForm)
    : '';
  return html`${schedule}<div class="actions">${next
    .filter((status) => status !== 'scheduled')
    .map(
      (status) => html`<form method="post" action="/dashboard/leads/${lead.id}/status">
    ${csrfField(user.csrfToken)}
    <input type="hidden" name="from" value="${lead.status}">
    <button type="submit" name="status" value="${status}" class="button ${status === 'cancelled' ? 'button-danger' : 'button-primary'}">${tr.t(TRANSITION_LABELS[status])}</button>
  </form>`,
    )}</div>${lead.status === 'cancelled' ? html`<p class="hint">${tr.t('lead.reopen.hint')}</p>` : ''}`;
}

/** The job's fields of the field table (fields.ts) but the title, which heads the page; long text as prose. */
function jobRows(tr: Translator, lead: LeadDetail): HtmlValue {
  const rows = leadFieldsWhere({ group: 'job' })
    .filter((name) => name !== 'title')
    .map((name) => {
      const value = lead[name];
      const label = officeLabel(tr, name);
      if (name === 'priority') return row(label, priorityLabel(tr, lead.priority));
      if (leadField(name).rows) {
        const none =
          name === 'description' ? html`<span class="muted">${tr.t('lead.noneGiven')}</span>` : null;
        return row(label, value ? html`<span class="prose">${value}</span>` : none);
      }
      return row(label, value);
    })
    .filter((r) => r !== '');
  return rows.map((r, i) => (i ? html`\n      ${r}` : r));
}

export function leadPage(view: LeadView): SafeHtml {
  const { lead, user } = view;
  const tr = translator(user.locale);
  const stage = stageOf(lead.status);
  const back =
    stage === 'work'
      ? html`<a href="/dashboard/work-items">${tr.t('lead.back.workItems')}</a>`
      : html`<a href="/dashboard/leads">${tr.t('lead.back.leads')}</a>`;
  const source = lead.sourceKeyName
    ? tr.t('lead.source.withKey', { source: sourceText(tr, lead), key: lead.sourceKeyName })
    : sourceText(tr, lead);
  const contact = (name: keyof typeof CONTACT_FIELDS) => fieldLabel(tr, CONTACT_FIELDS[name]);
  const { customer, address } = lead;
  const street = [address.street, address.streetNumber, address.streetNumberAddition]
    .filter(Boolean)
    .join(' ');
  const body = html`<p class="breadcrumb">${back}</p>
<div class="page-head">
  <p class="page-actions"><a class="button" href="/dashboard/leads/${lead.id}/edit">${tr.t('lead.edit')}</a></p>
  <h1 class="lead-title">${lead.title}</h1>
  <p class="badges">${statusBadge(tr, lead.status)} ${priorityBadge(tr, lead.priority)} <span class="muted">${richText(tr, 'lead.received', { time: time(lead.receivedAt) })}</span></p>
</div>
${view.message ?? ''}
<section class="card" aria-labelledby="actions-title">
  <h2 id="actions-title">${tr.t('lead.nextStep')}</h2>
  ${transitionForms(tr, view)}
</section>
${PLANNABLE_STATUSES.includes(lead.status) ? changeVisitSection(user, lead, view.people ?? [], view.visitForm) : ''}
${submittedSection(tr, user, lead)}
<div class="grid-2">
  <section class="card" aria-labelledby="job-title">
    <h2 id="job-title">${tr.t('lead.section.job')}</h2>
    <dl>
      ${jobRows(tr, lead)}
      ${row(tr.t('lead.row.source'), source)}
      ${row(tr.t('lead.row.consent'), lead.consent ? richText(tr, 'lead.consentGiven', { text: lead.consent.text, time: time(lead.consent.at) }) : null)}
      ${Object.entries(lead.extraFields ?? {}).map(([name, value]) =>
        row(name, html`<span class="prose">${value}</span>`),
      )}
      ${Object.entries(lead.attribution ?? {}).map(([name, value]) => row(name, value))}
      ${row(tr.t('lead.row.scheduledAt'), lead.scheduledAt ? time(lead.scheduledAt) : null)}
      ${row(tr.t('lead.row.visit'), lead.scheduledFor || lead.assignee ? visitSummary(tr, lead) : null)}
      ${row(tr.t('lead.row.reference'), html`<code>${lead.id}</code>`)}
    </dl>
  </section>
  <section class="card" aria-labelledby="customer-title">
    <h2 id="customer-title">${tr.t('lead.section.customer')} <span class="badge badge-neutral">${customerTypeLabel(tr, customer.type)}</span></h2>
    <dl>
      ${row(contact('name'), html`<a href="${customerHref(customer.id)}">${customer.name}</a>`)}
      ${row(contact('companyName'), customer.companyName)}
      ${row(contact('firstName'), customer.firstName)}
      ${row(contact('lastName'), customer.lastName)}
      ${row(contact('email'), customer.email ? html`<a href="mailto:${customer.email}">${customer.email}</a>` : null)}
      ${row(contact('phone'), customer.phone ? phoneLink(customer.phone, user.brandCountry) : null)}
    </dl>
    <p><a href="${customerHref(customer.id)}">${tr.t('lead.customerLeads')}</a></p>
  </section>
  <section class="card" aria-labelledby="address-title">
    <h2 id="address-title">${tr.t('lead.section.address')}</h2>
    <address>${street}<br>${address.postalCode} ${address.city}<br>${address.country}</address>
  </section>
</div>
${attachmentsSection(user, lead.id, lead.attachments, view.fileErrors)}
${timelineSection({
  user,
  lead,
  notes: view.notes,
  activity: view.activity,
  filter: view.feed ?? 'all',
  noteForm: view.noteForm,
  moreNotes: view.moreNotes ?? false,
})}`;
  return page({ title: lead.title, user, section: stage === 'work' ? 'work-items' : 'leads', body });
}

const strong = (inner: SafeHtml) => html`<strong>${inner}</strong>`;

/** After a state change; a lead that moved to request was reopened (only a cancelled lead can). */
export function leadChangedNotice(tr: Translator, status: Status): SafeHtml {
  if (status === 'request') return notice(tr.t('lead.notice.reopened'));
  return notice(richText(tr, 'lead.notice.moved', { status: statusLabel(tr, status), strong }));
}

/** After an edit: the fields that changed ("title,city" in the query), or none. */
export function leadEditedNotice(tr: Translator, edited: string): SafeHtml {
  if (edited === 'none') return notice(tr.t('lead.notice.nothingChanged'), 'info');
  const labels = leadFieldLabels(tr);
  const fields = edited
    .split(',')
    .filter((f) => Object.hasOwn(labels, f))
    .map((f) => labels[f]!.toLowerCase())
    .join(', ');
  return notice(fields ? tr.t('lead.notice.updatedFields', { fields }) : tr.t('lead.notice.updated'));
}

/** After "Use these details": the fields that changed ("email,phone" in the query), or none. */
export function detailsAppliedNotice(tr: Translator, applied: string): SafeHtml | undefined {
  if (applied === 'none') return notice(tr.t('lead.notice.nothingToApply'), 'info');
  const fields = fieldWords(tr, applied.split(','));
  return fields ? notice(tr.t('lead.notice.detailsApplied', { fields })) : undefined;
}
