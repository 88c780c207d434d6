// Moving a lead through the states of states.ts, with its history entry and lead.status_changed event.
import type { Store, Tx } from '../platform/db/store.js';
import { InvalidTransitionError, NotFoundError, ValidationError } from '../shared/errors.js';
import { recordEvent } from '../webhooks/events.js';
import type { Actor } from './customer-details.js';
import { insertHistoryEntry, selectLastHistorySeq, selectLeadStatus, updateLeadStatus } from './queries.js';
import { getLead } from './read.js';
import type { LeadDetail } from './shape.js';
import {
  ALL_STATUSES,
  allowedTransitions,
  canTransition,
  isReopening,
  isStatus,
  type Status,
  stageOf,
} from './states.js';
import { visitChanged } from './visit-notices.js';

/** Most a cancellation's reason may be (characters, after trimming). */
export const MAX_REASON_LENGTH = 500;

export async function insertHistory(
  r: Tx,
  leadId: string,
  seq: number,
  status: Status,
  at: number,
  actor: Actor | null,
  reason: string | null = null,
): Promise<void> {
  await insertHistoryEntry(r, { leadId, seq, status, at, actor, reason });
}

export function parseStatusChange(body: unknown): Status {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError([{ field: '(body)', message: 'must be a JSON object with a "status" field' }]);
  }
  const errors = Object.keys(body)
    .filter((k) => k !== 'status')
    .map((k) => ({ field: k, message: 'is not a known field' }));
  const status = (body as Record<string, unknown>).status;
  if (status === undefined || status === null) errors.push({ field: 'status', message: 'is required' });
  else if (!isStatus(status)) {
    errors.push({ field: 'status', message: `must be one of ${ALL_STATUSES.join(', ')}` });
  }
  if (errors.length) throw new ValidationError(errors);
  return status as Status;
}

/**
 * A cancellation's reason as given in the dashboard: trimmed, empty as none, at most MAX_REASON_LENGTH characters
 * (ValidationError naming `reason` beyond).
 */
export function parseReason(value: string | undefined): string | null {
  const reason = (value ?? '').trim();
  if (!reason) return null;
  if ([...reason].length > MAX_REASON_LENGTH) {
    throw new ValidationError([
      { field: 'reason', message: `must be at most ${MAX_REASON_LENGTH} characters` },
    ]);
  }
  return reason;
}

/**
 * Moves a lead to another state. The update is conditional on the state it was read in, so of two concurrent
 * changes from the same state exactly one wins; the other gets InvalidTransitionError naming the new state.
 * Returns the single-lead read as this change left it. `actor` is who made the change (the API key, the
 * signed-in user); `reason` is kept with a cancellation. Reopening (cancelled → request) clears the planning:
 * scheduledFor, durationMinutes, the assignee and scheduledAt.
 * Its lead.status_changed event is written in the same transaction.
 */
export function changeLeadStatus(
  store: Store,
  brandId: string,
  id: string,
  to: Status,
  actor: Actor | null,
  options: {
    reason?: string | null;
    /**
     * The state the change was decided in (the dashboard page's): when the lead has moved on since, nothing is
     * changed and InvalidTransitionError names the state it is in now, even if that state would allow `to`.
     */
    from?: Status;
  } = {},
): Promise<{ from: Status; to: Status; at: number; lead: LeadDetail }> {
  // A reason belongs to a cancellation only; other changes keep null.
  const reason = to === 'cancelled' ? (options.reason ?? null) : null;
  return store.write(async (tx) => {
    const current = await selectLeadStatus(tx, brandId, id);
    if (current === undefined) throw new NotFoundError(`No lead with id ${id}`);
    const from = current as Status;
    if ((options.from !== undefined && options.from !== from) || !canTransition(from, to))
      throw new InvalidTransitionError(from, to, allowedTransitions(from));
    const now = Date.now();
    const changed = await updateLeadStatus(tx, brandId, id, {
      from,
      to,
      stage: stageOf(to),
      at: now,
      ...(to === 'scheduled' ? { scheduledAt: now } : {}),
      // Reopened: a lead again, with nothing planned (states.ts, isReopening).
      ...(isReopening(from, to) ? { clearPlan: true } : {}),
    });
    if (!changed) {
      const latest = await selectLeadStatus(tx, brandId, id);
      const latestStatus = (latest ?? from) as Status;
      throw new InvalidTransitionError(latestStatus, to, allowedTransitions(latestStatus));
    }
    const last = await selectLastHistorySeq(tx, id);
    await insertHistory(tx, id, last + 1, to, now, actor, reason);
    // A cancelled visit: its SEQUENCE moves, and the customer told of it hears (visit-notices.ts).
    if (to === 'cancelled') await visitChanged(tx, brandId, id, { cancelled: true }, actor);
    // Read before commit: the row lock held since the update means this is exactly the state this change made.
    const lead = await getLead(tx, brandId, id);
    await recordEvent(tx, brandId, 'lead.status_changed', { lead, from, to }, now);
    tx.onCommit(() => tx.metrics?.leadStatusChanged(from, to));
    return { from, to, at: now, lead };
  });
}
