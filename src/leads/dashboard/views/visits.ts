// Visits: the Schedule and Change visit forms on a lead's page, the work list's visit cell, the week's planning and
// My visits. Dates and times are entered and shown in the brand's time zone (SessionUser.timeZone).

import type { SessionUser } from '../../../accounts/sessions.js';
import {
  csrfField,
  errorFor,
  errorSummary,
  errorText,
  notice,
  phoneLink,
  time,
} from '../../../platform/web/components.js';
import { type HtmlValue, html, type SafeHtml } from '../../../platform/web/html.js';
import { page } from '../../../platform/web/layout.js';
import { richText } from '../../../platform/web/messages.js';
import type { FieldError } from '../../../shared/errors.js';
import {
  INTL_LOCALE,
  type MessageKey,
  type Translator,
  translator,
  zonedFormat,
} from '../../../shared/i18n/index.js';
import { addDays, dayIn, isoWeek, timeIn } from '../../../shared/time-zones.js';
import type { AnyListItem, LeadDetail, PlanningWarning, Visit } from '../../index.js';
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

export const VISIT_LABELS: Record<keyof VisitFormValues, MessageKey> = {
  scheduledDate: 'visit.field.date',
  scheduledTime: 'visit.field.startTime',
  durationMinutes: 'visit.field.duration',
  assigneeId: 'visit.field.assignee',
};

function visitLabels(tr: Translator): Record<string, string> {
  return Object.fromEntries(Object.entries(VISIT_LABELS).map(([name, key]) => [name, tr.t(key)]));
}

/** The durations offered, in minutes. */
export const DURATIONS = [15, 30, 45, 60, 90, 120, 180, 240, 360, 480] as const;

/** "45 min", "1 h 30 min" / "1 uur 30 min". */
export function durationText(tr: Translator, minutes: number): string {
  if (minutes < 60) return tr.t('visit.duration.minutes', { minutes });
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest
    ? tr.t('visit.duration.hoursMinutes', { hours, minutes: rest })
    : tr.t('visit.duration.hours', { hours });
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

function invalid(id: string, error: FieldError | undefined): SafeHtml | '' {
  return error ? html` aria-invalid="true" aria-describedby="${id}-error"` : '';
}

function errorLine(tr: Translator, id: string, label: string, error: FieldError | undefined): SafeHtml | '' {
  return error ? html`<p class="error" id="${id}-error">${errorText(tr, error, label)}</p>` : '';
}

function visitFields(
  tr: Translator,
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
  const label = visitLabels(tr);
  return html`<div class="visit-fields">
  <div class="field${e('scheduledDate') ? ' field-invalid' : ''}">
    <label for="field-scheduledDate">${label.scheduledDate}</label>
    ${errorLine(tr, 'field-scheduledDate', label.scheduledDate!, e('scheduledDate'))}
    <input id="field-scheduledDate" name="scheduledDate" type="date" value="${values.scheduledDate}" required${invalid('field-scheduledDate', e('scheduledDate'))}>
  </div>
  <div class="field${e('scheduledTime') ? ' field-invalid' : ''}">
    <label for="field-scheduledTime">${label.scheduledTime}</label>
    ${errorLine(tr, 'field-scheduledTime', label.scheduledTime!, e('scheduledTime'))}
    <input id="field-scheduledTime" name="scheduledTime" type="time" value="${values.scheduledTime}" required${invalid('field-scheduledTime', e('scheduledTime'))}>
  </div>
  <div class="field${e('durationMinutes') ? ' field-invalid' : ''}">
    <label for="field-durationMinutes">${label.durationMinutes}</label>
    ${errorLine(tr, 'field-durationMinutes', label.durationMinutes!, e('durationMinutes'))}
    <select id="field-durationMinutes" name="durationMinutes"${invalid('field-durationMinutes', e('durationMinutes'))}>
      ${durations.map((m) => html`<option value="${m}"${String(m) === values.durationMinutes ? html` selected` : ''}>${durationText(tr, m)}</option>`)}
    </select>
  </div>
  <div class="field${e('assigneeId') ? ' field-invalid' : ''}">
    <label for="field-assigneeId">${label.assigneeId}</label>
    ${errorLine(tr, 'field-assigneeId', label.assigneeId!, e('assigneeId'))}
    <select id="field-assigneeId" name="assigneeId"${invalid('field-assigneeId', e('assigneeId'))}>
      <option value=""${values.assigneeId === '' ? html` selected` : ''}>${tr.t('visit.nobodyYet')}</option>
      ${people.map((p) => html`<option value="${p.id}"${p.id === values.assigneeId ? html` selected` : ''}>${p.name}</option>`)}
      ${!known && values.assigneeId ? html`<option value="${values.assigneeId}" selected>${values.assigneeId}</option>` : ''}
    </select>
  </div>
</div>
<p class="hint">${tr.t('visit.timesIn', { zone })}</p>`;
}

export interface VisitFormState {
  values: VisitFormValues;
  errors: FieldError[];
}

/** A visit form's translator, and its values and errors: as posted, else the lead's own. */
function visitFormState(user: SessionUser, lead: LeadDetail, state: VisitFormState | undefined) {
  return {
    tr: translator(user.locale),
    values: state?.values ?? visitValuesOf(lead, user.timeZone),
    errors: state?.errors ?? [],
  };
}

/** "Schedule": moving a lead to Scheduled asks when, how long and who. */
export function scheduleForm(
  user: SessionUser,
  lead: LeadDetail,
  people: Person[],
  state: VisitFormState | undefined,
): SafeHtml {
  const { tr, values, errors } = visitFormState(user, lead, state);
  return html`<form method="post" action="/dashboard/leads/${lead.id}/status" class="visit-form" novalidate aria-labelledby="schedule-title">
  <h3 id="schedule-title">${tr.t('visit.schedule.title')}</h3>
  ${errorSummary(tr, errors, visitLabels(tr))}
  ${csrfField(user.csrfToken)}
  <input type="hidden" name="from" value="${lead.status}">
  ${visitFields(tr, values, errors, people, user.timeZone)}
  <button type="submit" name="status" value="scheduled" class="button button-primary">${tr.t('visit.schedule.button')}</button>
</form>`;
}

/** "Change visit": the same fields on a work item that is still open. */
export function changeVisitSection(
  user: SessionUser,
  lead: LeadDetail,
  people: Person[],
  state: VisitFormState | undefined,
): SafeHtml {
  const { tr, values, errors } = visitFormState(user, lead, state);
  return html`<section class="card" aria-labelledby="visit-title">
  <h2 id="visit-title">${tr.t('visit.title')}</h2>
  <p>${visitSummary(tr, lead)}</p>
  <details class="change-visit"${errors.length ? html` open` : ''}>
    <summary>${tr.t('visit.change')}</summary>
    <form method="post" action="/dashboard/leads/${lead.id}/visit" class="visit-form" novalidate>
      ${errorSummary(tr, errors, visitLabels(tr))}
      ${csrfField(user.csrfToken)}
      ${visitFields(tr, values, errors, people, user.timeZone)}
      <button type="submit" class="button button-primary">${tr.t('visit.save')}</button>
    </form>
  </details>
</section>`;
}

/** "24 Nov 2026, 09:00 CET · 1 h 30 min · Ann de Vries", or that it is not planned yet. */
export function visitSummary(
  tr: Translator,
  item: Pick<AnyListItem, 'scheduledFor' | 'durationMinutes' | 'assignee'>,
): HtmlValue {
  if (!item.scheduledFor) {
    return html`<span class="muted">${tr.t('visit.notPlanned')}${item.assignee ? html` · ${item.assignee.name}` : ''}</span>`;
  }
  return html`${time(item.scheduledFor)}${item.durationMinutes ? ` · ${durationText(tr, item.durationMinutes)}` : ''} · ${
    item.assignee ? item.assignee.name : html`<span class="muted">${tr.t('visit.nobodyYet')}</span>`
  }`;
}

/**
 * What the visit just saved should make someone look twice at: it starts in the past, or its person has another
 * visit then (each with a link). Saved all the same: planning warns, it does not refuse.
 */
export function planningWarningsNotice(tr: Translator, warnings: readonly PlanningWarning[]): SafeHtml | '' {
  if (!warnings.length) return '';
  const lines = warnings.map((w) =>
    w.code === 'visit_in_past'
      ? richText(tr, 'visit.warning.past', { time: time(w.scheduledFor) })
      : richText(tr, 'visit.warning.overlap', {
          who: w.assignee.name,
          time: time(w.other.scheduledFor),
          duration: w.other.durationMinutes ? durationText(tr, w.other.durationMinutes) : 'none',
          link: (inner) => html`<a href="/dashboard/leads/${w.other.id}">${inner}</a>`,
          title: w.other.title,
        }),
  );
  return notice(
    html`<p><strong>${tr.t('visit.warning.title')}</strong></p><ul class="plan-warnings">${lines.map((line) => html`<li>${line}</li>`)}</ul>`,
    'warning',
  );
}

function place(visit: Visit): string {
  return [visit.address.postalCode, visit.address.city].filter(Boolean).join(' ');
}

function timeRange(visit: Visit, zone: string): string {
  const start = Date.parse(visit.scheduledFor);
  const from = timeIn(zone, start);
  return visit.durationMinutes ? `${from}–${timeIn(zone, start + visit.durationMinutes * 60_000)}` : from;
}

function visitCard(tr: Translator, visit: Visit, zone: string): SafeHtml {
  return html`<li class="visit visit-${visit.status}">
  <a href="/dashboard/leads/${visit.id}"><span class="visit-time">${timeRange(visit, zone)}</span> <span class="visit-title">${visit.title}</span></a>
  <span class="sub">${place(visit)}${visit.durationMinutes ? ` · ${durationText(tr, visit.durationMinutes)}` : ''}</span>
</li>`;
}

/** "Mon 23 Nov" / "ma 23 nov" for a YYYY-MM-DD day. */
function dayHeading(tr: Translator, day: string): string {
  return zonedFormat(INTL_LOCALE[tr.locale], 'UTC', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
  }).format(new Date(`${day}T00:00:00Z`));
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
  const tr = translator(view.user.locale);
  const zone = view.user.timeZone;
  const days = Array.from({ length: 7 }, (_, i) => addDays(view.monday, i));
  const rows: { id: string | null; name: string }[] = [
    ...view.people,
    { id: null, name: tr.t('visit.nobodyYet') },
  ];
  // Someone removed since keeps their row while visits still name them (assignee then null: "Nobody yet").
  for (const visit of view.visits) {
    if (visit.assignee && !rows.some((r) => r.id === visit.assignee!.id)) rows.unshift(visit.assignee);
  }
  const week = isoWeek(view.monday);
  const lastDay = days[6]!;
  const title = tr.t('planning.title');
  const body = html`<div class="page-head">
  <h1>${title}</h1>
  <p class="muted">${tr.t('planning.intro', {
    week: week.slice(6),
    from: dayHeading(tr, view.monday),
    to: dayHeading(tr, lastDay),
    year: lastDay.slice(0, 4),
    zone,
    count: view.visits.length,
  })}</p>
</div>
${errorSummary(tr, view.errors, { week: tr.t('planning.field.week'), from: tr.t('planning.field.from') })}
<nav class="pager week-nav" aria-label="${tr.t('planning.weeks')}">
  <a class="button button-quiet" href="/dashboard/planning?week=${isoWeek(addDays(view.monday, -7))}" rel="prev">${tr.t('planning.previousWeek')}</a>
  <a class="button button-quiet" href="/dashboard/planning">${tr.t('planning.thisWeek')}</a>
  <a class="button button-quiet" href="/dashboard/planning?week=${isoWeek(addDays(view.monday, 7))}" rel="next">${tr.t('planning.nextWeek')}</a>
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
    <h3>${dayHeading(tr, day)}${today ? html` <span class="badge badge-neutral">${tr.t('planning.today')}</span>` : ''}</h3>
    ${visits.length ? html`<ul class="visits">${visits.map((v) => visitCard(tr, v, zone))}</ul>` : html`<p class="muted">—</p>`}
  </li>`;
  })}</ol>
</section>`;
})}`;
  return page({ title, user: view.user, section: 'planning', body });
}

export interface MyVisitsView {
  user: SessionUser;
  visits: Visit[];
}

/** The signed-in person's visits from today on, next first. */
export function myVisitsPage(view: MyVisitsView): SafeHtml {
  const tr = translator(view.user.locale);
  const zone = view.user.timeZone;
  const title = tr.t('myVisits.title');
  const body = html`<div class="page-head">
  <h1>${title}</h1>
  <p class="muted">${tr.t('myVisits.intro', { zone })}</p>
</div>
${
  view.visits.length
    ? html`<ol class="my-visits">${view.visits.map(
        (v) => html`<li class="card visit">
  <h2><a href="/dashboard/leads/${v.id}">${v.title}</a></h2>
  <p><strong>${tr.t('myVisits.when', { day: dayHeading(tr, dayIn(zone, Date.parse(v.scheduledFor))), time: timeRange(v, zone) })}</strong> ${statusBadge(tr, v.status)}</p>
  <p>${[v.address.street, v.address.streetNumber, v.address.streetNumberAddition].filter(Boolean).join(' ')}, ${place(v)}</p>
  <p class="muted">${v.customer.name}${v.customer.phone ? html` · ${phoneLink(v.customer.phone, view.user.brandCountry)}` : ''}</p>
</li>`,
      )}</ol>`
    : html`<div class="empty"><p>${richText(tr, 'myVisits.empty', {
        link: (inner) => html`<a href="/dashboard/planning">${inner}</a>`,
      })}</p></div>`
}`;
  return page({ title, user: view.user, section: 'my-visits', body });
}
