// One lead's timeline: state changes (with who and why), internal notes and other activity in one feed, newest
// first, with the form that adds a note; the confirmation step for final states; and the stale-tab message.

import type { SessionUser } from '../../../accounts/sessions.js';
import { fieldWords } from '../../../customers/fields.js';
import { csrfField, notice, time } from '../../../platform/web/components.js';
import { type HtmlValue, html, type SafeHtml } from '../../../platform/web/html.js';
import { page } from '../../../platform/web/layout.js';
import type { Actor, LeadActivity, LeadDetail, Note } from '../../index.js';
import { MAX_NOTE_LENGTH, MAX_REASON_LENGTH } from '../../index.js';
import { type Status, stageOf } from '../../states.js';
import { STATUS_LABELS, statusBadge } from './labels.js';
import { editedText } from './lead-form.js';

/** Which entries the feed shows: everything (default), only notes, or only state changes. */
export type FeedFilter = 'all' | 'notes' | 'changes';

export function parseFeedFilter(value: string): FeedFilter {
  return value === 'notes' || value === 'changes' ? value : 'all';
}

/** Who did something, in a few words: "Sanne", "key Website", "form Contact page". */
export function actorWords(actor: Actor | null): string | undefined {
  if (!actor) return undefined;
  if (actor.type === 'key') return `key ${actor.name}`;
  if (actor.type === 'form') return `form ${actor.name}`;
  return actor.name;
}

function byWho(actor: Actor | null): HtmlValue {
  const who = actorWords(actor);
  return who
    ? html`<span class="feed-who">by ${who}</span>`
    : html`<span class="feed-who muted" title="Recorded before the dashboard kept who made each change">by someone (not recorded then)</span>`;
}

function activityText(entry: LeadActivity): string {
  if (entry.kind === 'customer_details_applied') {
    const changed = Array.isArray(entry.detail.changed) ? fieldWords(entry.detail.changed) : '';
    return `Applied the submitted details to the customer${changed ? `: ${changed}` : ''}`;
  }
  if (entry.kind === 'edited') return `Edited ${editedText(entry.detail)}`;
  const words = entry.kind.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

interface FeedEntry {
  at: string;
  /** Within one millisecond: the order things were written in. */
  order: number;
  kind: 'change' | 'note' | 'activity';
  item: SafeHtml;
}

function feedEntries(lead: LeadDetail, notes: Note[], activity: LeadActivity[]): FeedEntry[] {
  const entries: FeedEntry[] = [
    ...lead.statusHistory.map((entry, i) => ({
      at: entry.at,
      order: i,
      kind: 'change' as const,
      item: html`<li class="feed-change"><p class="feed-meta">${statusBadge(entry.status)} <span aria-hidden="true">·</span> ${time(entry.at)} <span aria-hidden="true">·</span> ${byWho(entry.actor)}</p>${
        entry.reason ? html`<p class="feed-reason prose">Reason: ${entry.reason}</p>` : ''
      }</li>`,
    })),
    ...activity.map((entry, i) => ({
      at: entry.at,
      order: i,
      kind: 'activity' as const,
      item: html`<li class="feed-activity"><p class="feed-meta"><strong>${activityText(entry)}</strong> <span aria-hidden="true">·</span> ${time(entry.at)} <span aria-hidden="true">·</span> ${byWho(entry.actor)}</p></li>`,
    })),
    // Notes come newest first; their order within a millisecond is their position from the end.
    ...notes.map((note, i) => ({
      at: note.createdAt,
      order: notes.length - i,
      kind: 'note' as const,
      item: html`<li class="feed-note" id="${note.id}"><p class="feed-meta"><strong>Note</strong> <span aria-hidden="true">·</span> ${time(note.createdAt)} <span aria-hidden="true">·</span> ${byWho(note.author)}</p><p class="note-text prose">${note.text}</p></li>`,
    })),
  ];
  return entries.sort((a, b) => (a.at === b.at ? b.order - a.order : a.at < b.at ? 1 : -1));
}

export interface NoteFormState {
  text: string;
  error?: string | undefined;
}

function noteForm(user: SessionUser, lead: LeadDetail, state: NoteFormState | undefined): SafeHtml {
  const error = state?.error;
  return html`<form class="note-form" method="post" action="/dashboard/leads/${lead.id}/notes">
  ${csrfField(user.csrfToken)}
  <div class="field${error ? ' field-invalid' : ''}">
    <label for="field-text">Add a note</label>
    <p class="hint" id="field-text-hint">For your team only: notes are never sent to the customer. Up to ${MAX_NOTE_LENGTH.toLocaleString('en-GB')} characters.</p>
    ${error ? html`<p class="error" id="field-text-error">${error}</p>` : ''}
    <textarea id="field-text" name="text" rows="3" maxlength="${MAX_NOTE_LENGTH}" required aria-describedby="field-text-hint${error ? ' field-text-error' : ''}"${
      error ? html` aria-invalid="true" autofocus` : ''
    }>
${state?.text ?? ''}</textarea>
  </div>
  <button type="submit" class="button button-primary">Add note</button>
</form>`;
}

const FILTERS: { value: FeedFilter; label: string }[] = [
  { value: 'all', label: 'Everything' },
  { value: 'notes', label: 'Notes' },
  { value: 'changes', label: 'State changes' },
];

/** The lead's timeline: the note form, the filter, and the entries newest first. */
export function timelineSection(options: {
  user: SessionUser;
  lead: LeadDetail;
  notes: Note[];
  activity: LeadActivity[];
  filter: FeedFilter;
  noteForm?: NoteFormState | undefined;
  /** More notes exist than are shown. */
  moreNotes?: boolean;
}): SafeHtml {
  const { lead, filter } = options;
  const entries = feedEntries(lead, options.notes, options.activity).filter(
    (e) =>
      filter === 'all' ||
      (filter === 'notes' ? e.kind === 'note' : e.kind === 'change' || e.kind === 'activity'),
  );
  return html`<section class="card timeline-card" id="notes" aria-labelledby="timeline-title">
  <h2 id="timeline-title">Notes and history</h2>
  ${noteForm(options.user, lead, options.noteForm)}
  <nav class="feed-filter" aria-label="Show in the timeline">${FILTERS.map(
    (f) =>
      html`<a href="/dashboard/leads/${lead.id}${f.value === 'all' ? '' : `?show=${f.value}`}#notes"${
        f.value === filter ? html` aria-current="true"` : ''
      }>${f.label}</a>`,
  )}</nav>
  ${
    entries.length
      ? html`<ol class="feed">${entries.map((e) => e.item)}</ol>`
      : html`<p class="muted">${filter === 'notes' ? 'No notes yet.' : 'Nothing yet.'}</p>`
  }
  ${options.moreNotes ? html`<p class="muted">Older notes are left out here; the API lists them all.</p>` : ''}
</section>`;
}

/** After a note was added. */
export function noteAddedNotice(): SafeHtml {
  return notice('Note added.');
}

/**
 * A change the page asked for that no longer fits: the lead moved on since the page was loaded (a stale tab),
 * or the change is not one the lead's state allows. Names the state in words, and who made it so, when.
 */
export function staleStateNotice(lead: LeadDetail, requested: Status, stale: boolean): SafeHtml {
  const last = lead.statusHistory.at(-1);
  const who = last ? actorWords(last.actor) : undefined;
  const when = last ? html`${who ? ` (changed by ${who} at ` : ' (changed at '}${time(last.at)})` : '';
  const what = stageOf(lead.status) === 'work' ? 'job' : 'lead';
  if (stale || requested === lead.status) {
    return notice(
      html`This ${what} is already <strong>${STATUS_LABELS[lead.status]}</strong>${when}; nothing was changed.`,
      'info',
    );
  }
  return notice(
    html`This ${what} is <strong>${STATUS_LABELS[lead.status]}</strong>${when} and cannot move to ${STATUS_LABELS[requested]}; nothing was changed. Choose one of the buttons.`,
    'error',
  );
}

/** States that are final: moving there is confirmed first. */
export function needsConfirmation(status: Status): boolean {
  return status === 'completed' || status === 'cancelled';
}

export interface ConfirmView {
  user: SessionUser;
  lead: LeadDetail;
  status: Status;
  /** What was typed as the reason (cancellations), kept when it is refused. */
  reason?: string;
  reasonError?: string | undefined;
}

/** "Mark 'Leaking tap' as completed? This cannot be undone." with Confirm and Back; works without JavaScript. */
export function confirmStatusPage(view: ConfirmView): SafeHtml {
  const { lead, user, status } = view;
  const cancel = status === 'cancelled';
  const what = stageOf(lead.status) === 'work' ? 'job' : 'lead';
  const question = cancel
    ? html`Cancel “${lead.title}”? A cancelled ${what} cannot be reopened.`
    : html`Mark “${lead.title}” as completed? This cannot be undone.`;
  const error = view.reasonError;
  const body = html`<p class="breadcrumb"><a href="/dashboard/leads/${lead.id}">← ${lead.title}</a></p>
<div class="page-head"><h1>${cancel ? `Cancel this ${what}?` : 'Mark as completed?'}</h1></div>
<section class="card confirm-card" aria-labelledby="confirm-question">
  <p id="confirm-question" class="confirm-question">${question}</p>
  <form method="post" action="/dashboard/leads/${lead.id}/status">
    ${csrfField(user.csrfToken)}
    <input type="hidden" name="status" value="${status}">
    <input type="hidden" name="from" value="${lead.status}">
    ${
      cancel
        ? html`<div class="field${error ? ' field-invalid' : ''}">
      <label for="field-reason">Reason <span class="optional">(optional)</span></label>
      <p class="hint" id="field-reason-hint">Kept in the history, e.g. “Customer found someone else”. Up to ${MAX_REASON_LENGTH} characters.</p>
      ${error ? html`<p class="error" id="field-reason-error">${error}</p>` : ''}
      <textarea id="field-reason" name="reason" rows="3" maxlength="${MAX_REASON_LENGTH}" aria-describedby="field-reason-hint${error ? ' field-reason-error' : ''}"${
        error ? html` aria-invalid="true" autofocus` : ''
      }>
${view.reason ?? ''}</textarea>
    </div>`
        : ''
    }
    <div class="actions">
      <button type="submit" name="confirm" value="yes" class="button ${cancel ? 'button-danger' : 'button-primary'}">${cancel ? `Cancel ${what}` : 'Confirm: mark as completed'}</button>
      <a class="button button-quiet" href="/dashboard/leads/${lead.id}">Back</a>
    </div>
  </form>
</section>`;
  return page({
    title: cancel ? `Cancel ${lead.title}` : `Complete ${lead.title}`,
    user,
    section: stageOf(lead.status) === 'work' ? 'work-items' : 'leads',
    body,
  });
}
