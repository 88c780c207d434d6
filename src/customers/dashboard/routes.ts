// One customer's page. Another brand's or an unknown id is the dashboard's 404 (getCustomer's NotFoundError).
import type { FastifyInstance } from 'fastify';
import { hidden, userOf, userPage } from '../../accounts/dashboard/session.js';
import { listCustomerLeads } from '../../leads/index.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { notice } from '../../platform/web/components.js';
import { pathParam, sendPage, text } from '../../platform/web/http.js';
import { translator } from '../../shared/i18n/index.js';
import { getCustomer } from '../customers.js';
import { customerPage } from './views.js';

export default async function customerRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  app.get('/customers/:id', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const id = pathParam(request, 'id');
    const customer = await getCustomer(deps.database, user.brandId, id);
    const leads = await listCustomerLeads(deps.database, user.brandId, id);
    const done = text(request.query, 'done');
    const message = done === 'erased' ? notice(translator(user.locale).t('erase.notice.done')) : undefined;
    return sendPage(reply, customerPage({ user, customer, leads, message }));
  });
}
