// The lead routes of the API: create, list, read one, change state.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../platform/http/deps.js';
import { idempotencyPreValidation, runIdempotent, sendStored } from '../../platform/http/idempotency.js';
import { principalOf } from '../../platform/http/plugins/auth.js';
import { type ApiApp, scopedRoute } from '../../platform/http/route.js';
import { IdempotencyHeaders, IdParams, ProblemRef } from '../../platform/http/schemas.js';
import {
  createLead,
  getLead,
  type LeadSource,
  PLAN_FIELDS,
  type PlanningWarning,
  patchLead,
  planningWarnings,
} from '../index.js';
import { listLeadsJson } from '../list-json.js';
import { listQueryFrom } from './list-query.js';
import {
  CreatedLeadSchema,
  LeadCreateBody,
  LeadDetailSchema,
  LeadListQuerySchema,
  LeadListResponse,
  LeadPatchBody,
  LeadPatchResult,
} from './schemas.js';

/** A planning warning as the API words it (English, like every API text). */
function apiWarning(warning: PlanningWarning) {
  if (warning.code === 'visit_in_past') {
    return {
      code: warning.code,
      detail: `The visit starts in the past (${warning.scheduledFor}). It is saved as sent.`,
      visit: null,
    };
  }
  const { other } = warning;
  return {
    code: warning.code,
    detail: `${warning.assignee.name} has another visit at that time: "${other.title}" (${other.id}) at ${other.scheduledFor}${other.durationMinutes ? ` for ${other.durationMinutes} minutes` : ''}. Both are kept.`,
    visit: {
      id: other.id,
      title: other.title,
      scheduledFor: other.scheduledFor,
      durationMinutes: other.durationMinutes,
    },
  };
}

function createLeadRoute(app: ApiApp, deps: RouteDeps) {
  app.post(
    '/v1/leads',
    {
      ...scopedRoute({
        scope: 'leads:write',
        errors: [400, 413, 415, 422],
        schema: {
          operationId: 'createLead',
          tags: ['Leads'],
          summary: 'Create a lead',
          description:
            'Creates a lead in status `request` from a flat body of address, customer and job fields. The customer is linked to an existing one of the brand by email, then phone; the address to an existing one of that customer. Everything is stored in one transaction.\n\n' +
            'Send an `Idempotency-Key` header (1 to 255 printable characters, e.g. a UUID) to retry safely: for 24 hours a repeat with the same key and body returns the first response again with `Idempotent-Replayed: true` and creates nothing; the same key with another body is a 422; a repeat while the first is still running is a 409. Keys are per API key.',
          headers: IdempotencyHeaders,
          body: LeadCreateBody,
          response: {
            201: { ...CreatedLeadSchema, description: 'The lead was stored. Location points at it.' },
            409: {
              ...ProblemRef,
              description: 'A request with the same Idempotency-Key is still being processed.',
            } as unknown as TSchema,
          },
        },
      }),
      preValidation: idempotencyPreValidation,
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const origin: LeadSource = {
        brandId: principal.brandId,
        source: 'website',
        keyId: principal.keyId,
        keyName: principal.keyName,
      };
      const input = request.body;
      if (request.idempotency) {
        const stored = await runIdempotent(deps.database, principal.keyId, request.idempotency, (remember) =>
          deps.database.write(async (tx) => {
            const body = JSON.stringify(await createLead(tx, origin, input));
            await remember(tx, 201, body);
            return { status: 201, body };
          }),
        );
        const id = (JSON.parse(stored.body) as { id?: string }).id;
        if (id) reply.header('Location', `/v1/leads/${id}`);
        return sendStored(reply, stored);
      }
      const lead = await createLead(deps.database, origin, input);
      return reply.code(201).header('Location', `/v1/leads/${lead.id}`).send(lead);
    },
  );
}

function listLeadsRoute(app: ApiApp, deps: RouteDeps) {
  app.get(
    '/v1/leads',
    scopedRoute({
      scope: 'leads:read',
      errors: [422],
      schema: {
        operationId: 'listLeads',
        tags: ['Leads'],
        summary: 'List leads (request, quoted)',
        description:
          'Newest first by (receivedAt, id); `order=asc` for oldest first. Follow `nextCursor` to page; cursors never skip or repeat an item while new leads arrive.',
        querystring: LeadListQuerySchema,
        response: { 200: LeadListResponse },
      },
    }),
    async (request, reply) => {
      const brandId = principalOf(request).brandId;
      const query = listQueryFrom(request.query);
      return deps.responses.send(reply, `leads|${brandId}|${request.url}`, () =>
        listLeadsJson(deps.database, brandId, 'lead', query),
      );
    },
  );
}

function getLeadRoute(app: ApiApp, deps: RouteDeps) {
  app.get(
    '/v1/leads/:id',
    scopedRoute({
      scope: 'leads:read',
      errors: [404],
      schema: {
        operationId: 'getLead',
        tags: ['Leads'],
        summary: 'Read one lead, in any state',
        description:
          'The single-lead read: the lead (or work item) with its customer, address, what was submitted, the visit’s planning and its status history with who made each change.',
        params: IdParams,
        response: { 200: LeadDetailSchema },
      },
    }),
    async (request, reply) => {
      const brandId = principalOf(request).brandId;
      const { id } = request.params;
      return deps.responses.send(reply, `lead|${brandId}|${id}`, () => getLead(deps.database, brandId, id));
    },
  );
}

function patchLeadRoute(app: ApiApp, deps: RouteDeps) {
  app.patch(
    '/v1/leads/:id',
    scopedRoute({
      scope: 'full',
      errors: [400, 404, 409, 415, 422],
      schema: {
        operationId: 'changeLeadStatus',
        tags: ['Leads'],
        summary: 'Change the state of a lead, or plan its visit',
        description:
          'Allowed: request → quoted → scheduled → planned → in_progress → completed; request → scheduled; any state before completed → cancelled; cancelled → request (reopened: its planning is cleared, that is `scheduledFor`, `durationMinutes`, `assignee` and `scheduledAt` become null, and it is a lead again, out of the work items). Anything else is a 409 naming the current state.\n\n' +
          'The visit is planned with `scheduledFor`, `durationMinutes` and `assigneeId`, with or without a `status`: on work items in scheduled, planned or in_progress, and on a lead moving to scheduled. On a lead in request or quoted without `"status": "scheduled"`, and on a completed or cancelled item, they are a 409 naming the current state. A plan without a state change fires `lead.updated` with `data.changed` (the fields whose value changed; nothing changed, no event); with a state change, `lead.status_changed`, whose lead carries the new plan.\n\n' +
          'Planning warns without refusing: when the request set planning fields and the visit as saved starts in the past (scheduled or planned, not yet started) or overlaps another open visit of the same assignee, the answer adds `warnings` (absent otherwise, so a bare state change is answered with exactly the single-lead read).',
        params: IdParams,
        body: LeadPatchBody,
        response: { 200: LeadPatchResult },
      },
    }),
    async (request) => {
      const principal = principalOf(request);
      const { id } = request.params;
      const patch = request.body;
      const lead = await patchLead(deps.database, principal.brandId, id, patch, {
        type: 'key',
        id: principal.keyId,
        name: principal.keyName,
      });
      // Warnings answer a plan only: a bare state change is answered with the single read, exactly.
      if (!PLAN_FIELDS.some((f) => patch.plan[f] !== undefined)) return lead;
      const warnings = await planningWarnings(deps.database, principal.brandId, lead);
      return warnings.length ? { ...lead, warnings: warnings.map(apiWarning) } : lead;
    },
  );
}

export default async function leadRoutes(instance: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.decorateRequest('idempotency', undefined);
  for (const route of [createLeadRoute, listLeadsRoute, getLeadRoute, patchLeadRoute]) route(app, deps);
}
