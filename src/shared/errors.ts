// The closed list of errors domain code may throw. The HTTP layer maps each code to a status in one place.

import type { MessageKey } from './i18n/index.js';

export type ErrorCode =
  | 'validation'
  | 'not_found'
  | 'conflict'
  | 'invalid_state_transition'
  | 'unauthorized'
  | 'forbidden'
  | 'unavailable';

/** What a field error says to people, in their language: a catalog message and its values (`field` is added). */
export interface FieldErrorText {
  key: MessageKey;
  values?: Record<string, string | number>;
}

export interface FieldError {
  field: string;
  /** English, for the API (and logs). */
  message: string;
  /** For people (pages, a website form's 422): absent, the catalog's generic "is not valid" stands in. */
  text?: FieldErrorText;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** A 422 lists at most this many fields failing the same way (e.g. unknown fields); the detail counts the rest. */
export const MAX_LISTED_PER_MESSAGE = 20;
/** And at most this many fields in all, whatever their messages. */
export const MAX_LISTED_ERRORS = 100;
/** Longer field names (never a real field) are cut to this many characters where they are listed. */
const MAX_LISTED_NAME = 100;

function howMany(n: number): string {
  return n.toLocaleString('en-US');
}

/** "unknown fields" for the unknown-field messages, else the message itself, so the detail can count the rest. */
function omittedKind(message: string): string {
  if (message === 'is not a known field') return 'unknown fields';
  if (message === 'is not a known query parameter') return 'unknown query parameters';
  return `fields that failed the same way ("${message}")`;
}

/**
 * The field errors a 422 lists, and its detail. A request with thousands of unknown (or otherwise failing) fields
 * must not get an answer larger than itself: at most MAX_LISTED_PER_MESSAGE fields per message and
 * MAX_LISTED_ERRORS in all are listed, in request order, and the detail says how many more there are.
 */
export function summarizeFieldErrors(all: readonly FieldError[]): {
  listed: FieldError[];
  omitted: number;
  detail: string;
} {
  const perMessage = new Map<string, number>();
  const omittedByKind = new Map<string, number>();
  const listed: FieldError[] = [];
  for (const error of all) {
    const seen = perMessage.get(error.message) ?? 0;
    perMessage.set(error.message, seen + 1);
    if (seen < MAX_LISTED_PER_MESSAGE && listed.length < MAX_LISTED_ERRORS) {
      const field =
        error.field.length > MAX_LISTED_NAME ? `${error.field.slice(0, MAX_LISTED_NAME)}…` : error.field;
      listed.push(field === error.field ? error : { ...error, field });
    } else {
      const kind = omittedKind(error.message);
      omittedByKind.set(kind, (omittedByKind.get(kind) ?? 0) + 1);
    }
  }
  const omitted = all.length - listed.length;
  let detail: string;
  if (all.length === 1) detail = `${listed[0]!.field}: ${listed[0]!.message}`;
  else {
    detail = `${howMany(all.length)} fields are invalid: ${listed.map((e) => e.field).join(', ')}`;
    const more = [...omittedByKind].map(([kind, n]) => `${howMany(n)} more ${kind}`);
    if (more.length) detail += `, and ${more.join(' and ')} (not listed)`;
  }
  return { listed, omitted, detail };
}

export class ValidationError extends DomainError {
  readonly statusCode = 422;
  /** The failing fields, capped (see summarizeFieldErrors). */
  readonly errors: FieldError[];
  /** How many failing fields `errors` leaves out; the message counts them. */
  readonly omitted: number;
  constructor(errors: FieldError[], message?: string) {
    const summary = summarizeFieldErrors(errors);
    super('validation', message ?? summary.detail);
    this.name = 'ValidationError';
    this.errors = summary.listed;
    this.omitted = summary.omitted;
  }
}

export class NotFoundError extends DomainError {
  constructor(message: string) {
    super('not_found', message);
  }
}

export class InvalidTransitionError extends DomainError {
  constructor(
    readonly currentStatus: string,
    readonly requestedStatus: string,
    allowed: readonly string[],
  ) {
    super(
      'invalid_state_transition',
      `The lead is in status "${currentStatus}" and cannot move to "${requestedStatus}". ` +
        (allowed.length
          ? `Allowed from "${currentStatus}": ${allowed.join(', ')}.`
          : `"${currentStatus}" is final.`),
      { currentStatus, allowedStatuses: allowed },
    );
  }
}
