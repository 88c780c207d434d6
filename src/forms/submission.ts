// A website form's post turned into a lead: lead fields (phone also in the national format of the posted country,
// else the brand's), the form's required fields and own questions (answers kept in extraFields), extra fields,
// attribution, consent and the honeypot, every problem reported at once.

import { LEAD_FIELDS, type LeadInput, parseLeadInput } from '../leads/input.js';
import { type FieldError, type FieldErrorText, ValidationError } from '../shared/errors.js';
import { nationalToE164, phoneErrorText, phoneHint } from '../shared/phone.js';
import { isBlank } from '../shared/text.js';
import { normalizeCountry } from '../shared/values.js';
import { CAPTCHA_MESSAGES, CAPTCHA_PROVIDER_INFO, CAPTCHA_TEXTS, CAPTCHA_TOKEN_FIELDS } from './captcha.js';
import type { FormQuestion } from './form-fields.js';
import type { PublicForm } from './forms.js';

// The phone rules moved to domain/phone.ts (the dashboard's typed-in leads use them too).
export { CAPTCHA_TOKEN_FIELDS, nationalToE164, phoneHint };

export const MAX_EXTRA_FIELDS = 20;
export const MAX_EXTRA_LENGTH = 1000;
const MAX_EXTRA_NAME = 100;
export const ATTRIBUTION_FIELDS = [
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'referrer',
  'landingPage',
] as const;

const LEAD_FIELD_NAMES = new Set(LEAD_FIELDS.map((f) => f.name));

const tooLong: FieldErrorText = { key: 'validation.tooLong', values: { max: MAX_EXTRA_LENGTH } };

export interface Submission {
  input: LeadInput;
  spam: boolean;
  extraFields: Record<string, string> | null;
  attribution: Record<string, string> | null;
  consent: { text: string; at: string } | null;
  /**
   * The token in the field of the form's captcha provider; null when the form has no captcha, or for spam (a
   * filled honeypot), which is never sent to the provider. Without it a post to a form with a captcha is a 422.
   */
  captchaToken: string | null;
}

/** Reads a parsed body (form-encoded, multipart key-values or JSON). Throws ValidationError listing every problem. */
export function parseSubmission(
  form: PublicForm,
  body: unknown,
  json: boolean,
  now: number = Date.now(),
): Submission {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError([
      {
        field: '(body)',
        message: 'must be a form or a JSON object',
        text: { key: 'publicForm.validation.body' },
      },
    ]);
  }
  const errors: FieldError[] = [];
  const lead: Record<string, unknown> = {};
  const extra: Record<string, string> = {};
  const attribution: Record<string, string> = {};
  let spam = false;
  let consentGiven = false;
  let captchaToken: string | null = null;
  const captchaField = form.captcha ? CAPTCHA_PROVIDER_INFO[form.captcha.provider].tokenField : undefined;
  const questions = new Map(form.questions.map((q) => [q.key, q]));
  const answersRaw: Record<string, unknown> = {};

  for (const [name, raw] of Object.entries(body as Record<string, unknown>)) {
    if (Array.isArray(raw)) {
      errors.push({ field: name, message: 'must be sent once', text: { key: 'publicForm.validation.once' } });
      continue;
    }
    if (name === form.honeypotField) {
      if (raw !== undefined && raw !== null && raw !== '' && raw !== false) spam = true;
      continue;
    }
    if (CAPTCHA_TOKEN_FIELDS.includes(name)) {
      // Another provider's token is read and dropped: it proves nothing for this form.
      if (name === captchaField && typeof raw === 'string' && raw.trim() !== '') captchaToken = raw;
      continue;
    }
    if (name === 'consent') {
      consentGiven = json
        ? raw === true || (typeof raw === 'string' && !isBlank(raw))
        : typeof raw === 'string' && !isBlank(raw);
      continue;
    }
    if (LEAD_FIELD_NAMES.has(name)) {
      lead[name] = raw;
      continue;
    }
    if (questions.has(name)) {
      answersRaw[name] = raw;
      continue;
    }
    if (typeof raw !== 'string') {
      errors.push({ field: name, message: 'must be a string', text: { key: 'publicForm.validation.text' } });
      continue;
    }
    if ((ATTRIBUTION_FIELDS as readonly string[]).includes(name)) {
      if (raw.length > MAX_EXTRA_LENGTH) {
        errors.push({
          field: name,
          message: `must be at most ${MAX_EXTRA_LENGTH} characters`,
          text: tooLong,
        });
      } else if (raw.trim()) attribution[name] = raw.trim();
      continue;
    }
    if (name.length > MAX_EXTRA_NAME) {
      errors.push({
        field: name.slice(0, MAX_EXTRA_NAME),
        message: `is a field name over ${MAX_EXTRA_NAME} characters`,
        text: { key: 'publicForm.validation.nameTooLong', values: { max: MAX_EXTRA_NAME } },
      });
      continue;
    }
    if (Object.keys(extra).length >= MAX_EXTRA_FIELDS) {
      errors.push({
        field: name,
        message: `is one field too many: a form may send at most ${MAX_EXTRA_FIELDS} fields besides the lead fields`,
        text: { key: 'publicForm.validation.tooManyFields', values: { max: MAX_EXTRA_FIELDS } },
      });
      continue;
    }
    if ([...raw].length > MAX_EXTRA_LENGTH) {
      errors.push({ field: name, message: `must be at most ${MAX_EXTRA_LENGTH} characters`, text: tooLong });
      continue;
    }
    extra[name] = raw;
  }

  // The form's defaults fill what the post leaves out.
  if ((lead.priority === undefined || lead.priority === '') && form.defaults.priority) {
    lead.priority = form.defaults.priority;
  }
  if ((lead.category === undefined || lead.category === '') && form.defaults.category) {
    lead.category = form.defaults.category;
  }
  errors.push(...requiredFieldErrors(form, lead));
  const answers = readAnswers(form.questions, answersRaw, json, errors);
  let nationalPhoneCountry: string | undefined;
  if (typeof lead.phone === 'string') {
    const country =
      (typeof lead.country === 'string' && normalizeCountry(lead.country)) || form.defaultCountry;
    if (!lead.phone.trim().startsWith('+')) nationalPhoneCountry = country;
    lead.phone = nationalToE164(lead.phone, country);
  }
  if (form.consentText && !consentGiven) {
    errors.push({
      field: 'consent',
      message: 'is required: tick the box to agree',
      text: { key: 'publicForm.validation.consent' },
    });
  }
  // A missing token is reported with the other problems; spam is answered as success without a captcha check.
  if (spam) captchaToken = null;
  else if (form.captcha && captchaToken === null) {
    errors.push({ field: 'captcha', message: CAPTCHA_MESSAGES.missing, text: CAPTCHA_TEXTS.missing });
  }

  let input: LeadInput | undefined;
  try {
    input = parseLeadInput(lead);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    // People may write their number the national way here, so the API's "+…" rule is not the message for them.
    const fieldErrors = error.errors.map((e) =>
      e.field === 'phone' && nationalPhoneCountry
        ? {
            field: 'phone',
            message: phoneHint(nationalPhoneCountry),
            text: phoneErrorText(nationalPhoneCountry),
          }
        : e,
    );
    errors.unshift(...fieldErrors);
  }
  if (errors.length || !input) throw new ValidationError(errors);
  return {
    input,
    spam,
    extraFields: Object.keys(extra).length || Object.keys(answers).length ? { ...extra, ...answers } : null,
    attribution: Object.keys(attribution).length ? attribution : null,
    consent: form.consentText ? { text: form.consentText, at: new Date(now).toISOString() } : null,
    captchaToken,
  };
}

const isEmpty = (value: unknown) =>
  value === undefined || value === null || (typeof value === 'string' && isBlank(value));

/**
 * The form's own rules on the lead fields (the lead's own, such as the spec's required fields, are parseLeadInput's):
 * a field the form marks required left empty, and, when it shows both email and phone and requires neither, a post
 * with neither (both are named).
 */
function requiredFieldErrors(form: PublicForm, lead: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  for (const f of form.fields) {
    if (f.required && !leadFieldRequired(f.name) && isEmpty(lead[f.name])) {
      errors.push({ field: f.name, message: 'is required', text: { key: 'validation.required' } });
    }
  }
  const shown = (name: string) => form.fields.find((f) => f.name === name);
  const email = shown('email');
  const phone = shown('phone');
  if (email && phone && !email.required && !phone.required && isEmpty(lead.email) && isEmpty(lead.phone)) {
    for (const field of ['email', 'phone']) {
      errors.push({
        field,
        message: 'or the other of email and phone is required: give at least one',
        text: { key: 'publicForm.validation.emailOrPhone' },
      });
    }
  }
  return errors;
}

const leadFieldRequired = (name: string) => LEAD_FIELDS.find((f) => f.name === name)?.required === true;

/**
 * The answers to the form's questions, by key, as kept in extraFields: text trimmed, a select's one of its
 * options, a ticked checkbox "yes" (like consent: in JSON `true` or a non-empty string). Empty answers are left out.
 */
function readAnswers(
  questions: readonly FormQuestion[],
  raw: Record<string, unknown>,
  json: boolean,
  errors: FieldError[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const q of questions) {
    const value = raw[q.key];
    if (q.type === 'checkbox') {
      const ticked = json
        ? value === true || (typeof value === 'string' && !isBlank(value))
        : typeof value === 'string' && !isBlank(value);
      if (ticked) out[q.key] = 'yes';
      else if (q.required)
        errors.push({
          field: q.key,
          message: 'is required: tick the box',
          text: { key: 'validation.required' },
        });
      continue;
    }
    if (value !== undefined && value !== null && typeof value !== 'string') {
      errors.push({ field: q.key, message: 'must be a string', text: { key: 'publicForm.validation.text' } });
      continue;
    }
    const answer = typeof value === 'string' ? value.trim() : '';
    if (answer === '' || isBlank(answer)) {
      if (q.required)
        errors.push({ field: q.key, message: 'is required', text: { key: 'validation.required' } });
      continue;
    }
    if ([...answer].length > MAX_EXTRA_LENGTH) {
      errors.push({ field: q.key, message: `must be at most ${MAX_EXTRA_LENGTH} characters`, text: tooLong });
      continue;
    }
    if (q.type === 'select' && !q.options?.includes(answer)) {
      errors.push({
        field: q.key,
        message: `must be one of the question's options: ${(q.options ?? []).join(', ')}`,
        text: { key: 'validation.choice' },
      });
      continue;
    }
    out[q.key] = answer;
  }
  return out;
}

/** The values to show again in the re-rendered form: strings only. */
export function typedValues(body: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof body !== 'object' || body === null) return out;
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}
