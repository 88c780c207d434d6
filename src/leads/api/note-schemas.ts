import { Type } from '@sinclair/typebox';
import { IdParams, ListQuery, listEnvelope, parsedBy } from '../../platform/http/schemas.js';
import { MAX_NOTE_LENGTH, NoteSchema, parseNoteBody } from '../index.js';

export { NoteSchema } from '../index.js';

/** Handlers receive parseNoteBody's `{ text }` (trimmed), not this JSON. */
export const NoteCreateBody = parsedBy(
  parseNoteBody,
  Type.Object(
    {
      text: Type.String({
        minLength: 1,
        maxLength: MAX_NOTE_LENGTH,
        description: `Plain text, 1 to ${MAX_NOTE_LENGTH} characters after trimming; line breaks are kept.`,
      }),
    },
    {
      additionalProperties: false,
      required: ['text'],
      title: 'NoteCreate',
      'x-validator': 'note-create',
    },
  ),
);

export const NoteListQuery = Type.Object({ ...ListQuery }, { additionalProperties: false });
export const NoteListResponse = listEnvelope(NoteSchema, 'NoteList');

export const NoteParams = Type.Object(
  {
    id: IdParams.properties.id,
    noteId: Type.String({
      maxLength: 100,
      pattern: '^[\\x21-\\x7e]+$',
      description: 'The not_… identifier.',
    }),
  },
  { additionalProperties: false },
);
