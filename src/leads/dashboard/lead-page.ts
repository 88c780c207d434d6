// One lead's page as the routes answer it: the lead as it is now, its history, notes and the people a visit can be
// given to, with a message on top and, after a refused post, the form as it was sent.
import type { FastifyReply } from 'fastify';
import type { SessionUser } from '../../accounts/sessions.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { html, type SafeHtml } from '../../platform/web/html.js';
import { sendPage } from '../../platform/web/http.js';
import type { FieldError } from '../../shared/errors.js';
import { translator } from '../../shared/i18n/index.js';
import { getLead, listLeadActivity, listNotes, planningWarnings } from '../index.js';
import { peopleOf } from './planning-routes.js';
import type { FeedFilter, NoteFormState } from './views/lead-timeline.js';
import { leadPage } from './views/leads.js';
import { planningWarningsNotice, type VisitFormState } from './views/visits.js';

/** Notes shown on a lead's page (newest first); the API lists every one. */
const NOTES_SHOWN = 100;

/** One lead's page as it is now, with a message on top (and the visit form as sent, when it had problems). */
export async function showLead(
  deps: RouteDeps,
  reply: FastifyReply,
  user: SessionUser,
  id: string,
  message: SafeHtml | undefined,
  status = 200,
  extra: {
    feed?: FeedFilter;
    noteForm?: NoteFormState;
    visitForm?: VisitFormState;
    fileErrors?: readonly FieldError[];
    /** The visit was just saved: say below the message what it should make someone look at twice. */
    planWarnings?: boolean;
  } = {},
) {
  const { database } = deps;
  const { planWarnings, ...rest } = extra;
  const lead = await getLead(database, user.brandId, id);
  if (planWarnings) {
    const warnings = await planningWarnings(database, user.brandId, lead);
    const shown = planningWarningsNotice(translator(user.locale), warnings);
    if (shown) message = html`${message ?? ''}${shown}`;
  }
  const activity = await listLeadActivity(database, user.brandId, id);
  const notes = await listNotes(database, user.brandId, id, { limit: NOTES_SHOWN, order: 'desc' });
  const people = await peopleOf(deps, user.brandId);
  return sendPage(
    reply,
    leadPage({
      user,
      lead,
      activity,
      notes: notes.data,
      moreNotes: notes.hasMore,
      message,
      people,
      ...rest,
    }),
    status,
  );
}
