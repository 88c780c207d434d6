// The words for a lead's states, priorities and sources, and their badges: catalog keys by value (literal keys,
// so the catalog test finds each one), and the words in the reader's language.
import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { MessageKey, Translator } from '../../../shared/i18n/index.js';
import type { LeadSourceName, Priority, Status } from '../../states.js';

export const STATUS_LABELS: Record<Status, MessageKey> = {
  request: 'lead.status.request',
  quoted: 'lead.status.quoted',
  scheduled: 'lead.status.scheduled',
  planned: 'lead.status.planned',
  in_progress: 'lead.status.inProgress',
  completed: 'lead.status.completed',
  cancelled: 'lead.status.cancelled',
};

/** What the button that moves a lead into a state says. */
export const TRANSITION_LABELS: Record<Status, MessageKey> = {
  request: 'lead.transition.request',
  quoted: 'lead.transition.quoted',
  scheduled: 'lead.transition.scheduled',
  planned: 'lead.transition.planned',
  in_progress: 'lead.transition.inProgress',
  completed: 'lead.transition.completed',
  cancelled: 'lead.transition.cancelled',
};

export const PRIORITY_KEYS: Record<Priority, MessageKey> = {
  low: 'lead.priority.low',
  medium: 'lead.priority.medium',
  high: 'lead.priority.high',
  urgent: 'lead.priority.urgent',
};

/** People's names for the sources, in the filter and under each job. */
export const SOURCE_LABELS: Record<LeadSourceName, MessageKey> = {
  website: 'lead.source.website',
  form: 'lead.source.form',
  phone: 'lead.source.phone',
  dashboard: 'lead.source.dashboard',
};

export function statusLabel(tr: Translator, status: Status): string {
  return tr.t(STATUS_LABELS[status]);
}

/** A priority in words; a value the table does not know as it is. */
export function priorityLabel(tr: Translator, priority: string): string {
  return Object.hasOwn(PRIORITY_KEYS, priority) ? tr.t(PRIORITY_KEYS[priority as Priority]) : priority;
}

/** A source in words; a value the table does not know as it is. */
export function sourceLabel(tr: Translator, source: string): string {
  return Object.hasOwn(SOURCE_LABELS, source) ? tr.t(SOURCE_LABELS[source as LeadSourceName]) : source;
}

export function statusBadge(tr: Translator, status: Status): SafeHtml {
  return html`<span class="badge badge-${status}">${statusLabel(tr, status)}</span>`;
}

export function priorityBadge(tr: Translator, priority: string): SafeHtml {
  return html`<span class="badge priority-${priority}">${priorityLabel(tr, priority)}</span>`;
}
