// Internal notes on a lead or work item: plain text by office staff (or an API key), newest first, never sent to
// the customer. Adding one writes a note.created event in the same transaction.
import { type Static, Type } from '@sinclair/typebox';
import type { Store } from '../platform/db/store.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { Timestamp } from '../shared/json-schema.js';
import { type Page, type PageQuery, toPage } from '../shared/paging.js';
import { isBlank } from '../shared/text.js';
import { iso } from '../shared/time.js';
import { characterLength } from '../shared/values.js';
import { recordEvent } from '../webhooks/events.js';
import type { Actor } from './customer-details.js';
import {
  insertNote,
  type NoteRow,
  realLeadExists,
  selectAllNotes,
  selectNote,
  selectNotePage,
} from './queries.js';
import { ActorSchema } from './shape.js';

/** Most a note may hold (characters, after trimming). */
export const MAX_NOTE_LENGTH = 5000;

export const NoteSchema = Type.Object(
  {
    id: Type.String({ description: 'not_… identifier.' }),
    text: Type.String({ description: 'Plain text as written (trimmed); line breaks are kept.' }),
    author: ActorSchema,
    createdAt: Timestamp(),
  },
  { additionalProperties: false, title: 'Note' },
);
export type Note = Static<typeof NoteSchema>;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A note's text as typed: trimmed; empty (or only invisible characters) and over-long are errors on `text`. */
export function parseNoteText(raw: unknown): string {
  if (typeof raw !== 'string') {
    throw new ValidationError([
      { field: 'text', message: raw === undefined || raw === null ? 'is required' : 'must be a string' },
    ]);
  }
  const text = raw.trim();
  if (!text || isBlank(text)) throw new ValidationError([{ field: 'text', message: 'must not be empty' }]);
  if (characterLength(text) > MAX_NOTE_LENGTH) {
    throw new ValidationError([{ field: 'text', message: `must be at most ${MAX_NOTE_LENGTH} characters` }]);
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters other than line breaks and tabs
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) {
    throw new ValidationError([{ field: 'text', message: 'must not contain control characters' }]);
  }
  if (LONE_SURROGATE.test(text)) {
    throw new ValidationError([
      { field: 'text', message: 'must be valid Unicode text (it holds a lone surrogate)' },
    ]);
  }
  return text;
}

/** POST /v1/leads/{id}/notes's body: `{ "text": … }` and nothing else. */
export function parseNoteBody(body: unknown): { text: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError([{ field: '(body)', message: 'must be a JSON object with a "text" field' }]);
  }
  const unknown = Object.keys(body)
    .filter((k) => k !== 'text')
    .map((k) => ({ field: k, message: 'is not a known field' }));
  try {
    const text = parseNoteText((body as Record<string, unknown>).text);
    if (unknown.length) throw new ValidationError(unknown);
    return { text };
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError([...unknown, ...error.errors.filter((e) => e.field === 'text')]);
  }
}

async function leadExists(store: Store, brandId: string, leadId: string): Promise<boolean> {
  // Spam leads are not there until released, as for reads.
  return realLeadExists(store, brandId, leadId);
}

function noteOf(row: NoteRow): Note {
  return {
    id: row.id,
    text: row.text,
    author: { type: row.author_type, id: row.author_id, name: row.author_name },
    createdAt: iso(row.created_at),
  };
}

/**
 * Adds a note (text from parseNoteText) to a lead or work item in any state, with its note.created event
 * (`{ note, leadId }`). NotFoundError for another brand's lead.
 */
export function addNote(
  store: Store,
  brandId: string,
  leadId: string,
  text: string,
  author: Actor,
): Promise<Note> {
  return store.write(async (tx) => {
    if (!(await leadExists(tx, brandId, leadId))) throw new NotFoundError(`No lead with id ${leadId}`);
    const now = Date.now();
    const row: NoteRow & { lead_id: string; brand_id: string } = {
      id: newId('note', now),
      lead_id: leadId,
      brand_id: brandId,
      text,
      author_type: author.type,
      author_id: author.id,
      author_name: author.name,
      created_at: now,
    };
    await insertNote(tx, row);
    const note = noteOf(row);
    await recordEvent(tx, brandId, 'note.created', { note, leadId }, now);
    return note;
  });
}

/** A lead's notes, newest first by (createdAt, id) unless order is asc, keyset-paged. */
export async function listNotes(
  store: Store,
  brandId: string,
  leadId: string,
  query: PageQuery,
): Promise<Page<Note>> {
  if (!(await leadExists(store, brandId, leadId))) throw new NotFoundError(`No lead with id ${leadId}`);
  const rows = await selectNotePage(store, brandId, leadId, query);
  return toPage(rows, query.limit, query.order, (r) => ({ time: r.created_at, id: r.id }), noteOf);
}

/** One note of a lead. NotFoundError when the note, or its lead, is not the brand's. */
export async function getNote(store: Store, brandId: string, leadId: string, noteId: string): Promise<Note> {
  const row = await selectNote(store, brandId, leadId, noteId);
  if (!row) throw new NotFoundError(`No note with id ${noteId} on lead ${leadId}`);
  return noteOf(row);
}

/** Every note of the brand's lead, spam too, oldest first (a personal-data export; the caller read the lead). */
export async function allNotesOf(store: Store, brandId: string, leadId: string): Promise<Note[]> {
  return (await selectAllNotes(store, brandId, leadId)).map(noteOf);
}
