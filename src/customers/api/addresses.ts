// GET /v1/addresses (and its alias /address): the brand's addresses.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { pagingFrom, timestampsFrom } from '../../leads/api/list-query.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { principalOf } from '../../platform/http/plugins/auth.js';
import { type RequestFor, scopedRoute } from '../../platform/http/route.js';
import { ListQuery, listEnvelope, TimestampParam } from '../../platform/http/schemas.js';
import { AddressSchema, listAddresses } from '../addresses.js';

const AddressListQuerySchema = Type.Object(
  {
    ...ListQuery,
    createdAfter: TimestampParam('ISO 8601; only addresses created after it (exclusive).'),
    createdBefore: TimestampParam('ISO 8601; only addresses created before it (exclusive).'),
  },
  { additionalProperties: false },
);

export default async function addressRoutes(instance: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const options = (alias: boolean) =>
    scopedRoute({
      scope: 'full',
      errors: [422],
      schema: {
        operationId: alias ? 'listAddressesAlias' : 'listAddresses',
        tags: ['Addresses'],
        summary: alias
          ? 'List addresses (alias of /v1/addresses, as named in the original overview)'
          : 'List addresses',
        description:
          'The brand’s addresses, newest first by (createdAt, id), with the list envelope and cursor paging.',
        querystring: AddressListQuerySchema,
        response: { 200: listEnvelope(AddressSchema, 'AddressList') },
      },
    });
  const handler = async (request: RequestFor<{ querystring: typeof AddressListQuerySchema }>) => {
    const query = request.query;
    return listAddresses(deps.database, principalOf(request).brandId, {
      ...pagingFrom(query),
      ...timestampsFrom(query, ['createdAfter', 'createdBefore'] as const),
    });
  };
  app.get('/v1/addresses', options(false), handler);
  app.get('/address', options(true), handler);
}
