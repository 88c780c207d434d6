// GET /v1/events: the brand's events, for clients that poll instead of receiving webhooks.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { pagingFrom, timestampsFrom } from '../../leads/api/list-query.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { principalOf } from '../../platform/http/plugins/auth.js';
import { scopedRoute } from '../../platform/http/route.js';
import { listEventsJson } from '../events.js';
import { EventListQuerySchema, EventListResponse } from './event-schemas.js';

export default async function eventRoutes(instance: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/events',
    scopedRoute({
      scope: 'full',
      errors: [422],
      schema: {
        operationId: 'listEvents',
        tags: ['Events'],
        summary: 'List events',
        description:
          'The brand’s events (lead.created, lead.status_changed, customer.created, customer.updated), newest first by (createdAt, id); `order=asc` for oldest first. Each carries the lead (or the customer) as it was after the change. Follow `nextCursor` to page. Webhook deliveries carry the same JSON.',
        querystring: EventListQuerySchema,
        response: { 200: EventListResponse },
      },
    }),
    async (request, reply) => {
      const query = request.query;
      // Ready JSON (the bytes webhooks carry), sent as it is: the response schema documents it.
      const json = await listEventsJson(deps.database, principalOf(request).brandId, {
        ...pagingFrom(query),
        ...timestampsFrom(query, ['createdAfter'] as const),
        type: query.type,
      });
      return reply.type('application/json; charset=utf-8').send(json);
    },
  );
}
