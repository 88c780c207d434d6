// Erasing a customer from the dashboard (admins): a confirmation page, then the same erasure as the API's.
import type { FastifyInstance } from 'fastify';
import { adminPage, hidden, userOf } from '../../accounts/dashboard/session.js';
import { getCustomer } from '../../customers/customers.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { pathParam, seeOther, sendPage, text } from '../../platform/web/http.js';
import type { FieldError } from '../../shared/errors.js';
import { MAX_REASON_LENGTH } from '../api/erase.js';
import { eraseCustomer } from '../erase.js';
import { eraseConfirmPage } from './views.js';

export default async function personalDataRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
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
