// Merging a duplicate customer from the customer page: GET /dashboard/customers/:id/merge?from=cus_… confirms
// (both customers and what will happen; it works without a script), its POST merges and goes back to the kept
// customer with a notice.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hidden, userActor, userOf, userPage } from '../../accounts/dashboard/session.js';
import type { SessionUser } from '../../accounts/sessions.js';
import { type CustomerDetail, customerErasedAt, getCustomer } from '../../customers/customers.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { pathParam, seeOther, sendPage, text } from '../../platform/web/http.js';
import { DomainError, NotFoundError, ValidationError } from '../../shared/errors.js';
import { translator } from '../../shared/i18n/index.js';
import { mergeCustomers } from '../merge.js';
import { mergePage } from './merge-view.js';

/** Why `from` cannot be merged into `keep` (in the reader's words), or nothing. */
async function problemWith(
  deps: RouteDeps,
  user: SessionUser,
  keep: CustomerDetail,
  from: string,
): Promise<{ problem?: string; status: number; customer?: CustomerDetail }> {
  const tr = translator(user.locale);
  if (!from) return { problem: tr.t('customer.merge.noId'), status: 422 };
  if (from === keep.id) return { problem: tr.t('customer.merge.same'), status: 422 };
  let customer: CustomerDetail;
  try {
    customer = await getCustomer(deps.database, user.brandId, from);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    return { problem: tr.t('customer.merge.unknown', { id: from }), status: 404 };
  }
  for (const c of [keep, customer]) {
    if ((await customerErasedAt(deps.database, user.brandId, c.id)) !== null) {
      return { problem: tr.t('customer.merge.erased', { id: c.id }), status: 409, customer };
    }
  }
  return { status: 200, customer };
}

async function showMerge(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const keep = await getCustomer(deps.database, user.brandId, pathParam(request, 'id'));
  const typed = text(request.query, 'from').trim();
  const { problem, status, customer } = await problemWith(deps, user, keep, typed);
  return sendPage(reply, mergePage({ user, keep, from: customer, typed, problem }), status);
}

async function postMerge(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const id = pathParam(request, 'id');
  const from = text(request.body, 'from').trim();
  const { id: userId, name } = userActor(user);
  const actor = { type: 'user' as const, id: userId, name };
  try {
    await mergeCustomers(deps.database, user.brandId, id, from, actor);
  } catch (error) {
    // The page again, saying why (someone merged or erased one of them meanwhile, or the id names nobody).
    if (error instanceof ValidationError || (error instanceof DomainError && error.code !== 'unavailable')) {
      const keep = await getCustomer(deps.database, user.brandId, id);
      const { problem, status, customer } = await problemWith(deps, user, keep, from);
      if (problem)
        return sendPage(reply, mergePage({ user, keep, from: customer, typed: from, problem }), status);
    }
    throw error;
  }
  request.log.info(
    { brandId: user.brandId, customerId: id, from, actor: { type: actor.type, id: actor.id } },
    'customers merged',
  );
  return seeOther(reply, `/dashboard/customers/${encodeURIComponent(id)}?done=merged`);
}

export default async function customerMergeRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  app.get('/customers/:id/merge', { schema: hidden, config: userPage }, (request, reply) =>
    showMerge(deps, request, reply),
  );
  app.post('/customers/:id/merge', { schema: hidden, config: userPage }, (request, reply) =>
    postMerge(deps, request, reply),
  );
}
