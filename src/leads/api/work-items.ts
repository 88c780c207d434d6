// The work-item routes of the API: leads from scheduled on, listed and read one by one.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../platform/http/deps.js';
import { principalOf } from '../../platform/http/plugins/auth.js';
import { scopedRoute } from '../../platform/http/route.js';
import { IdParams } from '../../platform/http/schemas.js';
import { getLead } from '../index.js';
import { listLeadsJson } from '../list-json.js';
import { workItemQueryFrom } from './list-query.js';
import { LeadDetailSchema, WorkItemListQuerySchema, WorkItemListResponse } from './schemas.js';

export default async function workItemRoutes(instance: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/work-items',
    scopedRoute({
      scope: 'work-items:read',
      errors: [422],
      schema: {
        operationId: 'listWorkItems',
        tags: ['Work items'],
        summary: 'List work items (scheduled, planned, in_progress, completed)',
        description:
          'Same envelope, order, paging and filters as the lead list, plus the planning filters `scheduledFrom` (inclusive), `scheduledTo` (exclusive) and `assigneeId`. Items carry scheduledAt (when the item was scheduled), scheduledFor, durationMinutes and assignee (the planned visit).',
        querystring: WorkItemListQuerySchema,
        response: { 200: WorkItemListResponse },
      },
    }),
    async (request, reply) => {
      const brandId = principalOf(request).brandId;
      const query = workItemQueryFrom(request.query);
      return deps.responses.send(reply, `work-items|${brandId}|${request.url}`, () =>
        listLeadsJson(deps.database, brandId, 'work', query),
      );
    },
  );

  app.get(
    '/v1/work-items/:id',
    scopedRoute({
      scope: 'work-items:read',
      errors: [404],
      schema: {
        operationId: 'getWorkItem',
        tags: ['Work items'],
        summary: 'Read one work item',
        description:
          'Any record that has been scheduled, including one cancelled later. A lead never scheduled is a 404 here.',
        params: IdParams,
        response: { 200: LeadDetailSchema },
      },
    }),
    async (request, reply) => {
      const brandId = principalOf(request).brandId;
      const { id } = request.params;
      return deps.responses.send(reply, `work-item|${brandId}|${id}`, () =>
        getLead(deps.database, brandId, id, { workItemsOnly: true }),
      );
    },
  );
}
