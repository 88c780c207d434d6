// Website forms: a brand's public intake forms. The form id is public (it opens nothing else); the captcha secret
// is stored but never returned.

import { LEAD_FIELDS } from '../leads/input.js';
import { PRIORITIES, type Priority } from '../leads/states.js';
import type { FormTable } from '../platform/db/schema.js';
import type { Store } from '../platform/db/store.js';
import { type FieldError, type FieldErrorText, NotFoundError, ValidationError } from '../shared/errors.js';
import { isLocale, type Locale } from '../shared/i18n/index.js';
import { newId } from '../shared/ids.js';
import { type Page, type SortOrder, toPage } from '../shared/paging.js';
import { hasUrlControl, isBlank, URL_CONTROL_MESSAGE } from '../shared/text.js';
import { iso } from '../shared/time.js';
import {
  DEFAULT_FIELDS,
  type FormField,
  type FormQuestion,
  parseFields,
  parseQuestions,
  storedFields,
  storedQuestions,
} from './form-fields.js';
import * as q from './queries.js';
import { ATTRIBUTION_FIELDS } from './submission.js';

export type { FormField, FormQuestion } from './form-fields.js';

export const CAPTCHA_PROVIDERS = ['turnstile', 'hcaptcha', 'recaptcha'] as const;
export type CaptchaProvider = (typeof CAPTCHA_PROVIDERS)[number];
export const DEFAULT_HONEYPOT = '_gotcha';
const MAX_NAME = 200;
const MAX_URL = 2048;
const MAX_ORIGINS = 20;
const MAX_CONSENT = 2000;

export interface Form {
  id: string;
  name: string;
  allowedOrigins: string[];
  redirectUrl: string | null;
  honeypotField: string;
  captcha: { provider: CaptchaProvider; siteKey: string } | null;
  consentText: string | null;
  autoReply: boolean;
  defaults: { priority: Priority | null; category: string | null };
  enabled: boolean;
  /** nl or en: its hosted page, the snippet's labels, its error messages and the customer's receipt. */
  language: Locale;
  /** The lead fields it shows, in its order; the spec's required ones always there and required. */
  fields: FormField[];
  /** The business's own questions, shown after the job's fields; answers kept in the lead's extraFields. */
  questions: FormQuestion[];
  createdAt: string;
  updatedAt: string;
}

/** What the public endpoint needs: the form, its brand, and the captcha secret (for a later verifier). */
export interface PublicForm extends Form {
  brandId: string;
  brandName: string;
  defaultCountry: string;
  captchaSecret: string | null;
}

function toForm(row: q.FormRow): Form {
  return {
    id: row.id,
    name: row.name,
    allowedOrigins: JSON.parse(row.allowed_origins) as string[],
    redirectUrl: row.redirect_url,
    honeypotField: row.honeypot_field,
    captcha:
      row.captcha_provider && row.captcha_site_key
        ? { provider: row.captcha_provider as CaptchaProvider, siteKey: row.captcha_site_key }
        : null,
    consentText: row.consent_text,
    autoReply: row.auto_reply === 1,
    defaults: {
      priority: (row.default_priority as Priority | null) ?? null,
      category: row.default_category,
    },
    enabled: row.enabled === 1,
    language: isLocale(row.language) ? row.language : 'en',
    fields: storedFields(row.fields),
    questions: storedQuestions(row.questions),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** Names a honeypot may not take: lead fields and the fields the public endpoint reads itself. */
export const RESERVED_FIELDS: ReadonlySet<string> = new Set([
  ...LEAD_FIELDS.map((f) => f.name),
  'consent',
  ...ATTRIBUTION_FIELDS,
  'cf-turnstile-response',
  'h-captcha-response',
  'g-recaptcha-response',
  'attachments',
]);

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const CONTROL_CHARACTERS: FieldErrorText = { key: 'validation.controlCharacters' };

/**
 * The origin (scheme://host[:port]) a value names, or an error message (and what it says to people). https, or
 * http for localhost only.
 */
export function parseOrigin(value: unknown): { origin: string } | { error: string; text: FieldErrorText } {
  if (typeof value !== 'string' || !value.trim()) {
    return { error: 'must be a non-empty string', text: { key: 'validation.required' } };
  }
  if (hasUrlControl(value)) return { error: URL_CONTROL_MESSAGE, text: CONTROL_CHARACTERS };
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return {
      error: `${JSON.stringify(value)} is not an origin such as https://www.example.nl`,
      text: { key: 'forms.validation.notOrigin', values: { value } },
    };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname))) {
    return {
      error: `${JSON.stringify(value)} must use https (http only for localhost or 127.0.0.1)`,
      text: { key: 'forms.validation.originHttps', values: { value } },
    };
  }
  if (
    url.username ||
    url.password ||
    url.search ||
    url.hash ||
    (url.pathname !== '/' && url.pathname !== '')
  ) {
    return {
      error: `${JSON.stringify(value)} must be an origin only: scheme, host and port, no path`,
      text: { key: 'forms.validation.originOnly', values: { value } },
    };
  }
  return { origin: url.origin };
}

function isAbsoluteHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export interface FormInput {
  /** nl or en; absent on create: the brand's. */
  language?: unknown;
  name?: unknown;
  allowedOrigins?: unknown;
  redirectUrl?: unknown;
  honeypotField?: unknown;
  captcha?: unknown;
  consentText?: unknown;
  autoReply?: unknown;
  defaults?: unknown;
  enabled?: unknown;
  /** [{ name, required? }]: the lead fields shown, in order; absent on create: DEFAULT_FIELDS. */
  fields?: unknown;
  /** [{ key, label, type, options?, required? }], at most 20. */
  questions?: unknown;
}

type Changes = Partial<Omit<FormTable, 'id' | 'brand_id' | 'created_at' | 'updated_at'>>;

// What the settings' problems say to people (Settings > Forms); the API answers `message`.
const REQUIRED: FieldErrorText = { key: 'validation.required' };
const INVALID: FieldErrorText = { key: 'validation.invalid' };
const tooLong = (max: number): FieldErrorText => ({ key: 'validation.tooLong', values: { max } });

const nullableText = (
  errors: FieldError[],
  field: string,
  value: unknown,
  max: number,
): string | null | undefined => {
  if (value === undefined) return undefined;
  if (value === null) return null;
  if (typeof value !== 'string') {
    errors.push({ field, message: 'must be a string or null', text: INVALID });
    return undefined;
  }
  const trimmed = value.trim();
  if (trimmed.length > max) {
    errors.push({ field, message: `must be at most ${max} characters`, text: tooLong(max) });
    return undefined;
  }
  return trimmed || null;
};

/** Validates a create (every required field) or a change (only what is given). Throws ValidationError. */
export function parseFormInput(input: FormInput, creating: boolean): Changes {
  const errors: FieldError[] = [];
  const out: Changes = {};
  if (input.language !== undefined) {
    const language =
      typeof input.language === 'string' ? input.language.trim().toLowerCase() : input.language;
    if (isLocale(language)) out.language = language;
    else
      errors.push({ field: 'language', message: 'must be nl or en', text: { key: 'validation.language' } });
  }
  if (input.name !== undefined || creating) {
    if (typeof input.name !== 'string' || isBlank(input.name)) {
      errors.push({
        field: 'name',
        message: input.name === undefined ? 'is required' : 'must be a non-empty string',
        text: REQUIRED,
      });
    } else if (input.name.trim().length > MAX_NAME) {
      errors.push({
        field: 'name',
        message: `must be at most ${MAX_NAME} characters`,
        text: tooLong(MAX_NAME),
      });
    } else out.name = input.name.trim();
  }
  if (input.allowedOrigins !== undefined || creating) {
    const list = input.allowedOrigins;
    if (!Array.isArray(list)) {
      errors.push({
        field: 'allowedOrigins',
        message: list === undefined ? 'is required' : 'must be an array of origins',
        text: list === undefined ? REQUIRED : INVALID,
      });
    } else if (list.length > MAX_ORIGINS) {
      errors.push({
        field: 'allowedOrigins',
        message: `must hold at most ${MAX_ORIGINS} origins`,
        text: { key: 'forms.validation.tooManyOrigins', values: { max: MAX_ORIGINS } },
      });
    } else {
      const origins: string[] = [];
      list.forEach((value, i) => {
        const parsed = parseOrigin(value);
        if ('error' in parsed) {
          errors.push({ field: `allowedOrigins[${i}]`, message: parsed.error, text: parsed.text });
        } else if (!origins.includes(parsed.origin)) origins.push(parsed.origin);
      });
      out.allowed_origins = JSON.stringify(origins);
    }
  }
  if (input.redirectUrl !== undefined) {
    const value = input.redirectUrl;
    if (value === null) out.redirect_url = null;
    else if (typeof value === 'string' && hasUrlControl(value)) {
      // Refused as sent: the URL parser would drop a CR or LF, and the stored URL would then break the redirect.
      errors.push({ field: 'redirectUrl', message: URL_CONTROL_MESSAGE, text: CONTROL_CHARACTERS });
    } else if (typeof value !== 'string' || value.length > MAX_URL || !isAbsoluteHttpUrl(value.trim())) {
      errors.push({
        field: 'redirectUrl',
        message: 'must be an absolute http(s) URL or null',
        text: { key: 'forms.validation.url' },
      });
    } else out.redirect_url = value.trim();
  }
  if (input.honeypotField !== undefined || creating) {
    const value = input.honeypotField ?? DEFAULT_HONEYPOT;
    if (typeof value !== 'string' || !/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/.test(value)) {
      errors.push({
        field: 'honeypotField',
        message: 'must be a field name of letters, digits, "_" and "-" (at most 64)',
        text: { key: 'forms.validation.honeypotName' },
      });
    } else if (RESERVED_FIELDS.has(value)) {
      errors.push({
        field: 'honeypotField',
        message: `must not be a field people fill in ("${value}")`,
        text: { key: 'forms.validation.honeypotReserved', values: { value } },
      });
    } else out.honeypot_field = value;
  }
  if (input.captcha !== undefined) {
    const c = input.captcha;
    if (c === null) {
      out.captcha_provider = null;
      out.captcha_site_key = null;
      out.captcha_secret = null;
    } else if (typeof c !== 'object' || Array.isArray(c)) {
      errors.push({
        field: 'captcha',
        message: 'must be an object { provider, siteKey, secret } or null',
        text: INVALID,
      });
    } else {
      const { provider, siteKey, secret } = c as Record<string, unknown>;
      if (typeof provider !== 'string' || !(CAPTCHA_PROVIDERS as readonly string[]).includes(provider)) {
        errors.push({
          field: 'captcha.provider',
          message: `must be one of ${CAPTCHA_PROVIDERS.join(', ')}`,
          text: { key: 'validation.choice' },
        });
      }
      if (typeof siteKey !== 'string' || !siteKey.trim() || siteKey.length > 500) {
        errors.push({
          field: 'captcha.siteKey',
          message: 'must be a non-empty string (at most 500)',
          text:
            siteKey === undefined || (typeof siteKey === 'string' && !siteKey.trim())
              ? REQUIRED
              : tooLong(500),
        });
      }
      if (typeof secret !== 'string' || !secret.trim() || secret.length > 500) {
        errors.push({
          field: 'captcha.secret',
          message: 'must be a non-empty string (at most 500)',
          text:
            secret === undefined || (typeof secret === 'string' && !secret.trim()) ? REQUIRED : tooLong(500),
        });
      }
      out.captcha_provider = provider as string;
      out.captcha_site_key = typeof siteKey === 'string' ? siteKey.trim() : null;
      out.captcha_secret = typeof secret === 'string' ? secret.trim() : null;
    }
  }
  const consent = nullableText(errors, 'consentText', input.consentText, MAX_CONSENT);
  if (consent !== undefined) out.consent_text = consent;
  if (input.autoReply !== undefined) {
    if (typeof input.autoReply !== 'boolean')
      errors.push({ field: 'autoReply', message: 'must be true or false', text: INVALID });
    else out.auto_reply = input.autoReply ? 1 : 0;
  }
  if (input.defaults !== undefined) {
    const d = input.defaults;
    if (d === null) {
      out.default_priority = null;
      out.default_category = null;
    } else if (typeof d !== 'object' || Array.isArray(d)) {
      errors.push({
        field: 'defaults',
        message: 'must be an object { priority?, category? } or null',
        text: INVALID,
      });
    } else {
      const { priority, category } = d as Record<string, unknown>;
      if (priority !== undefined) {
        if (priority === null) out.default_priority = null;
        else if (typeof priority !== 'string' || !(PRIORITIES as readonly string[]).includes(priority)) {
          errors.push({
            field: 'defaults.priority',
            message: `must be one of ${PRIORITIES.join(', ')}`,
            text: { key: 'validation.choice' },
          });
        } else out.default_priority = priority;
      }
      const cat = nullableText(errors, 'defaults.category', category, 100);
      if (cat !== undefined) out.default_category = cat;
    }
  }
  if (input.enabled !== undefined) {
    if (typeof input.enabled !== 'boolean')
      errors.push({ field: 'enabled', message: 'must be true or false', text: INVALID });
    else out.enabled = input.enabled ? 1 : 0;
  }
  if (input.fields !== undefined) {
    const fields = parseFields(input.fields, errors);
    if (fields) out.fields = JSON.stringify(fields);
  } else if (creating) out.fields = JSON.stringify(DEFAULT_FIELDS);
  if (input.questions !== undefined) {
    // A question may not take the honeypot's name either (the one sent, or the default).
    const honeypots = [
      DEFAULT_HONEYPOT,
      ...(typeof input.honeypotField === 'string' ? [input.honeypotField] : []),
    ];
    const questions = parseQuestions(input.questions, new Set([...RESERVED_FIELDS, ...honeypots]), errors);
    if (questions) out.questions = JSON.stringify(questions);
  } else if (creating) out.questions = '[]';
  if (errors.length) throw new ValidationError(errors);
  return out;
}

/**
 * The form as the settings page's unsaved input would show it, for the live preview: each part that shapes the
 * page (language, fields, questions, consent text, captcha) taken when it is valid and kept as saved when it is
 * not; a question still being written (no label yet, a select without options) is left out until it is whole.
 * Nothing is stored.
 */
export function previewOf(form: Form, input: FormInput): Form {
  const language = typeof input.language === 'string' ? input.language.trim().toLowerCase() : undefined;
  const fields = input.fields === undefined ? undefined : parseFields(input.fields, []);
  const reserved = new Set([
    ...RESERVED_FIELDS,
    DEFAULT_HONEYPOT,
    ...(typeof input.honeypotField === 'string' ? [input.honeypotField] : []),
  ]);
  const questions = Array.isArray(input.questions)
    ? input.questions.flatMap((question) => parseQuestions([question], reserved, []) ?? [])
    : form.questions;
  const consent = typeof input.consentText === 'string' ? input.consentText.trim() : input.consentText;
  const captcha = input.captcha as { provider?: unknown; siteKey?: unknown } | null | undefined;
  return {
    ...form,
    language: isLocale(language) ? language : form.language,
    fields: fields ?? form.fields,
    questions,
    consentText:
      consent === null || consent === ''
        ? null
        : typeof consent === 'string'
          ? consent.slice(0, MAX_CONSENT)
          : form.consentText,
    captcha:
      captcha === null
        ? null
        : captcha &&
            typeof captcha.provider === 'string' &&
            (CAPTCHA_PROVIDERS as readonly string[]).includes(captcha.provider)
          ? {
              provider: captcha.provider as CaptchaProvider,
              siteKey: typeof captcha.siteKey === 'string' ? captcha.siteKey : '',
            }
          : form.captcha,
  };
}

export async function createForm(
  store: Store,
  brandId: string,
  input: FormInput,
  now: number = Date.now(),
): Promise<Form> {
  const parsed = parseFormInput(input, true);
  const brandLanguage = await q.selectBrandLanguage(store, brandId);
  const row: FormTable = {
    language: parsed.language ?? (isLocale(brandLanguage) ? brandLanguage : 'en'),
    id: newId('form', now),
    brand_id: brandId,
    name: parsed.name!,
    allowed_origins: parsed.allowed_origins!,
    redirect_url: parsed.redirect_url ?? null,
    honeypot_field: parsed.honeypot_field ?? DEFAULT_HONEYPOT,
    captcha_provider: parsed.captcha_provider ?? null,
    captcha_site_key: parsed.captcha_site_key ?? null,
    captcha_secret: parsed.captcha_secret ?? null,
    consent_text: parsed.consent_text ?? null,
    auto_reply: parsed.auto_reply ?? 0,
    default_priority: parsed.default_priority ?? null,
    default_category: parsed.default_category ?? null,
    enabled: parsed.enabled ?? 1,
    fields: parsed.fields ?? JSON.stringify(DEFAULT_FIELDS),
    questions: parsed.questions ?? '[]',
    created_at: now,
    updated_at: now,
  };
  await store.write((tx) => q.insertForm(tx, row));
  return toForm(row);
}

export async function listForms(
  store: Store,
  brandId: string,
  query: { limit: number; order: SortOrder; cursor?: string },
): Promise<Page<Form>> {
  const rows = await q.selectFormPage(store, brandId, query);
  return toPage(rows, query.limit, query.order, (r) => ({ time: r.created_at, id: r.id }), toForm);
}

export async function getForm(store: Store, brandId: string, id: string): Promise<Form> {
  const row = await q.selectForm(store, brandId, id);
  if (!row) throw new NotFoundError(`No form with id ${id}`);
  return toForm(row);
}

export async function updateForm(
  store: Store,
  brandId: string,
  id: string,
  input: FormInput,
  now: number = Date.now(),
): Promise<Form> {
  const parsed = parseFormInput(input, false);
  const updated = await store.write((tx) => q.updateForm(tx, brandId, id, { ...parsed, updated_at: now }));
  if (!updated) throw new NotFoundError(`No form with id ${id}`);
  return getForm(store, brandId, id);
}

export async function deleteForm(store: Store, brandId: string, id: string): Promise<void> {
  const deleted = await store.write((tx) => q.deleteForm(tx, brandId, id));
  if (!deleted) throw new NotFoundError(`No form with id ${id}`);
}

/** An enabled form by its public id, with its brand; undefined for an unknown or disabled form. */
export async function findPublicForm(store: Store, id: string): Promise<PublicForm | undefined> {
  if (!/^frm_[0-9a-z]{26}$/.test(id)) return undefined;
  const row = await q.selectEnabledForm(store, id);
  if (!row) return undefined;
  return {
    ...toForm(row),
    brandId: row.brand_id,
    brandName: row.brand_name,
    defaultCountry: row.default_country,
    captchaSecret: row.captcha_secret,
  };
}

/** Where a form posts and its hosted page: `<PUBLIC_URL>/f/frm_…` (the API's `endpoint`, the dashboard's snippet). */
export function formEndpoint(publicUrl: string, id: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/f/${id}`;
}

/** The brand's default country (NL when unknown): the country a form's select chooses until people pick another. */
export async function brandCountry(store: Store, brandId: string): Promise<string> {
  return (await q.selectBrandCountry(store, brandId)) ?? 'NL';
}

/** The stored captcha secret of a brand's form (never shown: the dashboard keeps it when a change leaves it out). */
export async function formCaptchaSecret(store: Store, brandId: string, id: string): Promise<string | null> {
  const secret = await q.selectFormCaptchaSecret(store, brandId, id);
  if (secret === undefined) throw new NotFoundError(`No form with id ${id}`);
  return secret;
}

/**
 * The page a post came from (its Referer), when it is an http(s) page on one of the form's allowed origins: the
 * thank-you page links back to it. Undefined for anything else (another site, the hosted page, no Referer).
 */
export function backLink(form: Pick<Form, 'allowedOrigins'>, value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '' || value.length > MAX_URL) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
    if (url.username || url.password) return undefined;
    return form.allowedOrigins.includes(url.origin) ? url.href : undefined;
  } catch {
    return undefined;
  }
}
