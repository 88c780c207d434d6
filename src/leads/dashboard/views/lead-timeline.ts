// One lead's timeline: state changes (with who and why), internal notes and other activity in one feed, newest
// first, with the form that adds a note; the confirmation step for final states; and the stale-tab message.

import type { SessionUser } from '../../../accounts/sessions.js';
import { fieldWords } from '../../../customers/fields.js';
import { csrfField, notice, time } from '../../../platform/web/components.js';
import { type HtmlValue, html, type SafeHtml } from '../../../platform/web/html.js';
import { page } from '../../../platform/web/layout.js';
import { richText } from '../../../platform/web/messages.js';
import { type MessageKey, type Translator, translator } from '../../../shared/i18n/index.js';
import type { Actor, LeadActivity, LeadDetail, Note } from '../../index.js';
import { MAX_NOTE_LENGTH, MAX_REASON_LENGTH } from '../../index.js';
import { type Status, stageOf } from '../../states.js';
import { statusBadge, statusLabel } from './labels.js';
import { editedText } from './lead-form.js';

/** Which entries the feed shows: everything (default), only notes, or only state changes. */
export type FeedFilter = 'all' | 'notes' | 'changes';

export function parseFeedFilter(value: string): FeedFilter {
  return value === 'notes' || value === 'changes' ? value : 'all';
}

/** Who did something, in a few words: "Sanne", "key Website", "form Contact page". */
export function actorWords(tr: Translator, actor: Actor | null): string | undefined {
  if (!actor) return undefined;
  if (actor.type === 'key') return tr.t('lead.actor.key', { name: actor.name });
  if (actor.type === 'form') return tr.t('lead.actor.form', { name: actor.name });
  return actor.name;
}

function byWho(tr: Translator, actor: Actor | null): HtmlValue {
  const who = actorWords(tr, actor);
  return who
    ? html`<span class="feed-who">${tr.t('lead.feed.by', { who })}</span>`
    : html`<span class="feed-who muted" title="${tr.t('lead.feed.unrecordedHint')}">${tr.t('lead.feed.unrecorded')}</span>`;
}

const NOTICE_TEXT = {
  planned: 'lead.activity.visitNoticeSent',
  moved: 'lead.activity.visitNoticeMoved',
  cancelled: 'lead.activity.visitNoticeCancelled',
} as const satisfies Record<string, MessageKey>;

/** A visit notice the mail worker sent the customer (leads/visit-notices.ts): what it told, the time it named. */
function visitNoticeText(tr: Translator, entry: LeadActivity, zone: string): string {
  const notice = String(entry.detail.notice) as keyof typeof NOTICE_TEXT;
  const key = Object.hasOwn(NOTICE_TEXT, notice) ? NOTICE_TEXT[notice] : NOTICE_TEXT.planned;
  return tr.t(key, { when: tr.dateTime(String(entry.detail.start), zone) });
}

function activityText(tr: Translator, entry: LeadActivity, zone = 'UTC'): string {
  if (entry.kind === 'visit_notice_sent') return visitNoticeText(tr, entry, zone);
  if (entry.kind === 'customer_details_applied') {
    const fields = Array.isArray(entry.detail.changed) ? fieldWords(tr, entry.detail.changed) : '';
    return fields
      ? tr.t('lead.activity.detailsAppliedFields', { fields })
      : tr.t('lead.activity.detailsApplied');
  }
  if (entry.kind === 'edited') return tr.t('lead.activity.edited', { changes: editedText(tr, entry.detail) });
  // A kind this page does not know yet: its code in words.
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

function feedEntries(
  tr: Translator,
  lead: LeadDetail,
  notes: Note[],
  activity: LeadActivity[],
  zone = 'UTC',
): FeedEntry[] {
  const entries: FeedEntry[] = [
    ...lead.statusHistory.map((entry, i) => ({
      at: entry.at,
      order: i,
      kind: 'change' as const,
      item: html`<li class="feed-change"><p class="feed-meta">${statusBadge(tr, entry.status)}${
        // Back to request after the first entry: someone reopened a cancelled lead.
        entry.status === 'request' && i > 0
          ? html` <strong class="feed-reopened">${tr.t('lead.feed.reopened')}</strong>`
          : ''
      } <span aria-hidden="true">·</span> ${time(entry.at)} <span aria-hidden="true">·</span> ${byWho(tr, entry.actor)}</p>${
        entry.reason
          ? html`<p class="feed-reason prose">${tr.t('lead.feed.reason', { reason: entry.reason })}</p>`
          : ''
      }</li>`,
    })),
    ...activity.map((entry, i) => ({
      at: entry.at,
      order: i,
      kind: 'activity' as const,
      // A visit notice is the mail worker's doing: no person to name.
      item: html`<li class="feed-activity"><p class="feed-meta"><strong>${activityText(tr, entry, zone)}</strong> <span aria-hidden="true">·</span> ${time(entry.at)}${
        entry.kind === 'visit_notice_sent'
          ? ''
          : html` <span aria-hidden="true">·</span> ${byWho(tr, entry.actor)}`
      }</p></li>`,
    })),
    // Notes come newest first; their order within a millisecond is their position from the end.
    ...notes.map((note, i) => ({
      at: note.createdAt,
      order: notes.length - i,
      kind: 'note' as const,
      item: html`<li class="feed-note" id="${note.id}"><p class="feed-meta"><strong>${tr.t('lead.feed.note')}</strong> <span aria-hidden="true">·</span> ${time(note.createdAt)} <span aria-hidden="true">·</span> ${byWho(tr, note.author)}</p><p class="note-text prose">${note.text}</p></li>`,
    })),
  ];
  return entries.sort((a, b) => (a.at === b.at ? b.order - a.order : a.at < b.at ? 1 : -1));
}

export interface NoteFormState {
  text: string;
  error?: string | undefined;
}

function noteForm(
  tr: Translator,
  user: SessionUser,
  lead: LeadDetail,
  state: NoteFormState | undefined,
): SafeHtml {
  const error = state?.error;
  return html`<form class="note-form" method="post" action="/dashboard/leads/${lead.id}/notes">
  ${csrfField(user.csrfToken)}
  <div class="field${error ? ' field-invalid' : ''}">
    <label for="field-text">${tr.t('lead.note.label')}</label>
    <p class="hint" id="field-text-hint">${tr.t('lead.note.hint', { max: MAX_NOTE_LENGTH })}</p>
    ${error ? html`<p class="error" id="field-text-error">${error}</p>` : ''}
    <textarea id="field-text" name="text" rows="3" maxlength="${MAX_NOTE_LENGTH}" required aria-describedby="field-text-hint${error ? ' field-text-error' : ''}"${
      error ? html` aria-invalid="true" autofocus` : ''
    }>
${state?.text ?? ''}</textarea>
  </div>
  <button type="submit" class="button button-primary">${tr.t('lead.note.add')}</button>
</form>`;
}

const FILTERS: { value: FeedFilter; label: MessageKey }[] = [
  { value: 'all', label: 'lead.feed.filter.all' },
  { value: 'notes', label: 'lead.feed.filter.notes' },
  { value: 'changes', label: 'lead.feed.filter.changes' },
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
  const tr = translator(options.user.locale);
  const entries = feedEntries(tr, lead, options.notes, options.activity, options.user.timeZone).filter(
    (e) =>
      filter === 'all' ||
      (filter === 'notes' ? e.kind === 'note' : e.kind === 'change' || e.kind === 'activity'),
  );
  return html`<section class="card timeline-card" id="notes" aria-labelledby="timeline-title">
  <h2 id="timeline-title">${tr.t('lead.feed.title')}</h2>
  ${noteForm(tr, options.user, lead, options.noteForm)}
  <nav class="feed-filter" aria-label="${tr.t('lead.feed.filter.label')}">${FILTERS.map(
    (f) =>
      html`<a href="/dashboard/leads/${lead.id}${f.value === 'all' ? '' : `?show=${f.value}`}#notes"${
        f.value === filter ? html` aria-current="true"` : ''
      }>${tr.t(f.label)}</a>`,
  )}</nav>
  ${
    entries.length
      ? html`<ol class="feed">${entries.map((e) => e.item)}</ol>`
      : html`<p class="muted">${tr.t(filter === 'notes' ? 'lead.feed.noNotes' : 'lead.feed.nothing')}</p>`
  }
  ${options.moreNotes ? html`<p class="muted">${tr.t('lead.feed.moreNotes')}</p>` : ''}
</section>`;
}

/** After a note was added. */
export function noteAddedNotice(tr: Translator): SafeHtml {
  return notice(tr.t('lead.notice.noteAdded'));
}

/**
 * A change the page asked for that no longer fits: the lead moved on since the page was loaded (a stale tab),
 * or the change is not one the lead's state allows. Names the state in words, and who made it so, when.
 */
export function staleStateNotice(
  tr: Translator,
  lead: LeadDetail,
  requested: Status,
  stale: boolean,
): SafeHtml {
  const last = lead.statusHistory.at(-1);
  const who = last ? actorWords(tr, last.actor) : undefined;
  const values = {
    what: stageOf(lead.status) === 'work' ? 'job' : 'lead',
    status: statusLabel(tr, lead.status),
    changed: last ? (who ? 'by' : 'at') : 'unknown',
    who: who ?? '',
    time: last ? time(last.at) : '',
    requested: statusLabel(tr, requested),
    strong: (inner: SafeHtml) => html`<strong>${inner}</strong>`,
  };
  if (stale || requested === lead.status) {
    return notice(richText(tr, 'lead.stale.already', values), 'info');
  }
  return notice(richText(tr, 'lead.stale.cannotMove', values), 'error');
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
  const tr = translator(user.locale);
  const cancel = status === 'cancelled';
  const what = stageOf(lead.status) === 'work' ? 'job' : 'lead';
  const question = cancel
    ? tr.t('lead.confirm.cancelQuestion', { title: lead.title, what })
    : tr.t('lead.confirm.completeQuestion', { title: lead.title });
  const error = view.reasonError;
  const body = html`<p class="breadcrumb"><a href="/dashboard/leads/${lead.id}">← ${lead.title}</a></p>
<div class="page-head"><h1>${cancel ? tr.t('lead.confirm.cancelTitle', { what }) : tr.t('lead.confirm.completeTitle')}</h1></div>
<section class="card confirm-card" aria-labelledby="confirm-question">
  <p id="confirm-question" class="confirm-question">${question}</p>
  <form method="post" action="/dashboard/leads/${lead.id}/status">
    ${csrfField(user.csrfToken)}
    <input type="hidden" name="status" value="${status}">
    <input type="hidden" name="from" value="${lead.status}">
    ${
      cancel
        ? html`<div class="field${error ? ' field-invalid' : ''}">
      <label for="field-reason">${tr.t('lead.confirm.reason')} <span class="optional">${tr.t('form.optional')}</span></label>
      <p class="hint" id="field-reason-hint">${tr.t('lead.confirm.reasonHint', { max: MAX_REASON_LENGTH })}</p>
      ${error ? html`<p class="error" id="field-reason-error">${error}</p>` : ''}
      <textarea id="field-reason" name="reason" rows="3" maxlength="${MAX_REASON_LENGTH}" aria-describedby="field-reason-hint${error ? ' field-reason-error' : ''}"${
        error ? html` aria-invalid="true" autofocus` : ''
      }>
${view.reason ?? ''}</textarea>
    </div>`
        : ''
    }
    <div class="actions">
      <button type="submit" name="confirm" value="yes" class="button ${cancel ? 'button-danger' : 'button-primary'}">${cancel ? tr.t('lead.confirm.cancelButton', { what }) : tr.t('lead.confirm.completeButton')}</button>
      <a class="button button-quiet" href="/dashboard/leads/${lead.id}">${tr.t('lead.confirm.back')}</a>
    </div>
  </form>
</section>`;
  return page({
    title: tr.t(cancel ? 'lead.confirm.cancelPageTitle' : 'lead.confirm.completePageTitle', {
      title: lead.title,
    }),
    user,
    section: stageOf(lead.status) === 'work' ? 'work-items' : 'leads',
    body,
  });
}
