// Planning the visit: when a work item is done, for how long and by whom (PATCH /v1/leads/{id} and the
// dashboard's Schedule and Change visit forms), and the brand's visits between two moments (the planning page).
import type { Store, Tx } from '../platform/db/store.js';
import { DomainError, type FieldError, ValidationError } from '../shared/errors.js';
import { parseTimestamp } from '../shared/paging.js';
import { iso } from '../shared/time.js';
import { recordEvent } from '../webhooks/events.js';
import {
  activeUserExists,
  selectOverlappingVisitRows,
  selectPlanLocked,
  selectVisitRows,
  updateLeadRow,
  updatePlan,
} from './queries.js';
import { getLead } from './read.js';
import { DETAIL_PROJECTION, type LeadDetail } from './shape.js';
import { ALL_STATUSES, allowedTransitions, isStatus, type Status } from './states.js';
import { changeLeadStatus } from './status-change.js';
import { type VisitChange, visitChanged } from './visit-notices.js';

export const MIN_DURATION_MINUTES = 15;
export const MAX_DURATION_MINUTES = 1440;

/** The planning of a visit; a field left out is left as it is. */
export interface VisitPlan {
  /** Epoch ms; null clears it. */
  scheduledFor?: number | null;
  durationMinutes?: number | null;
  /** usr_… of the brand; null: nobody yet. */
  assigneeId?: string | null;
}

/** PATCH /v1/leads/{id}: a state change, a new plan, or both. */
export interface LeadPatch {
  status?: Status;
  plan: VisitPlan;
}

export const PLAN_FIELDS = ['scheduledFor', 'durationMinutes', 'assigneeId'] as const;
type PlanField = (typeof PLAN_FIELDS)[number];
const PATCH_FIELDS: readonly string[] = ['status', ...PLAN_FIELDS];

/** The states in which a visit may be (re)planned: open work. A lead joins them by moving to scheduled. */
export const PLANNABLE_STATUSES: readonly Status[] = ['scheduled', 'planned', 'in_progress'];

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** Checks the planning fields of a body (or a dashboard form, already converted), one error per bad field. */
export function parseVisitPlan(body: Record<string, unknown>, errors: FieldError[]): VisitPlan {
  const plan: VisitPlan = {};
  if ('scheduledFor' in body) {
    const value = body.scheduledFor;
    if (value === null) plan.scheduledFor = null;
    else if (typeof value !== 'string' || !ISO_WITH_ZONE.test(value.trim())) {
      errors.push({
        field: 'scheduledFor',
        message: 'must be an ISO 8601 date and time with its offset, such as 2026-11-24T08:00:00Z, or null',
      });
    } else {
      try {
        plan.scheduledFor = parseTimestamp(value, 'scheduledFor')!;
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        errors.push(...error.errors);
      }
    }
  }
  if ('durationMinutes' in body) {
    const value = body.durationMinutes;
    if (value === null) plan.durationMinutes = null;
    else if (
      typeof value !== 'number' ||
      !Number.isInteger(value) ||
      value < MIN_DURATION_MINUTES ||
      value > MAX_DURATION_MINUTES
    ) {
      errors.push({
        field: 'durationMinutes',
        message: `must be a whole number of minutes from ${MIN_DURATION_MINUTES} to ${MAX_DURATION_MINUTES}, or null`,
      });
    } else plan.durationMinutes = value;
  }
  if ('assigneeId' in body) {
    const value = body.assigneeId;
    if (value === null) plan.assigneeId = null;
    else if (typeof value !== 'string' || !/^usr_[0-9a-z]{1,64}$/.test(value)) {
      errors.push({
        field: 'assigneeId',
        message: 'must be the id (usr_…) of a user of this brand, or null',
      });
    } else plan.assigneeId = value;
  }
  return plan;
}

/** The body of PATCH /v1/leads/{id}: `status`, the planning fields, or both; every problem at once. */
export function parseLeadPatch(body: unknown): LeadPatch {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError([
      { field: '(body)', message: 'must be a JSON object with "status" and/or the planning fields' },
    ]);
  }
  const fields = body as Record<string, unknown>;
  const errors: FieldError[] = Object.keys(fields)
    .filter((k) => !PATCH_FIELDS.includes(k))
    .map((k) => ({ field: k, message: 'is not a known field' }));
  const status = fields.status;
  const planGiven = PLAN_FIELDS.some((f) => f in fields);
  if (status === undefined || status === null) {
    if (!planGiven) {
      errors.push({
        field: 'status',
        message: `is required unless ${PLAN_FIELDS.join(', ')} is given`,
      });
    }
  } else if (!isStatus(status)) {
    errors.push({ field: 'status', message: `must be one of ${ALL_STATUSES.join(', ')}` });
  }
  const plan = parseVisitPlan(fields, errors);
  if (errors.length) throw new ValidationError(errors);
  return { ...(isStatus(status) ? { status } : {}), plan };
}

/** Refused: planning a lead that is not (becoming) open work. A 409, like a refused state change. */
export class NotPlannableError extends DomainError {
  constructor(readonly currentStatus: Status) {
    super('invalid_state_transition', notPlannableMessage(currentStatus), {
      currentStatus,
      allowedStatuses: allowedTransitions(currentStatus),
    });
    this.name = 'NotPlannableError';
  }
}

function notPlannableMessage(status: Status): string {
  if (status === 'completed') return 'The work is completed: a completed visit cannot be re-planned.';
  if (status === 'cancelled') {
    return 'The lead is cancelled: a cancelled lead cannot be planned. Reopen it first ("status": "request"), then schedule it.';
  }
  return `The lead is in status "${status}": a visit is planned when it is scheduled. Send "status": "scheduled" with the planning fields.`;
}

const COLUMN: Record<PlanField, 'scheduled_for' | 'duration_minutes' | 'assignee_id'> = {
  scheduledFor: 'scheduled_for',
  durationMinutes: 'duration_minutes',
  assigneeId: 'assignee_id',
};

type Actor = Parameters<typeof changeLeadStatus>[4];

/**
 * Applies a PATCH: the plan first, then the state change (changeLeadStatus, in the same transaction), so the
 * lead.status_changed event carries the new plan. A plan without a state change fires lead.updated with the fields
 * that changed (none changed: no event). The plan is allowed on open work (scheduled, planned, in_progress) and on
 * a lead moving to scheduled; otherwise NotPlannableError (409). An assignee who is not an active user of the
 * brand is a 422.
 */
export function patchLead(
  store: Store,
  brandId: string,
  id: string,
  patch: LeadPatch,
  actor: Actor,
): Promise<LeadDetail> {
  return store.write(async (tx) => {
    const given = PLAN_FIELDS.filter((f) => patch.plan[f] !== undefined);
    if (!given.length) {
      if (!patch.status) throw new ValidationError([{ field: 'status', message: 'is required' }]);
      return (await changeLeadStatus(tx, brandId, id, patch.status, actor)).lead;
    }
    const row = await selectPlanLocked(tx, brandId, id);
    if (!row) return getLead(tx, brandId, id); // the NotFoundError of the single read
    const current = { ...row, status: row.status as Status };
    const plannable =
      PLANNABLE_STATUSES.includes(current.status) ||
      (patch.status === 'scheduled' && allowedTransitions(current.status).includes('scheduled'));
    if (!plannable) {
      // A state change the table refuses says so first; then why this lead cannot be planned.
      if (patch.status && !allowedTransitions(current.status).includes(patch.status)) {
        return (await changeLeadStatus(tx, brandId, id, patch.status, actor)).lead;
      }
      throw new NotPlannableError(current.status);
    }
    const assigneeId = patch.plan.assigneeId;
    if (typeof assigneeId === 'string' && !(await isActiveUser(tx, brandId, assigneeId))) {
      throw new ValidationError([{ field: 'assigneeId', message: 'is not a user of this brand' }]);
    }
    const next = {
      scheduled_for: patch.plan.scheduledFor === undefined ? current.scheduled_for : patch.plan.scheduledFor,
      duration_minutes:
        patch.plan.durationMinutes === undefined ? current.duration_minutes : patch.plan.durationMinutes,
      assignee_id: assigneeId === undefined ? current.assignee_id : assigneeId,
    };
    const changed = PLAN_FIELDS.filter((f) => given.includes(f) && next[COLUMN[f]] !== current[COLUMN[f]]);
    await updatePlan(tx, brandId, id, current.status, next);
    if (changed.length) await visitChanged(tx, brandId, id, visitChangeOf(changed, next), actor);
    if (patch.status) return (await changeLeadStatus(tx, brandId, id, patch.status, actor)).lead;
    if (!changed.length) return getLead(tx, brandId, id);
    const now = Date.now();
    await updateLeadRow(tx, brandId, id, { updated_at: now });
    const lead = await getLead(tx, brandId, id);
    await recordEvent(tx, brandId, 'lead.updated', { lead, changed }, now);
    return lead;
  });
}

/** What a change of the plan fields means for the visit (visit-notices.ts). */
function visitChangeOf(changed: PlanField[], next: { scheduled_for: number | null }): VisitChange {
  const timed = changed.includes('scheduledFor') || changed.includes('durationMinutes');
  return {
    moved: timed && next.scheduled_for !== null,
    cancelled: changed.includes('scheduledFor') && next.scheduled_for === null,
    reassigned: changed.includes('assigneeId'),
  };
}

async function isActiveUser(tx: Tx, brandId: string, userId: string): Promise<boolean> {
  return activeUserExists(tx, brandId, userId);
}

/** A planned visit as the planning page and My visits show it. */
export type Visit = Omit<LeadDetail, 'statusHistory' | 'attachments'> & { scheduledFor: string };

/**
 * The brand's visits from `from` (inclusive) to `to` (exclusive), earliest first: work items with a planned time,
 * cancelled ones left out. `assigneeId` keeps one person's.
 */
export async function listVisits(
  store: Store,
  brandId: string,
  query: { from: number; to?: number; assigneeId?: string; limit?: number },
): Promise<Visit[]> {
  const rows = await selectVisitRows(store, brandId, { ...query, limit: query.limit ?? 500 });
  return rows.map((r) => DETAIL_PROJECTION.map(r) as Visit);
}

/** Another visit of the same person at the same time. */
export interface OverlappingVisit {
  id: string;
  title: string;
  status: Status;
  scheduledFor: string;
  durationMinutes: number | null;
}

/**
 * What planning warns about without refusing it (contract, "The office's week"): the visit starts in the past, or
 * it overlaps another visit of the same person (one warning per such visit).
 */
export type PlanningWarning =
  | { code: 'visit_in_past'; scheduledFor: string }
  | {
      code: 'visit_overlap';
      scheduledFor: string;
      assignee: { id: string; name: string };
      other: OverlappingVisit;
    };

/** The states whose start still lies ahead: planning one of these in the past is worth a word. */
const NOT_STARTED: readonly Status[] = ['scheduled', 'planned'];

/**
 * The warnings of a lead's visit as it is planned now, read after the plan is saved. Only open work is checked
 * (scheduled, planned, in_progress); a completed visit in the past is work logged, not a mistake.
 * - In the past: the visit has not started (scheduled or planned) and its start is before `now`.
 * - Overlap: another open visit (not completed, not cancelled, not spam) of the same brand and the same assignee
 *   whose time [start, start + duration) meets this one's; a visit without a duration is its start moment, and two
 *   visits starting at the same moment always overlap.
 */
export async function planningWarnings(
  store: Store,
  brandId: string,
  lead: Pick<LeadDetail, 'id' | 'status' | 'scheduledFor' | 'durationMinutes' | 'assignee'>,
  now = Date.now(),
): Promise<PlanningWarning[]> {
  if (!lead.scheduledFor || !PLANNABLE_STATUSES.includes(lead.status)) return [];
  const start = Date.parse(lead.scheduledFor);
  const warnings: PlanningWarning[] = [];
  if (NOT_STARTED.includes(lead.status) && start < now) {
    warnings.push({ code: 'visit_in_past', scheduledFor: lead.scheduledFor });
  }
  if (lead.assignee) {
    const rows = await selectOverlappingVisitRows(store, brandId, {
      leadId: lead.id,
      assigneeId: lead.assignee.id,
      start,
      end: start + (lead.durationMinutes ?? 0) * 60_000,
      maxDurationMs: MAX_DURATION_MINUTES * 60_000,
    });
    for (const row of rows) {
      warnings.push({
        code: 'visit_overlap',
        scheduledFor: lead.scheduledFor,
        assignee: lead.assignee,
        other: {
          id: row.id,
          title: row.title,
          status: row.status as Status,
          scheduledFor: iso(Number(row.scheduled_for)),
          durationMinutes: row.duration_minutes === null ? null : Number(row.duration_minutes),
        },
      });
    }
  }
  return warnings;
}
