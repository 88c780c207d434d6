// GET /v1/customers/{id}/export: everything the brand holds about one person, as one JSON document (a download).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../platform/http/deps.js';
import { principalOf } from '../../platform/http/plugins/auth.js';
import { scopedRoute } from '../../platform/http/route.js';
import { IdParams } from '../../platform/http/schemas.js';
import { exportFileName, exportPersonalData, PersonalDataExportSchema } from '../export.js';

const DESCRIPTION =
  'Everything the brand holds about one person, as one JSON document sent as a download (`Content-Disposition: attachment`, never cached): the customer, their addresses, every lead and work item of theirs in any state (spam too) as `GET /v1/leads/{id}` reads it (submitted contact, address, status history, attachments’ metadata, consent, extra fields, attribution) with its internal notes (`internalNotes`) and activity, and what was done to the customer. Attachments’ bytes: `GET /v1/attachments/{id}/content` (the dashboard’s “Download personal data” gives a ZIP with them).\n\n' +
  'Each export is recorded in the customer’s activity (`exported`, naming the key). An erased customer’s export is their erased read (`erased`, `erasedAt`, no contact) with no other data. Another brand’s or an unknown id is a 404.';

export default async function personalDataExportRoutes(
  instance: FastifyInstance,
  { deps }: { deps: RouteDeps },
) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const options = scopedRoute({
    scope: 'full',
    errors: [404],
    schema: {
      operationId: 'exportCustomerPersonalData',
      tags: ['Customers'],
      summary: 'Export a customer’s personal data',
      description: DESCRIPTION,
      params: IdParams,
      response: { 200: PersonalDataExportSchema },
    },
  });
  app.get('/v1/customers/:id/export', options, async function exportCustomer(request, reply) {
    const principal = principalOf(request);
    const actor = { type: 'key' as const, id: principal.keyId, name: principal.keyName };
    const { id } = request.params;
    const built = await exportPersonalData(deps.database, principal.brandId, id, actor, request.log);
    reply
      .header('Content-Disposition', `attachment; filename="${exportFileName(id, 'json')}"`)
      .header('Cache-Control', 'no-store');
    return built.document;
  });
}
