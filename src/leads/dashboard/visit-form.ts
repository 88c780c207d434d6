// The visit form (Schedule, Change visit): date and start time in the brand's time zone, a duration and who does it,
// turned into the plan PATCH /v1/leads/{id} takes. Every problem is named by its field, and what was typed is kept.

import { text } from '../../platform/web/http.js';
import type { FieldError } from '../../shared/errors.js';
import { isDay, zonedTimeToUtc } from '../../shared/time-zones.js';
import { MAX_DURATION_MINUTES, MIN_DURATION_MINUTES, type VisitPlan } from '../index.js';
import type { VisitFormValues } from './views/visits.js';

/** Who does a visit: someone of the brand (an id of another brand's user is refused the same way), or nobody. */
export const ASSIGNEE_ERROR: FieldError = {
  field: 'assigneeId',
  message: 'must be someone of this brand, or nobody yet',
  text: { key: 'visit.error.assignee' },
};

export function parseVisitForm(
  body: unknown,
  zone: string,
): { values: VisitFormValues; plan: VisitPlan; errors: FieldError[] } {
  const values: VisitFormValues = {
    scheduledDate: text(body, 'scheduledDate').trim(),
    scheduledTime: text(body, 'scheduledTime').trim(),
    durationMinutes: text(body, 'durationMinutes').trim(),
    assigneeId: text(body, 'assigneeId').trim(),
  };
  const errors: FieldError[] = [];
  const required = { message: 'is required', text: { key: 'validation.required' } } as const;
  if (!values.scheduledDate) errors.push({ field: 'scheduledDate', ...required });
  else if (!isDay(values.scheduledDate)) {
    errors.push({
      field: 'scheduledDate',
      message: 'must be a date such as 2026-11-24',
      text: { key: 'visit.error.date', values: { example: '2026-11-24' } },
    });
  }
  const time = /^([01]\d|2[0-3]):([0-5]\d)(:00)?$/.exec(values.scheduledTime);
  if (!values.scheduledTime) errors.push({ field: 'scheduledTime', ...required });
  else if (!time) {
    errors.push({
      field: 'scheduledTime',
      message: 'must be a time such as 09:30',
      text: { key: 'visit.error.time' },
    });
  }
  const duration = Number(values.durationMinutes);
  if (
    !/^\d+$/.test(values.durationMinutes) ||
    duration < MIN_DURATION_MINUTES ||
    duration > MAX_DURATION_MINUTES
  ) {
    errors.push({
      field: 'durationMinutes',
      message: 'must be between 15 minutes and 24 hours',
      text: { key: 'visit.error.duration' },
    });
  }
  if (values.assigneeId && !/^usr_[0-9a-z]{1,64}$/.test(values.assigneeId)) errors.push(ASSIGNEE_ERROR);
  const plan: VisitPlan = {};
  if (!errors.length) {
    const [year, month, day] = values.scheduledDate.split('-').map(Number) as [number, number, number];
    plan.scheduledFor = zonedTimeToUtc(zone, {
      year,
      month,
      day,
      hour: Number(time![1]),
      minute: Number(time![2]),
    });
    plan.durationMinutes = duration;
    plan.assigneeId = values.assigneeId || null;
  }
  return { values, plan, errors };
}
