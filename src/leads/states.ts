// The lead lifecycle: which states exist, which list shows each, and which changes are allowed.

export const LEAD_STATUSES = ['request', 'quoted'] as const;
export const WORK_ITEM_STATUSES = ['scheduled', 'planned', 'in_progress', 'completed'] as const;
export const ALL_STATUSES = [...LEAD_STATUSES, ...WORK_ITEM_STATUSES, 'cancelled'] as const;
export type Status = (typeof ALL_STATUSES)[number];

export { PRIORITIES, type Priority } from '../shared/priorities.js';

/**
 * Where leads come from: "website" through the API (spec), "form" through a website form; typed in the dashboard,
 * "phone" (taken on a call) or "dashboard" (from an email, a visit, …).
 */
export const LEAD_SOURCES = ['website', 'form', 'phone', 'dashboard'] as const;
export type LeadSourceName = (typeof LEAD_SOURCES)[number];

export type Stage = 'lead' | 'work' | 'closed';

// The contract's "States": request → quoted → scheduled → planned → in_progress → completed; request → scheduled;
// any state before completed → cancelled; cancelled → request (reopened: its planning is cleared, see
// isReopening). Nothing else.
const TRANSITIONS: Record<Status, readonly Status[]> = {
  request: ['quoted', 'scheduled', 'cancelled'],
  quoted: ['scheduled', 'cancelled'],
  scheduled: ['planned', 'cancelled'],
  planned: ['in_progress', 'cancelled'],
  in_progress: ['completed', 'cancelled'],
  completed: [],
  cancelled: ['request'],
};

/**
 * Whether a change reopens a lead: a cancelled lead back to request. Reopening clears the lead's planning (when,
 * how long, who, and when it was scheduled): it is an open lead again, to be quoted or scheduled anew.
 */
export function isReopening(from: Status, to: Status): boolean {
  return from === 'cancelled' && to === 'request';
}

export function isStatus(value: unknown): value is Status {
  return typeof value === 'string' && (ALL_STATUSES as readonly string[]).includes(value);
}

export function allowedTransitions(from: Status): readonly Status[] {
  return TRANSITIONS[from];
}

export function canTransition(from: Status, to: Status): boolean {
  return TRANSITIONS[from].includes(to);
}

export function stageOf(status: Status): Stage {
  if ((LEAD_STATUSES as readonly string[]).includes(status)) return 'lead';
  if ((WORK_ITEM_STATUSES as readonly string[]).includes(status)) return 'work';
  return 'closed';
}
