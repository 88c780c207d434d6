// The OpenAPI 3.1 document, built from the route schemas, served at /v1/openapi.json and browsable at /docs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { SCOPE_DESCRIPTIONS } from '../domain/api-keys.js';

/** Call before the routes: @fastify/swagger only describes routes added after it. */
export async function registerOpenApi(app: FastifyInstance, config: Readonly<Config>): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'lead-intake API',
        version: '1.0.0',
        description:
          'Take in job requests (leads) from website forms and hand leads and work items to CRMs, BI tools, spreadsheets and automation tools. Authenticate with the X-API-Key header; each key belongs to one brand and has scopes. Errors are RFC 9457 problem+json.',
      },
      servers: [{ url: config.publicUrl }],
      tags: [
        { name: 'Leads', description: 'Job requests in states request and quoted.' },
        {
          name: 'Customers',
          description: 'The people and businesses leads come from, linked by email or phone.',
        },
        {
          name: 'Work items',
          description: 'Leads that have been scheduled: scheduled, planned, in_progress, completed.',
        },
        { name: 'Addresses', description: 'Where the work is done.' },
        {
          name: 'Notes',
          description:
            'Internal notes on leads and work items, by office staff or API keys; never sent to the customer.',
        },
        {
          name: 'Events',
          description:
            'What happened to leads, notes and customers (lead.created, lead.status_changed, lead.updated, note.created, customer.created, customer.updated), for polling or webhooks.',
        },
        {
          name: 'Webhooks',
          description: 'Endpoints that receive events as signed POSTs, and their delivery logs.',
        },
        {
          name: 'Forms',
          description:
            'Website forms that post leads without a secret in the page, and the public endpoint they post to.',
        },
      ],
      components: {
        securitySchemes: {
          ApiKeyAuth: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: `API key (lik_…). Scopes: ${Object.entries(SCOPE_DESCRIPTIONS)
              .map(([scope, text]) => `\`${scope}\`: ${text}`)
              .join(' ')}`,
          },
          BearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'The same API key (lik_…) as `Authorization: Bearer <key>`; either header works.',
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    uiConfig: { url: '/v1/openapi.json' } as never,
  });
}

/**
 * Call after the plugins: Fastify gives a route only the hooks registered before it, and this route should
 * pass through all of them.
 */
export function serveOpenApiDocument(app: FastifyInstance): void {
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
