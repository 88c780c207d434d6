// Moving a lead through the states of states.ts, with its history entry and lead.status_changed event.
import { statement } from '../platform/db/sql.js';
import type { Store, Tx } from '../platform/db/store.js';
import { InvalidTransitionError, NotFoundError, ValidationError } from '../shared/errors.js';
import { recordEvent } from '../webhooks/events.js';
import type { Actor } from './customer-details.js';
import { insertHistoryEntry } from './queries.js';
import { getLead } from './read.js';
import type { LeadDetail } from './shape.js';
import { ALL_STATUSES, allowedTransitions, canTransition, isStatus, type Status, stageOf } from './states.js';

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

// Spam leads (a filled honeypot) cannot be moved: like reads, they are not there until released.
const LEAD_STATUS = statement('select status from leads where id = ? and brand_id = ? and spam = 0');
const SET_STATUS = statement(
  'update leads set status = ?, stage = ?, updated_at = ? where id = ? and brand_id = ? and status = ?',
);
const SET_STATUS_SCHEDULED = statement(
  'update leads set status = ?, stage = ?, updated_at = ?, scheduled_at = ? where id = ? and brand_id = ? and status = ?',
);
const LAST_SEQ = statement('select max(seq) as seq from lead_status_history where lead_id = ?');

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
 * signed-in user); `reason` is kept with a cancellation.
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
    const [current] = await tx.all<{ status: string }>(LEAD_STATUS, [id, brandId]);
    if (!current) throw new NotFoundError(`No lead with id ${id}`);
    const from = current.status as Status;
    if ((options.from !== undefined && options.from !== from) || !canTransition(from, to))
      throw new InvalidTransitionError(from, to, allowedTransitions(from));
    const now = Date.now();
    const changed = await tx.run(to === 'scheduled' ? SET_STATUS_SCHEDULED : SET_STATUS, [
      to,
      stageOf(to),
      now,
      ...(to === 'scheduled' ? [now] : []),
      id,
      brandId,
      from,
    ]);
    if (changed !== 1) {
      const [latest] = await tx.all<{ status: string }>(LEAD_STATUS, [id, brandId]);
      const latestStatus = (latest?.status ?? from) as Status;
      throw new InvalidTransitionError(latestStatus, to, allowedTransitions(latestStatus));
    }
    const [last] = await tx.all<{ seq: number | null }>(LAST_SEQ, [id]);
    await insertHistory(tx, id, Number(last?.seq ?? 0) + 1, to, now, actor, reason);
    // Read before commit: the row lock held since the update means this is exactly the state this change made.
    const lead = await getLead(tx, brandId, id);
    await recordEvent(tx, brandId, 'lead.status_changed', { lead, from, to }, now);
    tx.onCommit(() => tx.metrics?.leadStatusChanged(from, to));
    return { from, to, at: now, lead };
  });
}
