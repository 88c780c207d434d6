// Adding an internal note on a lead's page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hidden, userActor, userOf, userPage } from '../../accounts/dashboard/session.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { pathParam, seeOther, text } from '../../platform/web/http.js';
import { ValidationError } from '../../shared/errors.js';
import { type Translator, translator } from '../../shared/i18n/index.js';
import { addNote, MAX_NOTE_LENGTH, parseNoteText } from '../index.js';
import { showLead } from './lead-page.js';

/** What people read when a note is refused. */
function refusal(tr: Translator, typed: string, error: ValidationError): string {
  const length = [...typed.trim()].length;
  return length > MAX_NOTE_LENGTH
    ? tr.t('lead.note.tooLong', { max: MAX_NOTE_LENGTH, length })
    : length === 0 || error.errors[0]?.message === 'must not be empty'
      ? tr.t('lead.note.empty')
      : error.errors[0]?.message === 'must not contain control characters'
        ? tr.t('lead.note.controlCharacters')
        : tr.t('lead.note.refused');
}

// An internal note by the signed-in user (note.created). A refused note keeps what was typed beside the message.
async function postNote(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const id = pathParam(request, 'id');
  const typed = text(request.body, 'text');
  let noteText: string;
  try {
    noteText = parseNoteText(typed);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const noteForm = { text: typed, error: refusal(translator(user.locale), typed, error) };
    return showLead(deps, reply, user, id, undefined, 422, { noteForm });
  }
  await addNote(deps.database, user.brandId, id, noteText, userActor(user));
  return seeOther(reply, `/dashboard/leads/${id}?noted=1#notes`);
}

export default async function noteRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  app.post('/leads/:id/notes', { schema: hidden, config: userPage }, (request, reply) =>
    postNote(deps, request, reply),
  );
}
