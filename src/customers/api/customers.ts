// GET /v1/customers and GET /v1/customers/{id}: the brand's customers, as leads created and linked them.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { pagingFrom, timestampsFrom } from '../../leads/api/list-query.js';
import { SearchParam } from '../../leads/api/schemas.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { principalOf } from '../../platform/http/plugins/auth.js';
import { scopedRoute } from '../../platform/http/route.js';
import { IdParams, ListQuery, listEnvelope, TimestampParam } from '../../platform/http/schemas.js';
import { CustomerDetailSchema, CustomerSchema, getCustomer, listCustomers } from '../customers.js';

const CustomerListQuerySchema = Type.Object(
  {
    ...ListQuery,
    updatedAfter: TimestampParam('ISO 8601; only customers changed after it (exclusive).'),
    email: Type.Optional(
      Type.String({ maxLength: 254, description: 'Only the customer with this email (case-insensitive).' }),
    ),
    phone: Type.Optional(
      Type.String({
        maxLength: 40,
        description:
          'Only customers with this phone, in any format the lead input accepts (e.g. +31 6 1234 5678).',
        examples: ['+31612345678'],
      }),
    ),
    q: SearchParam('only the customers with a lead or work item (not spam)'),
  },
  { additionalProperties: false },
);

export default async function customerRoutes(instance: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/customers',
    scopedRoute({
      scope: 'customers:read',
      errors: [422],
      schema: {
        operationId: 'listCustomers',
        tags: ['Customers'],
        summary: 'List customers',
        description:
          'The brand’s customers, newest first by (createdAt, id); `order=asc` for oldest first. Follow `nextCursor` to page. A lead links to a customer by email, or by phone where the email does not decide (see Create a lead); linking fills empty fields and never overwrites.',
        querystring: CustomerListQuerySchema,
        response: { 200: listEnvelope(CustomerSchema, 'CustomerList') },
      },
    }),
    async (request) => {
      const query = request.query;
      return listCustomers(deps.database, principalOf(request).brandId, {
        ...pagingFrom(query),
        ...timestampsFrom(query, ['updatedAfter'] as const),
        email: query.email,
        phone: query.phone,
        search: query.q,
      });
    },
  );

  app.get(
    '/v1/customers/:id',
    scopedRoute({
      scope: 'customers:read',
      errors: [404],
      schema: {
        operationId: 'getCustomer',
        tags: ['Customers'],
        summary: 'Read one customer',
        description:
          'The customer with how many leads and work items it has (in any state) and when the latest was received. List them with `GET /v1/leads?customerId=…` and `GET /v1/work-items?customerId=…`.',
        params: IdParams,
        response: { 200: CustomerDetailSchema },
      },
    }),
    async (request) => getCustomer(deps.database, principalOf(request).brandId, request.params.id),
  );
}
