// The dashboard's state change: the same rules and the same domain call as PATCH /v1/leads/{id}, by the signed-in
// user. Completing and cancelling are confirmed first on a page of its own, which asks a cancellation's
// reason; `from` is the state the page showed, so a stale tab changes nothing.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hidden, userActor, userOf, userPage } from '../../accounts/dashboard/session.js';
import type { SessionUser } from '../../accounts/sessions.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { notice } from '../../platform/web/components.js';
import { pathParam, seeOther, sendPage, text } from '../../platform/web/http.js';
import { InvalidTransitionError, ValidationError } from '../../shared/errors.js';
import { translator } from '../../shared/i18n/index.js';
import { changeLeadStatus, getLead, MAX_REASON_LENGTH, parseReason } from '../index.js';
import { allowedTransitions, isStatus, type Status } from '../states.js';
import { showLead } from './lead-page.js';
import { confirmStatusPage, needsConfirmation, staleStateNotice } from './views/lead-timeline.js';
import { planVisit } from './visit-routes.js';

/** The confirmation page again, saying the cancellation's reason is too long. */
async function reasonTooLong(
  deps: RouteDeps,
  reply: FastifyReply,
  user: SessionUser,
  id: string,
  status: Status,
  reasonText: string,
) {
  const lead = await getLead(deps.database, user.brandId, id);
  const length = [...reasonText.trim()].length;
  const reasonError = translator(user.locale).t('lead.confirm.reasonTooLong', {
    max: MAX_REASON_LENGTH,
    length,
  });
  return sendPage(reply, confirmStatusPage({ user, lead, status, reason: reasonText, reasonError }), 422);
}

async function changeStatus(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const { database } = deps;
  const user = userOf(request);
  const tr = translator(user.locale);
  const id = pathParam(request, 'id');
  const status = text(request.body, 'status');
  if (!isStatus(status)) {
    const message = notice(tr.t('lead.notice.unknownState', { status }), 'error');
    return showLead(deps, reply, user, id, message, 422);
  }
  const sentFrom = text(request.body, 'from');
  const from = isStatus(sentFrom) ? sentFrom : undefined;
  const reasonText = text(request.body, 'reason');
  const stale = async () => {
    const lead = await getLead(database, user.brandId, id);
    const changed = from !== undefined && from !== lead.status;
    return showLead(deps, reply, user, id, staleStateNotice(tr, lead, status, changed), 409);
  };
  if (status === 'scheduled') {
    // A Schedule form from a page that showed another state changes nothing, like any stale button.
    if (from !== undefined && from !== (await getLead(database, user.brandId, id)).status) return stale();
    return planVisit(deps, request, reply, id, status);
  }
  if (needsConfirmation(status) && text(request.body, 'confirm') !== 'yes') {
    const lead = await getLead(database, user.brandId, id);
    if ((from !== undefined && from !== lead.status) || !allowedTransitions(lead.status).includes(status)) {
      return stale();
    }
    return sendPage(reply, confirmStatusPage({ user, lead, status }));
  }
  let reason: string | null = null;
  if (status === 'cancelled') {
    try {
      reason = parseReason(reasonText);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return reasonTooLong(deps, reply, user, id, status, reasonText);
    }
  }
  try {
    await changeLeadStatus(database, user.brandId, id, status, userActor(user), {
      reason,
      ...(from !== undefined ? { from } : {}),
    });
  } catch (error) {
    if (!(error instanceof InvalidTransitionError)) throw error;
    return stale();
  }
  return seeOther(reply, `/dashboard/leads/${id}?moved=${status}`);
}

export default async function statusRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  app.post('/leads/:id/status', { schema: hidden, config: userPage }, (request, reply) =>
    changeStatus(deps, request, reply),
  );
}
