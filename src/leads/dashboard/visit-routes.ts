// Planning a lead's visit from its page: the Schedule form (with the state change to scheduled, from
// status-routes.ts) and "Change visit" on the page of an open work item.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hidden, userActor, userOf, userPage } from '../../accounts/dashboard/session.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { notice } from '../../platform/web/components.js';
import { pathParam, seeOther } from '../../platform/web/http.js';
import { InvalidTransitionError, ValidationError } from '../../shared/errors.js';
import { translator } from '../../shared/i18n/index.js';
import { getLead, NotPlannableError, patchLead } from '../index.js';
import { showLead } from './lead-page.js';
import { statusLabel } from './views/labels.js';
import { staleStateNotice } from './views/lead-timeline.js';
import { ASSIGNEE_ERROR, parseVisitForm } from './visit-form.js';

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
      const errors = error.errors.map((e) => (e.field === 'assigneeId' ? ASSIGNEE_ERROR : e));
      return showLead(deps, reply, user, id, undefined, 422, { visitForm: { values: form.values, errors } });
    }
    const tr = translator(user.locale);
    if (error instanceof NotPlannableError) {
      const message = tr.t('visit.error.notPlannable', {
        status: error.currentStatus,
        state: statusLabel(tr, error.currentStatus),
      });
      return showLead(deps, reply, user, id, notice(message, 'error'), 409);
    }
    if (error instanceof InvalidTransitionError) {
      const lead = await getLead(deps.database, user.brandId, id);
      return showLead(deps, reply, user, id, staleStateNotice(tr, lead, 'scheduled', false), 409);
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
