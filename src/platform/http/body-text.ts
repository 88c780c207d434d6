// Request bodies are read as the UTF-8 they must be: bytes that are not UTF-8 are refused, never turned into U+FFFD.
// The JSON parser (json-body.ts) and the public form's form-encoded parser share this.
import type { FastifyInstance } from 'fastify';

/** A body that cannot be read as sent: a 400 (malformed-json problem, or the public form's HTML page). */
export class MalformedBodyError extends Error {
  readonly statusCode = 400;
  readonly code = 'LI_MALFORMED_BODY';
}

// fatal: invalid UTF-8 is an error, not U+FFFD. ignoreBOM: a byte order mark stays in the text, as before.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const NOT_UTF8 = 'The body is not valid UTF-8: send the text encoded as UTF-8 (nothing was stored).';

/** The body's text, or a MalformedBodyError when its bytes are not UTF-8 (they would be stored as U+FFFD). */
export function decodeUtf8Body(body: Buffer): string {
  try {
    return utf8.decode(body);
  } catch {
    throw new MalformedBodyError(NOT_UTF8);
  }
}

/**
 * An application/x-www-form-urlencoded body as name → value (an array when a name repeats, as @fastify/formbody
 * gives it). Both the raw bytes and every run of percent-escapes must be UTF-8: `title=%FF` is refused, where a
 * query-string parser keeps "%FF" or reads U+FFFD. A lone `%` that escapes nothing stays as written.
 */
export function parseFormBody(body: Buffer): Record<string, string | string[]> {
  const text = decodeUtf8Body(body);
  for (const run of text.match(/(?:%[0-9A-Fa-f]{2})+/g) ?? []) {
    try {
      decodeURIComponent(run);
    } catch {
      throw new MalformedBodyError(NOT_UTF8);
    }
  }
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of new URLSearchParams(text)) {
    const previous = out[name];
    if (previous === undefined) out[name] = value;
    else if (Array.isArray(previous)) previous.push(value);
    else out[name] = [previous, value];
  }
  return out;
}

/** Registers parseFormBody for application/x-www-form-urlencoded on this (encapsulated) instance. */
export function registerFormBody(app: FastifyInstance): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'buffer' },
    (_request, body, done) => {
      try {
        done(null, parseFormBody(body as Buffer));
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
}
