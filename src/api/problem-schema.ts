// The Problem schema every error response refers to ($ref Problem): RFC 9457 problem details with the members
// this service adds (field errors, a lead's states on a 409, the scope a 403 wanted).
import { Type } from '@sinclair/typebox';
import { ALL_STATUSES } from '../leads/states.js';
import { PROBLEM_BASE, PROBLEMS } from '../platform/http/problem.js';
import { FieldErrorSchema } from '../platform/http/schemas.js';
import { SCOPES } from '../shared/scopes.js';

export const ProblemSchema = Type.Object(
  {
    type: Type.String({
      description: 'Stable URI-like error code, e.g. https://lead-intake.dev/errors/validation',
      enum: Object.keys(PROBLEMS).map((code) => PROBLEM_BASE + code.replace(/_/g, '-')),
    }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    requestId: Type.String(),
    errors: Type.Optional(
      Type.Array(FieldErrorSchema, { description: 'On 422: one entry per failing field.' }),
    ),
    currentStatus: Type.Optional(
      Type.String({
        enum: [...ALL_STATUSES],
        description: 'On 409 for a state change: the state the lead is in.',
      }),
    ),
    allowedStatuses: Type.Optional(
      Type.Array(Type.String({ enum: [...ALL_STATUSES] }), {
        description: 'On 409 for a state change: the states it may move to from there.',
      }),
    ),
    requiredScope: Type.Optional(
      Type.String({ enum: [...SCOPES], description: 'On 403: the scope the route needs.' }),
    ),
  },
  {
    $id: 'Problem',
    title: 'Problem',
    description: 'RFC 9457 problem details, sent as application/problem+json.',
    additionalProperties: true,
  },
);
