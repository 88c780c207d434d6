// POST /v1/customers/{id}/merge: merges a duplicate customer into this one (scope full).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { CustomerDetailSchema } from '../../customers/customers.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { principalOf } from '../../platform/http/plugins/auth.js';
import { type ApiApp, scopedRoute } from '../../platform/http/route.js';
import { IdParams } from '../../platform/http/schemas.js';
import { mergeCustomers } from '../merge.js';

export const CustomerMergeBody = Type.Object(
  {
    from: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'cus_… identifier of the duplicate customer to merge into this one; it is removed.',
      examples: ['cus_7m2k9q4x8z1c5v3b6n0p2r4t6w'],
    }),
  },
  { additionalProperties: false, title: 'CustomerMerge' },
);

function mergeCustomerRoute(app: ApiApp, deps: RouteDeps) {
  app.post(
    '/v1/customers/:id/merge',
    scopedRoute({
      scope: 'full',
      errors: [400, 404, 409, 415, 422],
      schema: {
        operationId: 'mergeCustomers',
        tags: ['Customers'],
        summary: 'Merge a duplicate customer into this one',
        description:
          'Moves every lead and work item of `from` (with their notes, attachments and history) and every address to this customer (an address that is the same place as one of this customer’s becomes that one), fills this customer’s empty fields from `from` without overwriting any, moves `from`’s history here and removes `from`: its id answers 404 from then on. Fires `customer.merged` with `data.customer` (this customer afterwards) and `data.from` (the removed customer as it was); no `customer.updated`. Returns this customer as `GET /v1/customers/{id}` does. `from` equal to the id is a 422; an unknown `from` (or another brand’s) a 404 that names it; an erased customer on either side a 409. All in one transaction.',
        params: IdParams,
        body: CustomerMergeBody,
        response: { 200: CustomerDetailSchema },
      },
    }),
    async (request) => {
      const principal = principalOf(request);
      const { id } = request.params;
      const actor = { type: 'key' as const, id: principal.keyId, name: principal.keyName };
      const merged = await mergeCustomers(deps.database, principal.brandId, id, request.body.from, actor);
      request.log.info(
        {
          brandId: principal.brandId,
          customerId: id,
          from: request.body.from,
          actor: { type: 'key', id: actor.id },
        },
        'customers merged',
      );
      return merged.customer;
    },
  );
}

export default async function customerMergeRoutes(instance: FastifyInstance, { deps }: { deps: RouteDeps }) {
  mergeCustomerRoute(instance.withTypeProvider<TypeBoxTypeProvider>(), deps);
}
