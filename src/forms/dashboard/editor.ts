// Settings > Forms: the fields and questions editors as a post sends them, read into rows to show again and the
// API's `fields` and `questions`. Works without JavaScript: the rows are plain inputs, a fixed number of empty
// question rows below the filled-in ones.
import { field, list, text } from '../../platform/web/http.js';
import { MAX_KEY, SHOWABLE_FIELDS } from '../form-fields.js';
import {
  EMPTY_QUESTION_ROWS,
  editorFields,
  type FormValues,
  MAX_QUESTION_ROWS,
  type QuestionRow,
} from './views.js';

/** The fields editor as sent: its rows in their order, each shown and required or not; undefined without it. */
export function readFields(body: unknown): FormValues['fields'] | undefined {
  const order = list(body, 'fieldOrder').filter((n) => (SHOWABLE_FIELDS as readonly string[]).includes(n));
  const shown = new Set(list(body, 'fieldShown'));
  const required = new Set(list(body, 'fieldRequired'));
  // A post without the editor (an older page, a script) leaves the fields as they are.
  if (!order.length) return undefined;
  const names = [...new Set(order)];
  return editorFields(
    names.map((name) => ({ name: name as FormValues['fields'][number]['name'], required: false })),
  ).map((f) => ({
    name: f.name,
    shown: shown.has(f.name) || required.has(f.name),
    required: required.has(f.name),
  }));
}

/** A key made from a question's label when the row leaves it empty: "Wat voor ketel?" → "wat_voor_ketel". */
function keyFromLabel(label: string, taken: Set<string>): string {
  const base =
    label
      .normalize('NFD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, MAX_KEY - 4) || 'question';
  let key = base;
  for (let n = 2; taken.has(key); n++) key = `${base}_${n}`;
  return key;
}

/**
 * The question rows as sent, and the API's questions of the filled-in ones with the row each came from; questions
 * undefined when the post has no rows (an older page: they stay as they are).
 */
export function readQuestions(body: unknown): {
  rows: QuestionRow[];
  questions: unknown[] | undefined;
  index: number[];
} {
  const rows: QuestionRow[] = [];
  for (let i = 0; i < MAX_QUESTION_ROWS; i++) {
    if (field(body, `q${i}-type`) === undefined && field(body, `q${i}-label`) === undefined) break;
    rows.push({
      key: text(body, `q${i}-key`).trim(),
      label: text(body, `q${i}-label`).trim(),
      type: text(body, `q${i}-type`) || 'text',
      options: text(body, `q${i}-options`).replace(/\r\n?/g, '\n'),
      required: text(body, `q${i}-required`) !== '',
    });
  }
  const taken = new Set(rows.map((r) => r.key).filter(Boolean));
  const questions: unknown[] = [];
  const index: number[] = [];
  rows.forEach((row, i) => {
    // A row with neither label nor key is an empty one (or one emptied to remove its question).
    if (!row.label && !row.key) return;
    const key = row.key || keyFromLabel(row.label, taken);
    taken.add(key);
    index.push(i);
    questions.push({
      key,
      label: row.label,
      type: row.type,
      ...(row.type === 'select'
        ? {
            options: row.options
              .split('\n')
              .map((o) => o.trim())
              .filter(Boolean),
          }
        : {}),
      required: row.required,
    });
  });
  // Empty rows to fill in again below the typed ones.
  const filled = rows.filter((r) => r.label || r.key);
  const empty = Math.min(EMPTY_QUESTION_ROWS, MAX_QUESTION_ROWS - filled.length);
  const shownRows = [...rows];
  while (shownRows.filter((r) => !r.label && !r.key).length < empty && shownRows.length < MAX_QUESTION_ROWS) {
    shownRows.push({ key: '', label: '', type: 'text', options: '', required: false });
  }
  return { rows: shownRows, questions: rows.length ? questions : undefined, index };
}
