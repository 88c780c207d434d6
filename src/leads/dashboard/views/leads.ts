// The lead and work-item lists, and one lead's page.

import type { SessionUser } from '../../../accounts/sessions.js';
import { isAdmin } from '../../../accounts/users.js';
import { CUSTOMER_FIELD_LABELS, fieldWords } from '../../../customers/fields.js';
import { customerTitle, typeLabel } from '../../../customers/names.js';
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
import type { FieldError } from '../../../shared/errors.js';
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
import { perDayChart, perStatusChart } from './charts.js';
import { PRIORITY_LABELS, priorityBadge, STATUS_LABELS, statusBadge, TRANSITION_LABELS } from './labels.js';
import { LEAD_FIELD_LABELS } from './lead-form.js';
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

/** People's names for the sources, in the filter and under each job. */
export const SOURCE_LABELS: Record<string, string> = {
  website: 'API',
  form: 'Website form',
  phone: 'Phone',
  dashboard: 'Typed in',
};

/** Where a lead came from, in a few words: "Website form “Contact”", "API", "Phone (typed in by Sanne)". */
export function sourceText(item: {
  source: string;
  sourceFormName: string | null;
  sourceUserName?: string | null;
}): string {
  const label = SOURCE_LABELS[item.source] ?? item.source;
  if (item.sourceFormName) return `${label} “${item.sourceFormName}”`;
  return item.sourceUserName ? `${label} (typed in by ${item.sourceUserName})` : label;
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
}

const FILTER_LABELS: Record<string, string> = {
  status: 'State',
  priority: 'Priority',
  source: 'Source',
  cursor: 'Page',
  q: 'Search',
};

function option(value: string, label: string, selected: string): SafeHtml {
  return html`<option value="${value}"${value === selected ? html` selected` : ''}>${label}</option>`;
}

/** The leads page's state filter also shows cancelled items, and every item ("All states"). */
export const LEAD_PAGE_STATUS_FILTERS = ['request', 'quoted', 'cancelled', 'all'] as const;

function statusOptions(work: boolean, selected: string): SafeHtml[] {
  if (work) {
    return [
      option('', 'All', selected),
      ...WORK_ITEM_STATUSES.map((s) => option(s, STATUS_LABELS[s], selected)),
    ];
  }
  return [
    option('', 'Open (request, quoted)', selected),
    ...LEAD_STATUSES.map((s) => option(s, STATUS_LABELS[s], selected)),
    option('cancelled', STATUS_LABELS.cancelled, selected),
    option('all', 'All states (leads, work items, cancelled)', selected),
  ];
}

/** Open, Cancelled, All: the views of the leads page, as tabs above the filters. */
function leadTabs(status: string): SafeHtml {
  const tabs = [
    { value: '', label: 'Open leads' },
    { value: 'cancelled', label: 'Cancelled' },
    { value: 'all', label: 'All' },
  ];
  const current = status === 'request' || status === 'quoted' ? '' : status;
  return html`<nav class="tabs" aria-label="Which leads">${tabs.map(
    (t) =>
      html`<a href="/dashboard/leads${t.value ? `?status=${t.value}` : ''}"${t.value === current ? html` aria-current="page"` : ''}>${t.label}</a>`,
  )}</nav>`;
}

function filterForm(path: string, work: boolean, filters: ListFilters): SafeHtml {
  const active = Boolean(filters.q || filters.status || filters.priority || filters.source);
  return html`<form class="filters" method="get" action="${path}" role="search">
  <div class="field field-grow">
    <label for="field-q">Search</label>
    <input id="field-q" name="q" type="search" value="${filters.q}" maxlength="200" placeholder="Title, name, email, phone, postal code or city">
  </div>
  <div class="field">
    <label for="field-status">State</label>
    <select id="field-status" name="status">
      ${statusOptions(work, filters.status)}
    </select>
  </div>
  <div class="field">
    <label for="field-priority">Priority</label>
    <select id="field-priority" name="priority">
      ${option('', 'Any', filters.priority)}
      ${PRIORITIES.map((p) => option(p, PRIORITY_LABELS[p]!, filters.priority))}
    </select>
  </div>
  <div class="field">
    <label for="field-source">Source</label>
    <select id="field-source" name="source">
      ${option('', 'Any', filters.source)}
      ${LEAD_SOURCES.map((s) => option(s, SOURCE_LABELS[s] ?? s, filters.source))}
    </select>
  </div>
  <div class="filter-actions">
    <button type="submit" class="button button-primary">Apply</button>
    ${active ? html`<a class="button button-quiet" href="${path}">Clear</a>` : ''}
  </div>
</form>`;
}

function place(item: AnyListItem): string {
  return [item.address.postalCode, item.address.city].filter(Boolean).join(' ');
}

/** The customer in a list: a link to their page; a business by its company name, with the person below it. */
function customerCell(customer: AnyListItem['customer'], brandCountry: string): SafeHtml {
  const contact = customer.email ?? (customer.phone ? phoneText(customer.phone, brandCountry) : null);
  return html`<div><a class="customer-link" href="${customerHref(customer.id)}">${customerTitle(customer)}</a>${
    customer.companyName ? html`<span class="sub">${customer.name}</span>` : ''
  }${contact ? html`<span class="sub">${contact}</span>` : ''}</div>`;
}

function table(items: AnyListItem[], stage: 'lead' | 'work', brandCountry: string): SafeHtml {
  return html`<table class="list">
  <thead><tr>
    <th scope="col">Job</th><th scope="col">Customer</th><th scope="col">Place</th><th scope="col">Priority</th>
    <th scope="col">State</th><th scope="col">${stage === 'work' ? 'Visit' : 'Received'}</th>
  </tr></thead>
  <tbody>${items.map(
    (item) => html`<tr>
    <td data-label="Job" class="cell-title"><a href="/dashboard/leads/${item.id}">${item.title}</a><span class="sub">${sourceText(item)}</span></td>
    <td data-label="Customer">${customerCell(item.customer, brandCountry)}</td>
    <td data-label="Place">${place(item)}</td>
    <td data-label="Priority">${priorityBadge(item.priority)}</td>
    <td data-label="State">${statusBadge(item.status)}</td>
    ${stage === 'work' ? html`<td data-label="Visit">${visitSummary(item)}</td>` : html`<td data-label="Received">${time(item.receivedAt)}</td>`}
  </tr>`,
  )}</tbody>
</table>`;
}

function emptyState(view: LeadListView): SafeHtml {
  const filtered = Boolean(
    view.filters.q || view.filters.status || view.filters.priority || view.filters.source,
  );
  if (filtered) return html`<div class="empty"><p>Nothing matches these filters.</p></div>`;
  if (view.stage === 'work') {
    return html`<div class="empty"><p>No work items yet. A lead becomes a work item when you schedule it.</p></div>`;
  }
  return html`<div class="empty">
  <h2>No leads yet</h2>
  <p>Leads arrive through the API. ${
    isAdmin(view.user)
      ? html`<a href="/dashboard/settings/api-keys">Create an API key</a>`
      : 'An admin creates an API key'
  } with the <code>leads:write</code> scope, then send one from your website form, or try it now:</p>
  <pre class="code">curl -X POST ${view.publicUrl}/v1/leads \\
  -H "X-API-Key: YOUR_KEY" -H "Content-Type: application/json" \\
  -d '{"title":"Leaking tap","customerName":"Sam Jansen","email":"sam@example.com",
       "street":"Keizersgracht","streetNumber":"123","postalCode":"1015 CJ","city":"Amsterdam"}'</pre>
  <p>Reload this page and it is here. The API reference is at <a href="/docs">/docs</a>.</p>
</div>`;
}

const LEAD_PAGE_INTRO: Record<string, string> = {
  cancelled: 'Cancelled leads and jobs',
  all: 'Every lead and job in any state, cancelled ones included',
};

const numberFormat = new Intl.NumberFormat('en-GB');

/** Where this page is in the list: "1–25 of 312", "301–312 of 312", "0 leads". */
export function countText(count: LeadCount, shown: number, stage: 'lead' | 'work'): string {
  const n = (value: number) => numberFormat.format(value);
  if (!shown) {
    const noun = stage === 'work' ? 'work item' : 'lead';
    return `${n(count.total)} ${noun}${count.total === 1 ? '' : 's'}`;
  }
  return `${n(count.before + 1)}–${n(count.before + shown)} of ${n(count.total)}`;
}

/** The count of the list and its "Export CSV" link, which carries the filters (never the page's cursor). */
function listBar(view: LeadListView, exportHref: string): SafeHtml {
  return html`<div class="list-bar">
  <p class="muted list-count">${view.count ? countText(view.count, view.result.data.length, view.stage) : ''}</p>
  ${view.errors.length ? '' : html`<a class="button button-quiet" href="${exportHref}">Export CSV</a>`}
</div>`;
}

export function leadListPage(view: LeadListView): SafeHtml {
  const work = view.stage === 'work';
  const path = work ? '/dashboard/work-items' : '/dashboard/leads';
  const title = work ? 'Work items' : 'Leads';
  const { result, filters } = view;
  const filterParams = {
    q: filters.q,
    status: filters.status,
    priority: filters.priority,
    source: filters.source,
  };
  const body: HtmlValue = html`<div class="page-head">
  ${work ? '' : html`<p class="page-actions"><a class="button button-primary" href="/dashboard/leads/new">New lead</a></p>`}
  <h1>${title}</h1>
  <p class="muted">${work ? 'Scheduled, planned, in progress and completed jobs' : (LEAD_PAGE_INTRO[filters.status] ?? 'New requests and quotes')}, newest first.${
    view.spamCount === undefined ? '' : html` ${spamLink(view.spamCount)}`
  }</p>
</div>
${
  view.stats
    ? html`<details class="overview" data-open-wide>
  <summary class="overview-toggle">Overview <span class="muted">leads per day and by state</span></summary>
  <section class="charts" aria-label="Overview">${perDayChart(view.stats.perDay)}${perStatusChart(view.stats.perStatus)}</section>
</details>`
    : ''
}
${work ? '' : leadTabs(filters.status)}
${filterForm(path, work, filters)}
${errorSummary(view.errors, FILTER_LABELS)}
${listBar(view, withQuery(`${path}/export.csv`, filterParams))}
${result.data.length ? table(result.data, view.stage, view.user.brandCountry) : view.errors.length ? '' : emptyState(view)}
${
  filters.cursor || result.nextCursor
    ? html`<nav class="pager" aria-label="Pages">
  ${filters.cursor ? html`<a class="button button-quiet" href="${withQuery(path, filterParams)}">← Newest</a>` : html`<span></span>`}
  ${result.nextCursor ? html`<a class="button" href="${withQuery(path, { ...filterParams, cursor: result.nextCursor })}" rel="next">Older →</a>` : ''}
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
}

function shown(value: string | null): HtmlValue {
  return value ?? html`<span class="muted">—</span>`;
}

/** A submitted or recorded contact value; phones as people write them. */
function contactValue(field: string, value: string | null, brandCountry: string): HtmlValue {
  return field === 'phone' && value ? phoneText(value, brandCountry) : shown(value);
}

/** The contact details the lead was submitted with, where they differ from the customer's record. */
function submittedSection(user: SessionUser, lead: LeadDetail): SafeHtml | '' {
  const differences = submittedDifferences(lead);
  if (!differences.length) return '';
  return html`<section class="card card-highlight" aria-labelledby="submitted-title">
  <h2 id="submitted-title">Submitted with this lead</h2>
  <p class="muted">This lead was sent with contact details that differ from the customer's record. A new lead only fills in what the record lacks, so the record still has its own values.</p>
  <table class="list compare">
    <thead><tr><th scope="col">Field</th><th scope="col">Submitted</th><th scope="col">Customer record</th></tr></thead>
    <tbody>${differences.map(
      (d) => html`<tr>
      <td data-label="Field" class="cell-title">${CUSTOMER_FIELD_LABELS[d.field] ?? d.field}</td>
      <td data-label="Submitted">${contactValue(d.field, d.submitted, user.brandCountry)}</td>
      <td data-label="Customer record">${contactValue(d.field, d.current, user.brandCountry)}</td>
    </tr>`,
    )}</tbody>
  </table>
  <form class="actions" method="post" action="/dashboard/leads/${lead.id}/use-submitted">
    ${csrfField(user.csrfToken)}
    <button type="submit" class="button button-primary">Use these details</button>
    <span class="muted">Writes the submitted values into the customer's record.</span>
  </form>
</section>`;
}

function transitionForms(view: LeadView): SafeHtml {
  const { user, lead } = view;
  const next = allowedTransitions(lead.status);
  if (!next.length) {
    return html`<p class="muted">This ${lead.status === 'completed' ? 'job is completed' : 'lead was cancelled'}: its state is final.</p>`;
  }
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
    <button type="submit" name="status" value="${status}" class="button ${status === 'cancelled' ? 'button-danger' : 'button-primary'}">${TRANSITION_LABELS[status]}</button>
  </form>`,
    )}</div>`;
}

/** The job's fields of the field table (fields.ts) but the title, which heads the page; long text as prose. */
function jobRows(lead: LeadDetail): HtmlValue {
  const rows = leadFieldsWhere({ group: 'job' })
    .filter((name) => name !== 'title')
    .map((name) => {
      const value = lead[name];
      const label = officeLabel(name);
      if (name === 'priority') return row(label, PRIORITY_LABELS[lead.priority] ?? lead.priority);
      if (leadField(name).rows) {
        const none = name === 'description' ? html`<span class="muted">None given</span>` : null;
        return row(label, value ? html`<span class="prose">${value}</span>` : none);
      }
      return row(label, value);
    })
    .filter((r) => r !== '');
  return rows.map((r, i) => (i ? html`\n      ${r}` : r));
}

export function leadPage(view: LeadView): SafeHtml {
  const { lead, user } = view;
  const stage = stageOf(lead.status);
  const back =
    stage === 'work'
      ? html`<a href="/dashboard/work-items">← Work items</a>`
      : html`<a href="/dashboard/leads">← Leads</a>`;
  const { customer, address } = lead;
  const street = [address.street, address.streetNumber, address.streetNumberAddition]
    .filter(Boolean)
    .join(' ');
  const body = html`<p class="breadcrumb">${back}</p>
<div class="page-head">
  <p class="page-actions"><a class="button" href="/dashboard/leads/${lead.id}/edit">Edit</a></p>
  <h1 class="lead-title">${lead.title}</h1>
  <p class="badges">${statusBadge(lead.status)} ${priorityBadge(lead.priority)} <span class="muted">Received ${time(lead.receivedAt)}</span></p>
</div>
${view.message ?? ''}
<section class="card" aria-labelledby="actions-title">
  <h2 id="actions-title">Next step</h2>
  ${transitionForms(view)}
</section>
${PLANNABLE_STATUSES.includes(lead.status) ? changeVisitSection(user, lead, view.people ?? [], view.visitForm) : ''}
${submittedSection(user, lead)}
<div class="grid-2">
  <section class="card" aria-labelledby="job-title">
    <h2 id="job-title">Job</h2>
    <dl>
      ${jobRows(lead)}
      ${row('Source', lead.sourceKeyName ? `${sourceText(lead)} (key “${lead.sourceKeyName}”)` : sourceText(lead))}
      ${row('Consent', lead.consent ? html`Agreed to “${lead.consent.text}” ${time(lead.consent.at)}` : null)}
      ${Object.entries(lead.extraFields ?? {}).map(([name, value]) =>
        row(name, html`<span class="prose">${value}</span>`),
      )}
      ${Object.entries(lead.attribution ?? {}).map(([name, value]) => row(name, value))}
      ${row('Scheduled', lead.scheduledAt ? time(lead.scheduledAt) : null)}
      ${row('Visit', lead.scheduledFor || lead.assignee ? visitSummary(lead) : null)}
      ${row('Reference', html`<code>${lead.id}</code>`)}
    </dl>
  </section>
  <section class="card" aria-labelledby="customer-title">
    <h2 id="customer-title">Customer <span class="badge badge-neutral">${typeLabel(customer.type)}</span></h2>
    <dl>
      ${row('Name', html`<a href="${customerHref(customer.id)}">${customer.name}</a>`)}
      ${row('Company', customer.companyName)}
      ${row('First name', customer.firstName)}
      ${row('Last name', customer.lastName)}
      ${row('Email', customer.email ? html`<a href="mailto:${customer.email}">${customer.email}</a>` : null)}
      ${row('Phone', customer.phone ? phoneLink(customer.phone, user.brandCountry) : null)}
    </dl>
    <p><a href="${customerHref(customer.id)}">All leads of this customer →</a></p>
  </section>
  <section class="card" aria-labelledby="address-title">
    <h2 id="address-title">Address</h2>
    <address>${street}<br>${address.postalCode} ${address.city}<br>${address.country}</address>
  </section>
</div>
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

export function leadChangedNotice(status: Status): SafeHtml {
  return notice(html`Moved to <strong>${STATUS_LABELS[status]}</strong>.`);
}

/** After an edit: the fields that changed ("title,city" in the query), or none. */
export function leadEditedNotice(edited: string): SafeHtml {
  if (edited === 'none') return notice('Nothing changed.', 'info');
  const words = edited
    .split(',')
    .filter((f) => Object.hasOwn(LEAD_FIELD_LABELS, f))
    .map((f) => LEAD_FIELD_LABELS[f]!.toLowerCase())
    .join(', ');
  return notice(words ? `Lead updated: ${words}.` : 'Lead updated.');
}

/** After "Use these details": the fields that changed ("email,phone" in the query), or none. */
export function detailsAppliedNotice(applied: string): SafeHtml | undefined {
  if (applied === 'none') {
    return notice('Nothing to apply: the customer already has these details.', 'info');
  }
  const words = fieldWords(applied.split(','));
  return words ? notice(`Customer details updated: ${words}.`) : undefined;
}
