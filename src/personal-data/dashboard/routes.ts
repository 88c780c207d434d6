// The customer page's personal-data actions, for admins:
// - "Download personal data": a ZIP with the export's JSON and the attachments' bytes (like a GDPR export in other
//   CRMs: it hands over everything about a person at once);
// - "Erase": a confirmation page, then the same erasure as the API's.
// A member gets the admin-only page (403) from the access hook before anything is read.
import type { FastifyInstance } from 'fastify';
import { adminPage, hidden, userOf } from '../../accounts/dashboard/session.js';
import { getCustomer } from '../../customers/customers.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { pathParam, seeOther, sendPage, text } from '../../platform/web/http.js';
import type { FieldError } from '../../shared/errors.js';
import { MAX_REASON_LENGTH } from '../api/erase.js';
import { eraseCustomer } from '../erase.js';
import { exportFileName, exportPersonalData } from '../export.js';
import { personalDataZip } from '../zip.js';
import { eraseConfirmPage } from './views.js';

export default async function personalDataRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  app.get(
    '/customers/:id/personal-data.zip',
    { schema: hidden, config: adminPage },
    async function downloadPersonalData(request, reply) {
      const user = userOf(request);
      const id = pathParam(request, 'id');
      const actor = { type: 'user' as const, id: user.userId, name: user.name || user.email };
      const built = await exportPersonalData(deps.database, user.brandId, id, actor, request.log);
      const zip = personalDataZip(deps.database, deps.storage, built);
      zip.on('error', (error) =>
        request.log.error({ err: error, customerId: id }, 'personal data ZIP broke off'),
      );
      return reply
        .type('application/zip')
        .header('Content-Disposition', `attachment; filename="${exportFileName(id, 'zip')}"`)
        .header('Cache-Control', 'no-store')
        .send(zip);
    },
  );

  app.get(
    '/customers/:id/erase',
    { schema: hidden, config: adminPage },
    async function eraseForm(request, reply) {
      const user = userOf(request);
      const customer = await getCustomer(deps.database, user.brandId, pathParam(request, 'id'));
      if (customer.erased) return seeOther(reply, `/dashboard/customers/${customer.id}`);
      return sendPage(reply, eraseConfirmPage({ user, customer, reason: '', errors: [] }));
    },
  );

  app.post(
    '/customers/:id/erase',
    { schema: hidden, config: adminPage },
    async function erase(request, reply) {
      const user = userOf(request);
      const id = pathParam(request, 'id');
      const customer = await getCustomer(deps.database, user.brandId, id);
      const body = request.body as Record<string, unknown> | undefined;
      const reason = (text(body, 'reason') ?? '').trim();
      const errors: FieldError[] = [];
      if (text(body, 'confirm') !== 'yes') errors.push({ field: 'confirm', message: 'must be ticked' });
      if (reason.length > MAX_REASON_LENGTH)
        errors.push({ field: 'reason', message: `must be at most ${MAX_REASON_LENGTH} characters` });
      if (errors.length) return sendPage(reply, eraseConfirmPage({ user, customer, reason, errors }), 422);
      await eraseCustomer(
        { database: deps.database, storage: deps.storage, responses: deps.responses, log: request.log },
        user.brandId,
        id,
        { type: 'user', id: user.userId, name: user.name || user.email },
        reason ? { reason } : {},
      );
      return seeOther(reply, `/dashboard/customers/${id}?done=erased`);
    },
  );
}
