// The customers list (list-routes.ts), one customer's page, and its Edit page. Another brand's or an unknown id
// is the dashboard's 404 (getCustomer's NotFoundError).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hidden, userActor, userOf, userPage } from '../../accounts/dashboard/session.js';
import type { SessionUser } from '../../accounts/sessions.js';
import { listCustomerLeads } from '../../leads/index.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { doneNotice } from '../../platform/web/components.js';
import { pathParam, seeOther, sendPage, text } from '../../platform/web/http.js';
import { type FieldError, ValidationError } from '../../shared/errors.js';
import { translator } from '../../shared/i18n/index.js';
import { listCustomerActivity } from '../activity.js';
import { getCustomer } from '../customers.js';
import { EDITABLE_CONTACT_FIELDS, EmailTakenError, editCustomer } from '../edit.js';
import { listDuplicates } from '../merge.js';
import { editCustomerPage, editCustomerValues } from './edit-view.js';
import customerListRoutes from './list-routes.js';
import { customerPage } from './views.js';

const DONE = {
  edited: 'customer.notice.edited',
  unchanged: 'lead.notice.nothingChanged',
  merged: 'customer.notice.merged',
  erased: 'erase.notice.done',
} as const;

async function showCustomer(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const id = pathParam(request, 'id');
  const customer = await getCustomer(deps.database, user.brandId, id);
  const leads = await listCustomerLeads(deps.database, user.brandId, id);
  const activity = await listCustomerActivity(deps.database, user.brandId, id);
  // An erased customer has nothing left to compare.
  const duplicates = customer.erased ? [] : await listDuplicates(deps.database, user.brandId, customer);
  const message = doneNotice(request, translator(user.locale), DONE);
  return sendPage(reply, customerPage({ user, customer, leads, activity, duplicates, message }));
}

async function showEdit(
  deps: RouteDeps,
  reply: FastifyReply,
  user: SessionUser,
  id: string,
  typed?: { values: Record<string, string>; errors: readonly FieldError[]; emailTakenBy?: string },
) {
  const customer = await getCustomer(deps.database, user.brandId, id);
  const values = typed?.values ?? editCustomerValues(customer, user.brandCountry);
  const errors = typed?.errors ?? [];
  const page = editCustomerPage({ user, customer, values, errors, emailTakenBy: typed?.emailTakenBy });
  return sendPage(reply, page, errors.length ? (typed?.emailTakenBy ? 409 : 422) : 200);
}

async function postEdit(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const id = pathParam(request, 'id');
  const values = Object.fromEntries(EDITABLE_CONTACT_FIELDS.map((name) => [name, text(request.body, name)]));
  const { id: userId, name } = userActor(user);
  try {
    const actor = { type: 'user' as const, id: userId, name };
    const { changed } = await editCustomer(deps.database, user.brandId, id, values, actor, { all: true });
    const done = changed.length ? 'edited' : 'unchanged';
    return seeOther(reply, `/dashboard/customers/${encodeURIComponent(id)}?done=${done}`);
  } catch (error) {
    if (error instanceof ValidationError)
      return showEdit(deps, reply, user, id, { values, errors: error.errors });
    if (error instanceof EmailTakenError) {
      const taken: FieldError = {
        field: 'email',
        message: error.message,
        text: { key: 'customer.edit.emailTaken' },
      };
      return showEdit(deps, reply, user, id, {
        values,
        errors: [taken],
        emailTakenBy: error.otherCustomerId,
      });
    }
    throw error;
  }
}

export default async function customerRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  await app.register(customerListRoutes, { deps });
  app.get('/customers/:id', { schema: hidden, config: userPage }, (request, reply) =>
    showCustomer(deps, request, reply),
  );
  app.get('/customers/:id/edit', { schema: hidden, config: userPage }, (request, reply) =>
    showEdit(deps, reply, userOf(request), pathParam(request, 'id')),
  );
  app.post('/customers/:id/edit', { schema: hidden, config: userPage }, (request, reply) =>
    postEdit(deps, request, reply),
  );
}
