// Validation and normalisation of the flat POST /v1/leads body: one table of fields, every failing field reported.

import type { FieldFormat } from '../customers/fields.js';
import { type FieldError, type FieldErrorText, ValidationError } from '../shared/errors.js';
import { isBlank } from '../shared/text.js';
import { characterLength, isValidEmail, normalizeCountry, normalizePhone } from '../shared/values.js';
import {
  LEAD_FIELD_TABLE,
  type LeadFieldName,
  type LeadFieldValues,
  type LeadGroup,
  leadField,
  leadFieldsWhere,
} from './fields.js';
import { PRIORITIES, type Priority } from './states.js';

export interface FieldRule {
  name: string;
  required: boolean;
  maxLength: number;
  group: LeadGroup;
  description: string;
  format?: FieldFormat;
}

/** The rule of each field of the body, in the body's order (fields.ts declares them). */
export const LEAD_FIELDS: readonly FieldRule[] = (Object.keys(LEAD_FIELD_TABLE) as LeadFieldName[]).map(
  (name) => {
    const { required, maxLength, group, description, format } = leadField(name);
    return { name, required, maxLength, group, description, ...(format ? { format } : {}) };
  },
);

const FIELD_NAMES = new Set<string>(LEAD_FIELDS.map((f) => f.name));

/**
 * A lead body as parseLeadInput leaves it: trimmed, empty optional fields null, the phone in E.164, the country
 * upper case (null: the brand's default), the priority null when none was given (createLead takes the brand's).
 */
export type LeadInput = LeadFieldValues;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Validates and normalises a lead body. Throws ValidationError listing every failing field. */
export function parseLeadInput(body: unknown): LeadInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError([
      { field: '(body)', message: `must be a JSON object, got ${describeType(body)}` },
    ]);
  }
  const source = body as Record<string, unknown>;
  const errors: FieldError[] = [];

  for (const key of Object.keys(source)) {
    if (!FIELD_NAMES.has(key)) {
      errors.push({ field: key, message: 'is not a known field' });
    }
  }
  const out = parseFields(source, LEAD_FIELDS, errors);
  if (errors.length) throw new ValidationError(errors);
  return { ...(out as unknown as LeadInput), priority: (out.priority as Priority | null) ?? null };
}

/**
 * Some of the lead fields (an edit of a lead), by the same rules as parseLeadInput: each named field is read from
 * `values` (missing: as if empty; a required one is then an error), other names are ignored. A missing priority
 * stays null here (the caller decides). Throws ValidationError listing every failing field.
 */
export function parseLeadFields<K extends keyof LeadInput>(
  values: Record<string, unknown>,
  names: readonly K[],
): { [F in K]: F extends 'priority' ? Priority | null : LeadInput[F] | null } {
  const errors: FieldError[] = [];
  const rules = LEAD_FIELDS.filter((f) => (names as readonly string[]).includes(f.name));
  const out = parseFields(values, rules, errors);
  if (errors.length) throw new ValidationError(errors);
  return out as never;
}

const REQUIRED: FieldErrorText = { key: 'validation.required' };
const INVALID: FieldErrorText = { key: 'validation.invalid' };

function parseFields(
  source: Record<string, unknown>,
  rules: readonly FieldRule[],
  errors: FieldError[],
): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const rule of rules) {
    const raw = Object.hasOwn(source, rule.name) ? source[rule.name] : undefined;
    if (raw === undefined || raw === null) {
      if (rule.required)
        errors.push({ field: rule.name, message: 'is required', text: { key: 'validation.required' } });
      out[rule.name] = null;
      continue;
    }
    if (typeof raw !== 'string') {
      errors.push({ field: rule.name, message: `must be a string, got ${describeType(raw)}`, text: INVALID });
      continue;
    }
    const value = raw.trim();
    // A required field of zero-width spaces, bidi controls and the like is as empty as one of spaces.
    if (value === '' || (rule.required && isBlank(value))) {
      if (rule.required) errors.push({ field: rule.name, message: 'must not be empty', text: REQUIRED });
      out[rule.name] = null;
      continue;
    }
    // Control characters other than line breaks and tabs have no place in a form field.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: that is the point of this check
    if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(value)) {
      errors.push({
        field: rule.name,
        message: 'must not contain control characters',
        text: { key: 'validation.controlCharacters' },
      });
      continue;
    }
    // Half of a UTF-16 surrogate pair is not text: stored as UTF-8 it would read back as U+FFFD, not as sent.
    if (LONE_SURROGATE.test(value)) {
      errors.push({
        field: rule.name,
        message: 'must be valid Unicode text (it holds a lone surrogate)',
        text: INVALID,
      });
      continue;
    }
    // A priority is judged against its values alone: "must be one of ..." helps more than a length.
    // So is a country, which may be written as its name ("Nederland"): it is stored as its code.
    if (rule.format !== 'priority' && rule.format !== 'country' && characterLength(value) > rule.maxLength) {
      errors.push({
        field: rule.name,
        message: `must be at most ${rule.maxLength} characters`,
        text: { key: 'validation.tooLong', values: { max: rule.maxLength } },
      });
      continue;
    }
    switch (rule.format) {
      case 'email':
        if (!isValidEmail(value)) {
          errors.push({
            field: rule.name,
            message: 'must be a valid email address',
            text: { key: 'validation.email' },
          });
          continue;
        }
        break;
      case 'phone': {
        const result = normalizePhone(value);
        if ('error' in result) {
          errors.push({
            field: rule.name,
            message: result.error,
            text: { key: 'validation.phoneInternational' },
          });
          continue;
        }
        out[rule.name] = result.phone;
        continue;
      }
      case 'country': {
        const code = normalizeCountry(value);
        if (!code) {
          errors.push({
            field: rule.name,
            message:
              'must be an ISO 3166-1 alpha-2 country code such as "NL", or the country\'s name in Dutch or English',
            text: { key: 'validation.country' },
          });
          continue;
        }
        out[rule.name] = code;
        continue;
      }
      case 'priority':
        if (!(PRIORITIES as readonly string[]).includes(value)) {
          errors.push({
            field: rule.name,
            message: `must be one of ${PRIORITIES.join(', ')}`,
            text: { key: 'validation.choice' },
          });
          continue;
        }
        break;
    }
    out[rule.name] = value;
  }
  return out;
}

/** The contact and address fields kept with every lead exactly as submitted (after normalisation). */
export const SUBMITTED_FIELDS = [
  ...leadFieldsWhere({ group: 'customer' }),
  ...leadFieldsWhere({ group: 'address' }),
] as const;

export type Submitted = { [K in (typeof SUBMITTED_FIELDS)[number]]: LeadInput[K] };

export function submittedOf(input: LeadInput): Submitted {
  const out = {} as Record<string, string | null>;
  for (const field of SUBMITTED_FIELDS) out[field] = input[field];
  return out as Submitted;
}
