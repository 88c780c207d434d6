import type { Store } from '../platform/db/store.js';
import { type FieldError, ValidationError } from '../shared/errors.js';
import { defaultBrandLocale, isLocale, type Locale } from '../shared/i18n/index.js';
import { newId } from '../shared/ids.js';
import { isPriority, PRIORITIES, type Priority } from '../shared/priorities.js';
import { isBlank } from '../shared/text.js';
import { iso } from '../shared/time.js';
import { canonicalTimeZone, defaultTimeZone } from '../shared/time-zones.js';
import { normalizeCountry } from '../shared/values.js';
import * as q from './queries.js';

export interface Brand {
  id: string;
  name: string;
  defaultCountry: string;
  /** IANA time zone the dashboard shows and takes times in. */
  timeZone: string;
  /** What its new users, website forms and dashboard-typed leads' mails default to. */
  language: Locale;
  /** Retention: leads untouched this many months are erased; null keeps everything (the default). */
  retentionMonths: number | null;
  /** The display name in the From of its mails, as set; null: its name (see mailSenderName). */
  mailSenderName: string | null;
  /** A new lead's priority when none is given (API, website forms, the dashboard). */
  defaultPriority: Priority;
  /** When an admin put the "Get started" checklist away; null while it shows. */
  firstRunDismissedAt: string | null;
  createdAt: string;
}

function toBrand(row: q.BrandRow): Brand {
  return {
    id: row.id,
    name: row.name,
    defaultCountry: row.default_country,
    timeZone: row.time_zone,
    language: isLocale(row.language) ? row.language : 'en',
    retentionMonths: row.retention_months === null ? null : Number(row.retention_months),
    mailSenderName: row.mail_sender_name ?? null,
    defaultPriority: isPriority(row.default_priority) ? row.default_priority : 'medium',
    firstRunDismissedAt: row.first_run_dismissed_at == null ? null : iso(Number(row.first_run_dismissed_at)),
    createdAt: iso(row.created_at),
  };
}

export const TIME_ZONE_MESSAGE = 'must be an IANA time zone name such as "Europe/Amsterdam" or "UTC"';

/** A brand's time zone as given, canonically spelled; ValidationError naming `field` when it is no zone. */
export function parseTimeZone(value: unknown, field = 'timeZone'): string {
  const zone = canonicalTimeZone(value);
  if (!zone) throw new ValidationError([{ field, message: TIME_ZONE_MESSAGE, text: TIME_ZONE_TEXT }]);
  return zone;
}

export const LANGUAGE_MESSAGE = 'must be nl or en';
const TIME_ZONE_TEXT = { key: 'brand.timeZone.invalid' } as const;
const LANGUAGE_TEXT = { key: 'validation.language' } as const;

/** A language as given (nl or en, any case); ValidationError naming `field` when it is neither. */
export function parseLanguage(value: unknown, field = 'language'): Locale {
  const given = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (!isLocale(given))
    throw new ValidationError([{ field, message: LANGUAGE_MESSAGE, text: LANGUAGE_TEXT }]);
  return given;
}

export interface BrandInput {
  name: unknown;
  country?: unknown;
  timeZone?: unknown;
  /** nl or en; absent: nl for a Dutch brand, else en. */
  language?: unknown;
}

export function validateBrandInput(input: BrandInput): {
  name: string;
  country: string;
  timeZone: string;
  language: Locale;
} {
  const errors: FieldError[] = [];
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (isBlank(name))
    errors.push({ field: 'name', message: 'is required', text: { key: 'validation.required' } });
  else if (name.length > 200) {
    errors.push({
      field: 'name',
      message: 'must be at most 200 characters',
      text: { key: 'validation.tooLong', values: { max: 200 } },
    });
  }
  const given = input.country === undefined || input.country === null ? '' : String(input.country).trim();
  const country = given === '' ? 'NL' : normalizeCountry(given);
  if (!country) {
    errors.push({
      field: 'country',
      message: 'must be an ISO 3166-1 alpha-2 country code such as "NL"',
      text: { key: 'brand.country.invalid' },
    });
  }
  const zoneGiven = input.timeZone !== undefined && input.timeZone !== null && input.timeZone !== '';
  const timeZone = zoneGiven ? canonicalTimeZone(input.timeZone) : defaultTimeZone(country ?? 'NL');
  if (!timeZone) errors.push({ field: 'timeZone', message: TIME_ZONE_MESSAGE, text: TIME_ZONE_TEXT });
  const languageGiven = input.language !== undefined && input.language !== null && input.language !== '';
  const language = languageGiven
    ? String(input.language).trim().toLowerCase()
    : defaultBrandLocale(country ?? 'NL');
  if (!isLocale(language)) errors.push({ field: 'language', message: LANGUAGE_MESSAGE, text: LANGUAGE_TEXT });
  if (errors.length || !country || !timeZone || !isLocale(language)) throw new ValidationError(errors);
  return { name, country, timeZone, language };
}

/** Creates a brand; its time zone defaults to the country's (Europe/Amsterdam for NL, else UTC). */
export async function createBrand(store: Store, input: BrandInput): Promise<Brand> {
  const { name, country, timeZone, language } = validateBrandInput(input);
  const row = {
    id: newId('brand'),
    name,
    default_country: country,
    time_zone: timeZone,
    language,
    created_at: Date.now(),
    retention_months: null,
    mail_sender_name: null,
    default_priority: null,
    first_run_dismissed_at: null,
    visit_notices: 1,
  };
  await store.write((tx) => q.insertBrand(tx, row));
  return toBrand(row);
}

export async function listBrands(store: Store): Promise<Brand[]> {
  return (await q.selectBrands(store)).map(toBrand);
}

export async function findBrand(store: Store, id: string): Promise<Brand | undefined> {
  const row = await q.selectBrand(store, id);
  return row ? toBrand(row) : undefined;
}

const MAX_NAME = 200;
/** The longest mail sender name: a From display name that stays on one line in every mail program. */
export const MAX_SENDER_NAME = 100;

// biome-ignore lint/suspicious/noControlCharactersInRegex: that is the point of this check
const CONTROL = /[\u0000-\u001f\u007f]/;

/** A required one-line text, trimmed: empty, too long or holding a control character is an error. */
function oneLine(
  errors: FieldError[],
  field: string,
  value: unknown,
  max: number,
  required: boolean,
): string | null {
  const text = typeof value === 'string' ? value.trim() : '';
  if (value !== null && value !== undefined && typeof value !== 'string') {
    errors.push({ field, message: 'must be a string', text: { key: 'validation.invalid' } });
  } else if (isBlank(text)) {
    if (required) errors.push({ field, message: 'is required', text: { key: 'validation.required' } });
    return null;
  } else if (CONTROL.test(text)) {
    errors.push({
      field,
      message: 'must not contain control characters',
      text: { key: 'validation.controlCharacters' },
    });
  } else if (text.length > max) {
    errors.push({
      field,
      message: `must be at most ${max} characters`,
      text: { key: 'validation.tooLong', values: { max } },
    });
  } else return text;
  return null;
}

/** The retention periods Settings offers, in months. */
export const RETENTION_CHOICES = [6, 12, 18, 24, 36, 60, 84] as const;
export const RETENTION_MESSAGE = `must be off or a number of months: ${RETENTION_CHOICES.join(', ')}`;
export const PRIORITY_MESSAGE = `must be one of ${PRIORITIES.join(', ')}`;

/** "off" (or empty) keeps everything, else one of RETENTION_CHOICES months; undefined when it is neither. */
function parseRetention(value: unknown): number | null | undefined {
  const text =
    typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : undefined;
  if (text === '' || text === 'off') return null;
  if (text !== undefined && (RETENTION_CHOICES as readonly number[]).includes(Number(text)))
    return Number(text);
  return undefined;
}

/** What Settings > Brand may change; what is left out stays as it is. */
export interface BrandSettingsInput {
  name?: unknown;
  /** ISO 3166-1 alpha-2 (any case). */
  country?: unknown;
  timeZone?: unknown;
  /** nl or en. */
  language?: unknown;
  /** Empty or null: the brand's name again. */
  mailSenderName?: unknown;
  defaultPriority?: unknown;
  /** "off", or one of RETENTION_CHOICES months. */
  retentionMonths?: unknown;
}

/**
 * Changes the brand's settings (Settings > Brand): every given field is checked first and nothing is stored
 * unless all are right (ValidationError naming each wrong one); then all are stored in one write.
 */
export async function updateBrandSettings(
  store: Store,
  brandId: string,
  input: BrandSettingsInput,
): Promise<void> {
  const errors: FieldError[] = [];
  const set: Parameters<typeof q.updateBrand>[2] = {};
  const given = (value: unknown) => value !== undefined;
  if (given(input.name)) {
    const name = oneLine(errors, 'name', input.name, MAX_NAME, true);
    if (name !== null) set.name = name;
  }
  if (given(input.country)) {
    const country = typeof input.country === 'string' ? normalizeCountry(input.country.trim()) : null;
    if (country) set.default_country = country;
    else
      errors.push({
        field: 'country',
        message: 'must be an ISO 3166-1 alpha-2 country code such as "NL"',
        text: { key: 'brand.country.invalid' },
      });
  }
  if (given(input.timeZone)) {
    const zone = canonicalTimeZone(input.timeZone);
    if (zone) set.time_zone = zone;
    else errors.push({ field: 'timeZone', message: TIME_ZONE_MESSAGE, text: TIME_ZONE_TEXT });
  }
  if (given(input.language)) {
    const language =
      typeof input.language === 'string' ? input.language.trim().toLowerCase() : input.language;
    if (isLocale(language)) set.language = language;
    else errors.push({ field: 'language', message: LANGUAGE_MESSAGE, text: LANGUAGE_TEXT });
  }
  if (given(input.mailSenderName)) {
    const before = errors.length;
    const name = oneLine(errors, 'mailSenderName', input.mailSenderName, MAX_SENDER_NAME, false);
    if (errors.length === before) set.mail_sender_name = name;
  }
  if (given(input.defaultPriority)) {
    const priority =
      typeof input.defaultPriority === 'string' ? input.defaultPriority.trim().toLowerCase() : null;
    if (isPriority(priority)) set.default_priority = priority;
    else
      errors.push({
        field: 'defaultPriority',
        message: PRIORITY_MESSAGE,
        text: { key: 'brand.priority.invalid' },
      });
  }
  if (given(input.retentionMonths)) {
    const months = parseRetention(input.retentionMonths);
    if (months !== undefined) set.retention_months = months;
    else errors.push({ field: 'retentionMonths', message: RETENTION_MESSAGE });
  }
  if (errors.length) throw new ValidationError(errors);
  if (Object.keys(set).length) await store.write((tx) => q.updateBrand(tx, brandId, set));
}

/** The display name in the From of the brand's mails: the one set, else the brand's name. */
export const mailSenderName = (brand: Pick<Brand, 'name' | 'mailSenderName'>): string =>
  brand.mailSenderName ?? brand.name;

/** Puts the dashboard's "Get started" checklist away for the whole brand. */
export async function dismissFirstRun(store: Store, brandId: string, now = Date.now()): Promise<void> {
  await store.write((tx) => q.updateBrand(tx, brandId, { first_run_dismissed_at: now }));
}

/** The brands with retention on, and their months (the retention run). */
export async function retentionBrands(store: Store): Promise<{ id: string; retentionMonths: number }[]> {
  return (await q.selectBrands(store))
    .filter((b) => b.retention_months !== null)
    .map((b) => ({ id: b.id, retentionMonths: Number(b.retention_months) }));
}
