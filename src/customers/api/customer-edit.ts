// PATCH /v1/customers/{id}: corrects a customer's contact details (scope full, as changes to leads are).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../platform/http/deps.js';
import { principalOf } from '../../platform/http/plugins/auth.js';
import { type ApiApp, scopedRoute } from '../../platform/http/route.js';
import { IdParams } from '../../platform/http/schemas.js';
import { CustomerDetailSchema } from '../customers.js';
import { editCustomer } from '../edit.js';
import { CONTACT_FIELDS } from '../fields.js';

/** Each contact field as an edit sends it: a string, or null to clear an optional one. */
const fieldSchemas: Record<string, TSchema> = Object.fromEntries(
  Object.entries(CONTACT_FIELDS).map(([name, f]) => {
    // Lengths and formats are the domain's (editCustomer), so one 422 names every failing field.
    const text = Type.String();
    const description = f.required ? `${f.description} Required: it cannot be emptied.` : f.description;
    return [
      name,
      Type.Optional(
        f.required ? Type.String({ description }) : Type.Union([text, Type.Null()], { description }),
      ),
    ];
  }),
);

export const CustomerPatchBody = Type.Object(fieldSchemas, {
  additionalProperties: false,
  title: 'CustomerPatch',
  description:
    'The contact fields to change; fields left out stay as they are, `null` (or an empty string) clears an optional one. The values are read as a lead’s are: trimmed, the same lengths, a valid email, the phone in E.164 (international, or national in the brand’s country).',
});

function patchCustomerRoute(app: ApiApp, deps: RouteDeps) {
  app.patch(
    '/v1/customers/:id',
    scopedRoute({
      scope: 'full',
      errors: [400, 404, 409, 415, 422],
      schema: {
        operationId: 'updateCustomer',
        tags: ['Customers'],
        summary: 'Change a customer’s contact details',
        description:
          'Sets any of name, firstName, lastName, companyName, email and phone and returns the customer as `GET /v1/customers/{id}` does. A change fires `customer.updated` with `data.changed` (the fields whose value changed) and is recorded in the customer’s history; a patch that changes nothing fires nothing. A company name makes the customer a business. An email another customer of the brand has is a 409: they are probably the same person, so merge the two (`POST /v1/customers/{id}/merge`). An erased customer is a 409.',
        params: IdParams,
        body: CustomerPatchBody,
        response: { 200: CustomerDetailSchema },
      },
    }),
    async (request) => {
      const principal = principalOf(request);
      const { customer } = await editCustomer(
        deps.database,
        principal.brandId,
        request.params.id,
        request.body,
        {
          type: 'key',
          id: principal.keyId,
          name: principal.keyName,
        },
      );
      return customer;
    },
  );
}

export default async function customerEditRoutes(instance: FastifyInstance, { deps }: { deps: RouteDeps }) {
  patchCustomerRoute(instance.withTypeProvider<TypeBoxTypeProvider>(), deps);
}
