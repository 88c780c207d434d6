import type { Store } from '../platform/db/store.js';
import { ValidationError } from '../shared/errors.js';
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
  createdAt: string;
}

function toBrand(row: q.BrandRow): Brand {
  return {
    id: row.id,
    name: row.name,
    defaultCountry: row.default_country,
    timeZone: row.time_zone,
    createdAt: iso(row.created_at),
  };
}

export const TIME_ZONE_MESSAGE = 'must be an IANA time zone name such as "Europe/Amsterdam" or "UTC"';

/** A brand's time zone as given, canonically spelled; ValidationError naming `field` when it is no zone. */
export function parseTimeZone(value: unknown, field = 'timeZone'): string {
  const zone = canonicalTimeZone(value);
  if (!zone) throw new ValidationError([{ field, message: TIME_ZONE_MESSAGE }]);
  return zone;
}

export function validateBrandInput(input: { name: unknown; country?: unknown; timeZone?: unknown }): {
  name: string;
  country: string;
  timeZone: string;
} {
  const errors = [];
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (isBlank(name)) errors.push({ field: 'name', message: 'is required' });
  else if (name.length > 200) errors.push({ field: 'name', message: 'must be at most 200 characters' });
  const given = input.country === undefined || input.country === null ? '' : String(input.country).trim();
  const country = given === '' ? 'NL' : normalizeCountry(given);
  if (!country) {
    errors.push({ field: 'country', message: 'must be an ISO 3166-1 alpha-2 country code such as "NL"' });
  }
  const zoneGiven = input.timeZone !== undefined && input.timeZone !== null && input.timeZone !== '';
  const timeZone = zoneGiven ? canonicalTimeZone(input.timeZone) : defaultTimeZone(country ?? 'NL');
  if (!timeZone) errors.push({ field: 'timeZone', message: TIME_ZONE_MESSAGE });
  if (errors.length || !country || !timeZone) throw new ValidationError(errors);
  return { name, country, timeZone };
}

/** Creates a brand; its time zone defaults to the country's (Europe/Amsterdam for NL, else UTC). */
export async function createBrand(
  store: Store,
  input: { name: unknown; country?: unknown; timeZone?: unknown },
): Promise<Brand> {
  const { name, country, timeZone } = validateBrandInput(input);
  const row = {
    id: newId('brand'),
    name,
    default_country: country,
    time_zone: timeZone,
    created_at: Date.now(),
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
