import { type TProperties, Type } from '@sinclair/typebox';
import { ListQuery, listEnvelope, parsedBy, TimestampParam } from '../../platform/http/schemas.js';
import { Timestamp } from '../../shared/json-schema.js';
import { bodySchemaOf, LEAD_FIELD_TABLE } from '../fields.js';
import {
  LeadDetailSchema,
  LeadListItemSchema,
  MAX_DURATION_MINUTES,
  MIN_DURATION_MINUTES,
  parseLeadPatch,
  parseStatusChange,
  WorkItemListItemSchema,
} from '../index.js';
import { parseLeadInput } from '../input.js';
import { ALL_STATUSES, LEAD_SOURCES, LEAD_STATUSES, WORK_ITEM_STATUSES } from '../states.js';

/**
 * The lead body, generated from the field table the validator uses (fields.ts), so docs and rules cannot drift.
 * Handlers receive parseLeadInput's LeadInput (trimmed, normalised), not this JSON.
 */
export const LeadCreateBody = (() => {
  const properties: TProperties = {};
  for (const [name, f] of Object.entries(LEAD_FIELD_TABLE)) properties[name] = bodySchemaOf(f);
  const schema = Type.Object(properties, {
    additionalProperties: false,
    title: 'LeadCreate',
    description:
      'Address, customer and job fields sent flat. Strings are trimmed; empty optional fields count as absent; unknown fields are rejected.',
    // The validator in domain/lead-input.ts handles this body (trimming, all errors at once, normalisation).
    'x-validator': 'lead-create',
  });
  return parsedBy(parseLeadInput, schema);
})();

// The read shapes are defined with the lead's columns (domain/leads/shape.ts); the domain types are their Static
// types, so a response schema and the object a route returns cannot disagree.
export {
  CreatedLeadSchema,
  LeadDetailSchema,
  LeadListItemSchema,
  WorkItemListItemSchema,
} from '../index.js';

/** `q` on the lists (leads, work items, customers): see domain/leads/search.ts. */
export const SearchParam = (what: string) =>
  Type.Optional(
    Type.String({
      maxLength: 200,
      description: `Search, accent- and case-insensitively: ${what} whose title, description, customer name, company, email, phone (written in any format, national numbers read in the brand's country), street, postal code (with or without its space) or city contain it; several words must each be found. Combines with the other filters and pages like them. A substring search by trigram: fewer than 3 characters (spaces aside) find nothing. At most 8 words (a repeated word counts once) and no control characters, else a 422; a search running longer than the service's search budget (2 s by default) is stopped with a 422 naming q.`,
      examples: ['Émile Dupont', '06 1234 5678', '1015CJ'],
    }),
  );

// biome-ignore lint/complexity/noBannedTypes: no extra parameters by default
function listQuery<E extends TProperties = {}>(statuses: readonly string[], extra: E = {} as E) {
  return Type.Object(
    {
      ...ListQuery,
      receivedAfter: TimestampParam('ISO 8601; only items received after it (exclusive).'),
      receivedBefore: TimestampParam('ISO 8601; only items received before it (exclusive).'),
      updatedAfter: TimestampParam('ISO 8601; only items changed after it (exclusive).'),
      status: Type.Optional(
        Type.String({
          description: `One or more of ${statuses.join(', ')}, comma-separated.`,
          maxLength: 200,
          pattern: `^\\s*(${statuses.join('|')})\\s*(,\\s*(${statuses.join('|')})\\s*)*$`,
          'x-error': `must be one or more of ${statuses.join(', ')} (comma-separated)`,
        }),
      ),
      source: Type.Optional(
        Type.String({
          description: `Only leads from these sources: one or more of ${LEAD_SOURCES.join(', ')}, comma-separated.`,
          maxLength: 100,
          pattern: `^\\s*(${LEAD_SOURCES.join('|')})\\s*(,\\s*(${LEAD_SOURCES.join('|')})\\s*)*$`,
          'x-error': `must be one or more of ${LEAD_SOURCES.join(', ')} (comma-separated)`,
        }),
      ),
      q: SearchParam('only the items'),
      customerId: Type.Optional(
        Type.String({
          maxLength: 100,
          pattern: '^[\\x21-\\x7e]+$',
          description:
            "Only this customer's items (cus_…). An id that is not a customer of the key's brand is a 422.",
          'x-error': 'is not a customer of this brand',
        }),
      ),
      ...extra,
    },
    { additionalProperties: false },
  );
}

/** The work-item list's planning filters. */
const PLANNING_FILTERS = {
  scheduledFrom: TimestampParam(
    'ISO 8601; only items whose visit (scheduledFor) is at or after it (inclusive). Items without a visit are left out.',
  ),
  scheduledTo: TimestampParam(
    'ISO 8601; only items whose visit (scheduledFor) is before it (exclusive), so scheduledFrom/scheduledTo of two adjacent weeks never overlap.',
  ),
  assigneeId: Type.Optional(
    Type.String({
      maxLength: 100,
      pattern: '^[\\x21-\\x7e]+$',
      description: "Only this user's visits (usr_…). An id that is not a user of the key's brand is a 422.",
      'x-error': 'is not a user of this brand',
    }),
  ),
};

export const LeadListQuerySchema = listQuery(LEAD_STATUSES);
export const WorkItemListQuerySchema = listQuery(WORK_ITEM_STATUSES, PLANNING_FILTERS);
export const LeadListResponse = listEnvelope(LeadListItemSchema, 'LeadList');
export const WorkItemListResponse = listEnvelope(WorkItemListItemSchema, 'WorkItemList');

/** Handlers receive parseStatusChange's Status, not this JSON. */
export const StatusChangeBody = parsedBy(
  parseStatusChange,
  Type.Object(
    { status: Type.String({ enum: [...ALL_STATUSES], description: 'The state to move to.' }) },
    {
      additionalProperties: false,
      required: ['status'],
      title: 'StatusChange',
      'x-validator': 'status-change',
    },
  ),
);

/** PATCH /v1/leads/{id}: handlers receive parseLeadPatch's LeadPatch, not this JSON. */
export const LeadPatchBody = parsedBy(
  parseLeadPatch,
  Type.Object(
    {
      status: Type.Optional(Type.String({ enum: [...ALL_STATUSES], description: 'The state to move to.' })),
      scheduledFor: Type.Optional(
        Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
          description:
            'When the visit is planned: ISO 8601 with its offset (e.g. 2026-11-24T08:00:00Z). A time in the past is allowed (logging work done). null clears it.',
        }),
      ),
      durationMinutes: Type.Optional(
        Type.Union(
          [Type.Integer({ minimum: MIN_DURATION_MINUTES, maximum: MAX_DURATION_MINUTES }), Type.Null()],
          {
            description: `How long the visit takes, ${MIN_DURATION_MINUTES}–${MAX_DURATION_MINUTES} minutes.`,
          },
        ),
      ),
      assigneeId: Type.Optional(
        Type.Union([Type.String({ pattern: '^usr_' }), Type.Null()], {
          description: 'Who does it: usr_… of an active user of the brand, or null for nobody yet.',
        }),
      ),
    },
    {
      additionalProperties: false,
      minProperties: 1,
      title: 'LeadPatch',
      description:
        'A state change, the visit\'s planning, or both. The planning fields are allowed on work items in scheduled, planned or in_progress and on a lead moving to scheduled; on a lead in request or quoted without "status": "scheduled", and on completed or cancelled items, they are a 409 naming the current state.',
      'x-validator': 'lead-patch',
    },
  ),
);

/** A planning warning as PATCH /v1/leads/{id} answers it (planningWarnings in planning.ts). */
export const PlanningWarningSchema = Type.Object(
  {
    code: Type.Unsafe<'visit_in_past' | 'visit_overlap'>({
      type: 'string',
      enum: ['visit_in_past', 'visit_overlap'],
      description:
        '`visit_in_past`: the visit (scheduled or planned, not started) starts before now. `visit_overlap`: the assignee has another open visit (not completed or cancelled) whose time overlaps this one; one warning per such visit.',
    }),
    detail: Type.String({ description: 'The warning in words (English).' }),
    visit: Type.Union(
      [
        Type.Object(
          {
            id: Type.String({ description: 'wrk_… of the other visit.' }),
            title: Type.String(),
            scheduledFor: Timestamp(),
            durationMinutes: Type.Union([Type.Integer(), Type.Null()]),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: 'The other visit of an overlap; null for visit_in_past.' },
    ),
  },
  { additionalProperties: false, title: 'PlanningWarning' },
);

/** PATCH /v1/leads/{id}'s answer: the single-lead read, with `warnings` when the saved plan has any. */
export const LeadPatchResult = Type.Object(
  {
    ...LeadDetailSchema.properties,
    warnings: Type.Optional(
      Type.Array(PlanningWarningSchema, {
        description:
          'Present only when the request set planning fields and the visit as saved starts in the past or overlaps another visit of the same person. The plan is saved all the same: planning warns, it does not refuse.',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'LeadPatchResult',
    description:
      'The lead as the change left it (the single-lead read), plus planning `warnings` when there are any.',
  },
);
