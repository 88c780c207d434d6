// Visits: the Schedule and Change visit forms on a lead's page, the work list's visit cell, the week's planning and
// My visits. Dates and times are entered and shown in the brand's time zone (SessionUser.timeZone).

import type { SessionUser } from '../../../accounts/sessions.js';
import { csrfField, errorFor, errorSummary, time } from '../../../platform/web/components.js';
import { type HtmlValue, html, type SafeHtml } from '../../../platform/web/html.js';
import { page } from '../../../platform/web/layout.js';
import type { FieldError } from '../../../shared/errors.js';
import { addDays, dayIn, isoWeek, timeIn } from '../../../shared/time-zones.js';
import type { AnyListItem, LeadDetail, Visit } from '../../index.js';
import { statusBadge } from './labels.js';

/** Someone a visit can be given to. */
export interface Person {
  id: string;
  name: string;
}

/** The visit form as typed (date and time in the brand's zone). */
export interface VisitFormValues {
  scheduledDate: string;
  scheduledTime: string;
  durationMinutes: string;
  assigneeId: string;
}

export const VISIT_LABELS: Record<string, string> = {
  scheduledDate: 'Date',
  scheduledTime: 'Start time',
  durationMinutes: 'Duration',
  assigneeId: 'Who does it',
};

/** The durations offered, in minutes. */
export const DURATIONS = [15, 30, 45, 60, 90, 120, 180, 240, 360, 480] as const;

export function durationText(minutes: number): string {
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest ? `${hours} h ${rest} min` : `${hours} h`;
}

/** The form's values for a lead as planned now (empty when not planned). */
export function visitValuesOf(lead: LeadDetail, zone: string): VisitFormValues {
  const at = lead.scheduledFor ? Date.parse(lead.scheduledFor) : undefined;
  return {
    scheduledDate: at === undefined ? '' : dayIn(zone, at),
    scheduledTime: at === undefined ? '' : timeIn(zone, at),
    durationMinutes: lead.durationMinutes === null ? '60' : String(lead.durationMinutes),
    assigneeId: lead.assignee?.id ?? '',
  };
}

function invalid(id: string, error: string | undefined): SafeHtml | '' {
  return error ? html` aria-invalid="true" aria-describedby="${id}-error"` : '';
}

function errorLine(id: string, label: string, error: string | undefined): SafeHtml | '' {
  return error ? html`<p class="error" id="${id}-error">${label} ${error}.</p>` : '';
}

function visitFields(
  values: VisitFormValues,
  errors: FieldError[],
  people: Person[],
  zone: string,
): SafeHtml {
  const e = (name: string) => errorFor(errors, name);
  const durations: number[] = [...DURATIONS];
  const chosen = Number(values.durationMinutes);
  if (Number.isInteger(chosen) && chosen > 0 && !durations.includes(chosen)) durations.push(chosen);
  durations.sort((a, b) => a - b);
  const known = people.some((p) => p.id === values.assigneeId);
  return html`<div class="visit-fields">
  <div class="field${e('scheduledDate') ? ' field-invalid' : ''}">
    <label for="field-scheduledDate">Date</label>
    ${errorLine('field-scheduledDate', 'Date', e('scheduledDate'))}
    <input id="field-scheduledDate" name="scheduledDate" type="date" value="${values.scheduledDate}" required${invalid('field-scheduledDate', e('scheduledDate'))}>
  </div>
  <div class="field${e('scheduledTime') ? ' field-invalid' : ''}">
    <label for="field-scheduledTime">Start time</label>
    ${errorLine('field-scheduledTime', 'Start time', e('scheduledTime'))}
    <input id="field-scheduledTime" name="scheduledTime" type="time" value="${values.scheduledTime}" required${invalid('field-scheduledTime', e('scheduledTime'))}>
  </div>
  <div class="field${e('durationMinutes') ? ' field-invalid' : ''}">
    <label for="field-durationMinutes">Duration</label>
    ${errorLine('field-durationMinutes', 'Duration', e('durationMinutes'))}
    <select id="field-durationMinutes" name="durationMinutes"${invalid('field-durationMinutes', e('durationMinutes'))}>
      ${durations.map((m) => html`<option value="${m}"${String(m) === values.durationMinutes ? html` selected` : ''}>${durationText(m)}</option>`)}
    </select>
  </div>
  <div class="field${e('assigneeId') ? ' field-invalid' : ''}">
    <label for="field-assigneeId">Who does it</label>
    ${errorLine('field-assigneeId', 'Who does it', e('assigneeId'))}
    <select id="field-assigneeId" name="assigneeId"${invalid('field-assigneeId', e('assigneeId'))}>
      <option value=""${values.assigneeId === '' ? html` selected` : ''}>Nobody yet</option>
      ${people.map((p) => html`<option value="${p.id}"${p.id === values.assigneeId ? html` selected` : ''}>${p.name}</option>`)}
      ${!known && values.assigneeId ? html`<option value="${values.assigneeId}" selected>${values.assigneeId}</option>` : ''}
    </select>
  </div>
</div>
<p class="hint">Times are in ${zone}.</p>`;
}

export interface VisitFormState {
  values: VisitFormValues;
  errors: FieldError[];
}

/** "Schedule": moving a lead to Scheduled asks when, how long and who. */
export function scheduleForm(
  user: SessionUser,
  lead: LeadDetail,
  people: Person[],
  state: VisitFormState | undefined,
): SafeHtml {
  const values = state?.values ?? visitValuesOf(lead, user.timeZone);
  const errors = state?.errors ?? [];
  return html`<form method="post" action="/dashboard/leads/${lead.id}/status" class="visit-form" novalidate aria-labelledby="schedule-title">
  <h3 id="schedule-title">Schedule the visit</h3>
  ${errorSummary(errors, VISIT_LABELS)}
  ${csrfField(user.csrfToken)}
  <input type="hidden" name="from" value="${lead.status}">
  ${visitFields(values, errors, people, user.timeZone)}
  <button type="submit" name="status" value="scheduled" class="button button-primary">Schedule</button>
</form>`;
}

/** "Change visit": the same fields on a work item that is still open. */
export function changeVisitSection(
  user: SessionUser,
  lead: LeadDetail,
  people: Person[],
  state: VisitFormState | undefined,
): SafeHtml {
  const values = state?.values ?? visitValuesOf(lead, user.timeZone);
  const errors = state?.errors ?? [];
  return html`<section class="card" aria-labelledby="visit-title">
  <h2 id="visit-title">Visit</h2>
  <p>${visitSummary(lead)}</p>
  <details class="change-visit"${errors.length ? html` open` : ''}>
    <summary>Change visit</summary>
    <form method="post" action="/dashboard/leads/${lead.id}/visit" class="visit-form" novalidate>
      ${errorSummary(errors, VISIT_LABELS)}
      ${csrfField(user.csrfToken)}
      ${visitFields(values, errors, people, user.timeZone)}
      <button type="submit" class="button button-primary">Save visit</button>
    </form>
  </details>
</section>`;
}

/** "24 Nov 2026, 09:00 CET · 1 h 30 min · Ann de Vries", or that it is not planned yet. */
export function visitSummary(
  item: Pick<AnyListItem, 'scheduledFor' | 'durationMinutes' | 'assignee'>,
): HtmlValue {
  if (!item.scheduledFor) {
    return html`<span class="muted">Not planned yet${item.assignee ? html` · ${item.assignee.name}` : ''}</span>`;
  }
  return html`${time(item.scheduledFor)}${item.durationMinutes ? ` · ${durationText(item.durationMinutes)}` : ''} · ${
    item.assignee ? item.assignee.name : html`<span class="muted">Nobody yet</span>`
  }`;
}

function place(visit: Visit): string {
  return [visit.address.postalCode, visit.address.city].filter(Boolean).join(' ');
}

function timeRange(visit: Visit, zone: string): string {
  const start = Date.parse(visit.scheduledFor);
  const from = timeIn(zone, start);
  return visit.durationMinutes ? `${from}–${timeIn(zone, start + visit.durationMinutes * 60_000)}` : from;
}

function visitCard(visit: Visit, zone: string): SafeHtml {
  return html`<li class="visit visit-${visit.status}">
  <a href="/dashboard/leads/${visit.id}"><span class="visit-time">${timeRange(visit, zone)}</span> <span class="visit-title">${visit.title}</span></a>
  <span class="sub">${place(visit)}${visit.durationMinutes ? ` · ${durationText(visit.durationMinutes)}` : ''}</span>
</li>`;
}

const DAY_HEADING = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  weekday: 'short',
  day: 'numeric',
  month: 'short',
});

function dayHeading(day: string): string {
  return DAY_HEADING.format(new Date(`${day}T00:00:00Z`));
}

export interface PlanningView {
  user: SessionUser;
  /** The Monday of the week shown, in the brand's zone. */
  monday: string;
  /** Today in the brand's zone. */
  today: string;
  people: Person[];
  visits: Visit[];
  errors: FieldError[];
}

/** The week's visits: one row per person (and one for nobody yet), a column per day, Monday first. */
export function planningPage(view: PlanningView): SafeHtml {
  const zone = view.user.timeZone;
  const days = Array.from({ length: 7 }, (_, i) => addDays(view.monday, i));
  const rows: { id: string | null; name: string }[] = [...view.people, { id: null, name: 'Nobody yet' }];
  // Someone removed since keeps their row while visits still name them (assignee then null: "Nobody yet").
  for (const visit of view.visits) {
    if (visit.assignee && !rows.some((r) => r.id === visit.assignee!.id)) rows.unshift(visit.assignee);
  }
  const week = isoWeek(view.monday);
  const lastDay = days[6]!;
  const body = html`<div class="page-head">
  <h1>Planning</h1>
  <p class="muted">Week ${week.slice(6)}: ${dayHeading(view.monday)} – ${dayHeading(lastDay)} ${lastDay.slice(0, 4)}. Times in ${zone}. ${
    view.visits.length === 1 ? '1 visit' : `${view.visits.length} visits`
  }.</p>
</div>
${errorSummary(view.errors, { week: 'Week', from: 'From' })}
<nav class="pager week-nav" aria-label="Weeks">
  <a class="button button-quiet" href="/dashboard/planning?week=${isoWeek(addDays(view.monday, -7))}" rel="prev">← Previous week</a>
  <a class="button button-quiet" href="/dashboard/planning">This week</a>
  <a class="button button-quiet" href="/dashboard/planning?week=${isoWeek(addDays(view.monday, 7))}" rel="next">Next week →</a>
</nav>
${rows.map((row) => {
  const theirs = view.visits.filter((v) => (v.assignee?.id ?? null) === row.id);
  if (row.id === null && !theirs.length) return '';
  return html`<section class="planning-person" aria-label="${row.name}">
  <h2>${row.name} <span class="muted">(${theirs.length})</span></h2>
  <ol class="planning-week">${days.map((day) => {
    const visits = theirs.filter((v) => dayIn(zone, Date.parse(v.scheduledFor)) === day);
    const today = day === view.today;
    return html`<li class="planning-day${today ? ' today' : ''}${visits.length ? '' : ' empty-day'}" data-day="${day}"${today ? html` aria-current="date"` : ''}>
    <h3>${dayHeading(day)}${today ? html` <span class="badge badge-neutral">Today</span>` : ''}</h3>
    ${visits.length ? html`<ul class="visits">${visits.map((v) => visitCard(v, zone))}</ul>` : html`<p class="muted">—</p>`}
  </li>`;
  })}</ol>
</section>`;
})}`;
  return page({ title: 'Planning', user: view.user, section: 'planning', body });
}

export interface MyVisitsView {
  user: SessionUser;
  visits: Visit[];
}

/** The signed-in person's visits from today on, next first. */
export function myVisitsPage(view: MyVisitsView): SafeHtml {
  const zone = view.user.timeZone;
  const body = html`<div class="page-head">
  <h1>My visits</h1>
  <p class="muted">Visits given to you, from today on, next first. Times in ${zone}.</p>
</div>
${
  view.visits.length
    ? html`<ol class="my-visits">${view.visits.map(
        (v) => html`<li class="card visit">
  <h2><a href="/dashboard/leads/${v.id}">${v.title}</a></h2>
  <p><strong>${dayHeading(dayIn(zone, Date.parse(v.scheduledFor)))}, ${timeRange(v, zone)}</strong> ${statusBadge(v.status)}</p>
  <p>${[v.address.street, v.address.streetNumber, v.address.streetNumberAddition].filter(Boolean).join(' ')}, ${place(v)}</p>
  <p class="muted">${v.customer.name}${v.customer.phone ? html` · <a href="tel:${v.customer.phone}">${v.customer.phone}</a>` : ''}</p>
</li>`,
      )}</ol>`
    : html`<div class="empty"><p>No visits planned for you. The <a href="/dashboard/planning">planning</a> shows everyone's.</p></div>`
}`;
  return page({ title: 'My visits', user: view.user, section: 'my-visits', body });
}
