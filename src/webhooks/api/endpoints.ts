// The webhook routes of the API: endpoints (CRUD, secret rotation) and their delivery logs.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pagingFrom } from '../../leads/api/list-query.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { principalOf } from '../../platform/http/plugins/auth.js';
import { type ApiApp, scopedRoute } from '../../platform/http/route.js';
import { IdParams } from '../../platform/http/schemas.js';
import { listDeliveries, resendDelivery } from '../deliveries.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookSecret,
  type UrlChecker,
  updateWebhookEndpoint,
} from '../endpoints.js';
import { checkWebhookUrl } from '../url-guard.js';
import {
  DeliveryParams,
  RotatedSecretSchema,
  WebhookDeliveryListResponse,
  WebhookDeliverySchema,
  WebhookEndpointCreateBody,
  WebhookEndpointListQuery,
  WebhookEndpointListResponse,
  WebhookEndpointSchema,
  WebhookEndpointUpdateBody,
  WebhookEndpointWithSecretSchema,
} from './schemas.js';

const TAGS = ['Webhooks'];

const brandOf = (request: FastifyRequest) => principalOf(request).brandId;
const idOf = (request: { params: { id: string } }) => request.params.id;

function urlChecker(deps: RouteDeps): UrlChecker {
  const { allowHttp, allowPrivate } = deps.config.webhooks;
  return (url) => checkWebhookUrl(url, { allowHttp, allowPrivate });
}

function createEndpointRoute(app: ApiApp, deps: RouteDeps) {
  app.post(
    '/v1/webhook-endpoints',
    scopedRoute({
      scope: 'full',
      errors: [400, 415, 422],
      schema: {
        operationId: 'createWebhookEndpoint',
        tags: TAGS,
        summary: 'Create a webhook endpoint',
        description:
          'Events of the chosen types (default: all) are POSTed to the URL, signed with the returned secret. The secret is shown only in this response.',
        body: WebhookEndpointCreateBody,
        response: { 201: WebhookEndpointWithSecretSchema },
      },
    }),
    async (request, reply) => {
      const endpoint = await createWebhookEndpoint(
        deps.database,
        brandOf(request),
        request.body,
        urlChecker(deps),
      );
      return reply.code(201).header('Location', `/v1/webhook-endpoints/${endpoint.id}`).send(endpoint);
    },
  );
}

function listEndpointsRoute(app: ApiApp, deps: RouteDeps) {
  app.get(
    '/v1/webhook-endpoints',
    scopedRoute({
      scope: 'full',
      errors: [422],
      schema: {
        operationId: 'listWebhookEndpoints',
        tags: TAGS,
        summary: 'List webhook endpoints',
        description: 'Newest first, with the list envelope and cursor paging. Secrets are never listed.',
        querystring: WebhookEndpointListQuery,
        response: { 200: WebhookEndpointListResponse },
      },
    }),
    async (request) => listWebhookEndpoints(deps.database, brandOf(request), pagingFrom(request.query)),
  );
}

function getEndpointRoute(app: ApiApp, deps: RouteDeps) {
  app.get(
    '/v1/webhook-endpoints/:id',
    scopedRoute({
      scope: 'full',
      errors: [404],
      schema: {
        operationId: 'getWebhookEndpoint',
        tags: TAGS,
        summary: 'Read a webhook endpoint',
        description:
          'Says whether it is enabled and, when it was disabled after failing, since when and why.',
        params: IdParams,
        response: { 200: WebhookEndpointSchema },
      },
    }),
    async (request) => getWebhookEndpoint(deps.database, brandOf(request), idOf(request)),
  );
}

function updateEndpointRoute(app: ApiApp, deps: RouteDeps) {
  app.patch(
    '/v1/webhook-endpoints/:id',
    scopedRoute({
      scope: 'full',
      errors: [400, 404, 415, 422],
      schema: {
        operationId: 'updateWebhookEndpoint',
        tags: TAGS,
        summary: 'Change a webhook endpoint',
        description:
          'Any of url, events, description, enabled. `enabled: false` stops deliveries (pending ones are dropped); `enabled: true` resumes them.',
        params: IdParams,
        body: WebhookEndpointUpdateBody,
        response: { 200: WebhookEndpointSchema },
      },
    }),
    async (request) =>
      updateWebhookEndpoint(deps.database, brandOf(request), idOf(request), request.body, urlChecker(deps)),
  );
}

function deleteEndpointRoute(app: ApiApp, deps: RouteDeps) {
  app.delete(
    '/v1/webhook-endpoints/:id',
    scopedRoute({
      scope: 'full',
      errors: [404],
      schema: {
        operationId: 'deleteWebhookEndpoint',
        tags: TAGS,
        summary: 'Delete a webhook endpoint',
        description: 'Stops deliveries at once and deletes the endpoint’s delivery log.',
        params: IdParams,
        response: {
          204: { type: 'null', description: 'Deleted.' },
        },
      },
    }),
    async (request, reply) => {
      await deleteWebhookEndpoint(deps.database, brandOf(request), idOf(request));
      return reply.code(204).send();
    },
  );
}

function rotateSecretRoute(app: ApiApp, deps: RouteDeps) {
  app.post(
    '/v1/webhook-endpoints/:id/rotate-secret',
    scopedRoute({
      scope: 'full',
      errors: [404, 409],
      schema: {
        operationId: 'rotateWebhookSecret',
        tags: TAGS,
        summary: 'Rotate the signing secret',
        description:
          'Returns a new secret (shown only now). For 24 hours deliveries carry two v1 signatures, one per secret, so receivers can switch without rejecting any.',
        params: IdParams,
        response: { 200: RotatedSecretSchema },
      },
    }),
    async (request) => rotateWebhookSecret(deps.database, brandOf(request), idOf(request)),
  );
}

function listDeliveriesRoute(app: ApiApp, deps: RouteDeps) {
  app.get(
    '/v1/webhook-endpoints/:id/deliveries',
    scopedRoute({
      scope: 'full',
      errors: [404, 422],
      schema: {
        operationId: 'listWebhookDeliveries',
        tags: TAGS,
        summary: 'List an endpoint’s deliveries',
        description:
          'The delivery log, newest first: status, attempts, the last response code and duration, and when the next attempt is due.',
        params: IdParams,
        querystring: WebhookEndpointListQuery,
        response: { 200: WebhookDeliveryListResponse },
      },
    }),
    async (request) =>
      listDeliveries(deps.database, brandOf(request), idOf(request), pagingFrom(request.query)),
  );
}

function resendDeliveryRoute(app: ApiApp, deps: RouteDeps) {
  app.post(
    '/v1/webhook-endpoints/:id/deliveries/:deliveryId/resend',
    scopedRoute({
      scope: 'full',
      errors: [404, 409],
      schema: {
        operationId: 'resendWebhookDelivery',
        tags: TAGS,
        summary: 'Send a delivery’s event again',
        description:
          'Queues the event for this endpoint again, due now, as a new delivery (returned) with its own log entry.',
        params: DeliveryParams,
        response: { 202: WebhookDeliverySchema },
      },
    }),
    async (request, reply) => {
      const { id, deliveryId } = request.params;
      const delivery = await resendDelivery(deps.database, brandOf(request), id, deliveryId);
      return reply.code(202).send(delivery);
    },
  );
}

export default async function webhookEndpointRoutes(
  instance: FastifyInstance,
  { deps }: { deps: RouteDeps },
) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  for (const route of [
    createEndpointRoute,
    listEndpointsRoute,
    getEndpointRoute,
    updateEndpointRoute,
    deleteEndpointRoute,
    rotateSecretRoute,
    listDeliveriesRoute,
    resendDeliveryRoute,
  ]) {
    route(app, deps);
  }
}
