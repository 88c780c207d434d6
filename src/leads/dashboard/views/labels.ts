// The words for a lead's states and priorities, and their badges.
import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { Status } from '../../states.js';

export const STATUS_LABELS: Record<Status, string> = {
  request: 'Request',
  quoted: 'Quoted',
  scheduled: 'Scheduled',
  planned: 'Planned',
  in_progress: 'In progress',
  completed: 'Completed',
  cancelled: 'Cancelled',
};

/** What the button that moves a lead into a state says. */
export const TRANSITION_LABELS: Record<Status, string> = {
  request: 'Back to request',
  quoted: 'Mark as quoted',
  scheduled: 'Schedule',
  planned: 'Mark as planned',
  in_progress: 'Start work',
  completed: 'Mark as completed',
  cancelled: 'Cancel lead',
};

export const PRIORITY_LABELS: Record<string, string> = {
  low: 'Low',
  medium: 'Medium',
  high: 'High',
  urgent: 'Urgent',
};

export function statusBadge(status: Status): SafeHtml {
  return html`<span class="badge badge-${status}">${STATUS_LABELS[status]}</span>`;
}

export function priorityBadge(priority: string): SafeHtml {
  return html`<span class="badge priority-${priority}">${PRIORITY_LABELS[priority] ?? priority}</span>`;
}
