import type { Store } from '../platform/db/store.js';
import { type FieldError, ValidationError } from '../shared/errors.js';
import { defaultBrandLocale, isLocale, type Locale } from '../shared/i18n/index.js';
import { newId } from '../shared/ids.js';
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

/** Sets the brand's time zone (Settings > Brand); ValidationError naming timeZone when it is no zone. */
export async function setBrandTimeZone(store: Store, brandId: string, value: unknown): Promise<string> {
  const zone = parseTimeZone(value);
  await store.write((tx) => q.updateBrand(tx, brandId, { time_zone: zone }));
  return zone;
}

/**
 * Sets the brand's language (Settings > Brand): what its new users and website forms default to. People and forms
 * that have a language keep theirs. ValidationError naming language when it is neither nl nor en.
 */
export async function setBrandLanguage(store: Store, brandId: string, value: unknown): Promise<Locale> {
  const language = parseLanguage(value);
  await store.write((tx) => q.updateBrand(tx, brandId, { language }));
  return language;
}

/** The retention periods Settings offers, in months. */
export const RETENTION_CHOICES = [6, 12, 18, 24, 36, 60, 84] as const;
export const RETENTION_MESSAGE = `must be off or a number of months: ${RETENTION_CHOICES.join(', ')}`;

/**
 * Sets the brand's retention (Settings > Brand): "off" (or empty) keeps everything, else one of
 * RETENTION_CHOICES months. ValidationError naming retentionMonths otherwise.
 */
export async function setBrandRetention(
  store: Store,
  brandId: string,
  value: unknown,
): Promise<number | null> {
  const text =
    typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : undefined;
  let months: number | null;
  if (text === '' || text === 'off') months = null;
  else if (text !== undefined && (RETENTION_CHOICES as readonly number[]).includes(Number(text)))
    months = Number(text);
  else throw new ValidationError([{ field: 'retentionMonths', message: RETENTION_MESSAGE }]);
  await store.write((tx) => q.updateBrand(tx, brandId, { retention_months: months }));
  return months;
}

/** The brands with retention on, and their months (the retention run). */
export async function retentionBrands(store: Store): Promise<{ id: string; retentionMonths: number }[]> {
  return (await q.selectBrands(store))
    .filter((b) => b.retention_months !== null)
    .map((b) => ({ id: b.id, retentionMonths: Number(b.retention_months) }));
}
