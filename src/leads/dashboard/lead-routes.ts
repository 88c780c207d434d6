// One lead's page, and "Use these details": the contact details it was submitted with become the customer's.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hidden, userActor, userOf, userPage } from '../../accounts/dashboard/session.js';
import type { SessionUser } from '../../accounts/sessions.js';
import { listCustomers } from '../../customers/customers.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { customerHref, notice } from '../../platform/web/components.js';
import { html, type SafeHtml } from '../../platform/web/html.js';
import { pathParam, seeOther, text } from '../../platform/web/http.js';
import { richText } from '../../platform/web/messages.js';
import { DomainError } from '../../shared/errors.js';
import { type Translator, translator } from '../../shared/i18n/index.js';
import { getLead, submittedDifferences, useSubmittedDetails } from '../index.js';
import { isStatus } from '../states.js';
import { showLead } from './lead-page.js';
import { noteAddedNotice, parseFeedFilter } from './views/lead-timeline.js';
import { detailsAppliedNotice, leadChangedNotice, leadEditedNotice } from './views/leads.js';

/** The message on top of the page after a change, as the redirect to it names it. */
function messageOf(tr: Translator, query: unknown): SafeHtml | undefined {
  const moved = text(query, 'moved');
  const applied = text(query, 'applied');
  const edited = text(query, 'edited');
  return isStatus(moved)
    ? leadChangedNotice(tr, moved)
    : applied
      ? detailsAppliedNotice(tr, applied)
      : text(query, 'noted')
        ? noteAddedNotice(tr)
        : text(query, 'created')
          ? notice(tr.t('lead.notice.created'))
          : edited
            ? leadEditedNotice(tr, edited)
            : text(query, 'visit') === 'saved'
              ? notice(tr.t('lead.notice.visitSaved'))
              : filesNotice(tr, text(query, 'files'));
}

/** After files were added or one deleted on the page. */
function filesNotice(tr: Translator, files: string): SafeHtml | undefined {
  if (files === 'added') return notice(tr.t('lead.notice.filesAdded'));
  if (files === 'deleted') return notice(tr.t('lead.notice.fileDeleted'));
  return undefined;
}

/** Why the details were not applied, with a link to the customer who already has the submitted email. */
async function conflictNotice(
  deps: RouteDeps,
  user: SessionUser,
  leadId: string,
  message: string,
): Promise<SafeHtml> {
  const tr = translator(user.locale);
  const lead = await getLead(deps.database, user.brandId, leadId);
  const email = submittedDifferences(lead).find((d) => d.field === 'email')?.submitted;
  const other = email
    ? (await listCustomers(deps.database, user.brandId, { limit: 1, order: 'desc', email })).data[0]
    : undefined;
  return notice(
    !email
      ? message
      : other
        ? richText(tr, 'lead.notice.emailTakenOpen', {
            email,
            link: (inner) => html`<a href="${customerHref(other.id)}">${inner}</a>`,
          })
        : tr.t('lead.notice.emailTaken', { email }),
    'error',
  );
}

// "Use these details": the contact details the lead was submitted with become the customer's (customer.updated),
// recorded in the lead's history with the signed-in user.
async function useSubmitted(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const id = pathParam(request, 'id');
  let changed: string[];
  try {
    changed = await useSubmittedDetails(deps.database, user.brandId, id, userActor(user));
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== 'conflict') throw error;
    return showLead(deps, reply, user, id, await conflictNotice(deps, user, id, error.message), 409);
  }
  const applied = changed.length ? changed.join(',') : 'none';
  return seeOther(reply, `/dashboard/leads/${id}?applied=${encodeURIComponent(applied)}`);
}

export default async function leadPageRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  app.get('/leads/:id', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const id = pathParam(request, 'id');
    const feed = parseFeedFilter(text(request.query, 'show'));
    // Just planned (Schedule, Change visit): the warnings of the visit as saved, under the notice.
    const planWarnings =
      text(request.query, 'visit') === 'saved' || text(request.query, 'moved') === 'scheduled';
    const message = messageOf(translator(user.locale), request.query);
    return showLead(deps, reply, user, id, message, 200, { feed, planWarnings });
  });
  app.post('/leads/:id/use-submitted', { schema: hidden, config: userPage }, (request, reply) =>
    useSubmitted(deps, request, reply),
  );
}
