// Internal notes on a lead or work item: list (newest first) and add. Never sent to the customer.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../platform/http/deps.js';
import { principalOf } from '../../platform/http/plugins/auth.js';
import { type ApiApp, scopedRoute } from '../../platform/http/route.js';
import { IdParams } from '../../platform/http/schemas.js';
import { addNote, getNote, listNotes } from '../index.js';
import { pagingFrom } from './list-query.js';
import { NoteCreateBody, NoteListQuery, NoteListResponse, NoteParams, NoteSchema } from './note-schemas.js';

const TAGS = ['Notes'];

function listNotesRoute(app: ApiApp, deps: RouteDeps) {
  app.get(
    '/v1/leads/:id/notes',
    scopedRoute({
      scope: 'full',
      errors: [404, 422],
      schema: {
        operationId: 'listLeadNotes',
        tags: TAGS,
        summary: "List a lead's internal notes",
        description:
          'The notes of a lead or work item in any state (cancelled and completed included), newest first by (createdAt, id); `order=asc` for oldest first. Follow `nextCursor` to page. Notes are internal: they are never sent to the customer.',
        params: IdParams,
        querystring: NoteListQuery,
        response: { 200: NoteListResponse },
      },
    }),
    async (request, reply) => {
      const brandId = principalOf(request).brandId;
      const { id } = request.params;
      const query = pagingFrom(request.query);
      return deps.responses.send(reply, `notes|${brandId}|${request.url}`, () =>
        listNotes(deps.database, brandId, id, query),
      );
    },
  );
}

function addNoteRoute(app: ApiApp, deps: RouteDeps) {
  app.post(
    '/v1/leads/:id/notes',
    scopedRoute({
      scope: 'full',
      errors: [400, 404, 413, 415, 422],
      schema: {
        operationId: 'addLeadNote',
        tags: TAGS,
        summary: 'Add an internal note to a lead',
        description:
          'Adds a plain-text note (1 to 5,000 characters after trimming) to a lead or work item in any state. The author is this API key. Fires `note.created` with `data: { note, leadId }`. Notes are never sent to the customer.',
        params: IdParams,
        body: NoteCreateBody,
        response: { 201: { ...NoteSchema, description: 'The note was stored. Location points at it.' } },
      },
    }),
    async (request, reply) => {
      const principal = principalOf(request);
      const { id } = request.params;
      const note = await addNote(deps.database, principal.brandId, id, request.body.text, {
        type: 'key',
        id: principal.keyId,
        name: principal.keyName,
      });
      return reply.code(201).header('Location', `/v1/leads/${id}/notes/${note.id}`).send(note);
    },
  );
}

function getNoteRoute(app: ApiApp, deps: RouteDeps) {
  app.get(
    '/v1/leads/:id/notes/:noteId',
    scopedRoute({
      scope: 'full',
      errors: [404],
      schema: {
        operationId: 'getLeadNote',
        tags: TAGS,
        summary: 'Read one internal note',
        description: 'A note of the lead or work item in the path; a note of another lead is a 404.',
        params: NoteParams,
        response: { 200: NoteSchema },
      },
    }),
    async (request, reply) => {
      const brandId = principalOf(request).brandId;
      const { id, noteId } = request.params;
      return deps.responses.send(reply, `note|${brandId}|${id}|${noteId}`, () =>
        getNote(deps.database, brandId, id, noteId),
      );
    },
  );
}

export default async function noteRoutes(instance: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  for (const route of [listNotesRoute, addNoteRoute, getNoteRoute]) route(app, deps);
}
