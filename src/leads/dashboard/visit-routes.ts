// Planning a lead's visit from its page: the Schedule form (with the state change to scheduled, from
// status-routes.ts) and "Change visit" on the page of an open work item.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { userActor, userOf } from '../../accounts/dashboard/session.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { notice } from '../../platform/web/components.js';
import { pathParam, seeOther } from '../../platform/web/http.js';
import { InvalidTransitionError, ValidationError } from '../../shared/errors.js';
import { NotPlannableError, patchLead } from '../index.js';
import { showLead } from './lead-page.js';
import { parseVisitForm } from './visit-form.js';

const hidden = { hide: true };
const userPage = { page: 'user' as const };

/**
 * The Schedule form (status 'scheduled') and Change visit (no status): the visit as typed in the brand's time
 * zone, through the same domain call as PATCH /v1/leads/{id}.
 */
export async function planVisit(
  deps: RouteDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
  status?: 'scheduled',
) {
  const user = userOf(request);
  const form = parseVisitForm(request.body, user.timeZone);
  if (form.errors.length) return showLead(deps, reply, user, id, undefined, 422, { visitForm: form });
  try {
    await patchLead(deps.database, user.brandId, id, { status, plan: form.plan }, userActor(user));
  } catch (error) {
    if (error instanceof ValidationError) {
      const errors = error.errors.map((e) =>
        e.field === 'assigneeId' ? { ...e, message: 'must be someone of this brand, or nobody yet' } : e,
      );
      return showLead(deps, reply, user, id, undefined, 422, { visitForm: { values: form.values, errors } });
    }
    if (error instanceof InvalidTransitionError || error instanceof NotPlannableError) {
      return showLead(deps, reply, user, id, notice(error.message, 'error'), 409);
    }
    throw error;
  }
  return seeOther(reply, `/dashboard/leads/${id}?${status ? `moved=${status}` : 'visit=saved'}`);
}

export default async function visitRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  // "Change visit" on the page of an open work item.
  app.post('/leads/:id/visit', { schema: hidden, config: userPage }, async (request, reply) =>
    planVisit(deps, request, reply, pathParam(request, 'id')),
  );
}
