// POST /v1/customers/{id}/erase: erases a customer and every copy of their data (contract "Personal data").
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../platform/http/deps.js';
import { principalOf } from '../../platform/http/plugins/auth.js';
import { scopedRoute } from '../../platform/http/route.js';
import { IdParams, Timestamp } from '../../platform/http/schemas.js';
import { eraseCustomer } from '../erase.js';

export const MAX_REASON_LENGTH = 500;

const EraseBody = Type.Object(
  {
    reason: Type.Optional(
      Type.String({
        maxLength: MAX_REASON_LENGTH,
        description:
          'Why, in the business’s own words (e.g. "request by email of 20 November"); kept in the customer’s history. Put no personal data in it.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ErasureSchema = Type.Object(
  {
    id: Type.String({ description: 'cus_… of the erased customer.' }),
    erasedAt: Timestamp('When the customer was erased (the first time, for an erased customer).'),
    leads: Type.Integer({ description: 'Leads and work items erased now (0 when it was erased before).' }),
    attachments: Type.Integer({ description: 'Attachments removed now, with their files.' }),
  },
  { additionalProperties: false, title: 'Erasure' },
);

export default async function eraseRoutes(instance: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/v1/customers/:id/erase',
    scopedRoute({
      scope: 'full',
      // No body is the same as {} (no reason given).
      bodyOptional: true,
      errors: [400, 404, 413, 415, 422],
      schema: {
        operationId: 'eraseCustomer',
        tags: ['Customers'],
        summary: 'Erase a customer’s personal data',
        description:
          'Erases everything the person gave, at once and for good: the customer’s contact fields, the street, number and addition of their addresses, and of each of their leads and work items the contact as submitted, description, budget, notes field, internal notes, extra fields, attribution, consent and attachments (with their files); also the copies in stored events and webhook deliveries (sent or not), queued and sent mail, idempotency records, the search index and cached responses. Titles, categories, priorities, states, times and planning stay. On SQLite the bytes are gone from the database files when this answers. Fires `customer.erased` (only the id and time) so connected systems can erase too. Erasing an erased customer answers 200 and changes nothing. It cannot be undone.',
        params: IdParams,
        body: EraseBody,
        response: { 200: ErasureSchema },
      },
    }),
    async function erase(request) {
      const principal = principalOf(request);
      return eraseCustomer(
        { database: deps.database, storage: deps.storage, responses: deps.responses, log: request.log },
        principal.brandId,
        request.params.id,
        { type: 'key', id: principal.keyId, name: principal.keyName },
        { reason: request.body?.reason },
      );
    },
  );
}
