import type { Store } from '../db/store.js';
import { ValidationError } from './errors.js';
import { newId } from './ids.js';
import { normalizeCountry } from './lead-input.js';
import { isBlank } from './text.js';
import { iso } from './time.js';

export interface Brand {
  id: string;
  name: string;
  defaultCountry: string;
  createdAt: string;
}

type BrandRow = { id: string; name: string; default_country: string; created_at: number };

function toBrand(row: BrandRow): Brand {
  return {
    id: row.id,
    name: row.name,
    defaultCountry: row.default_country,
    createdAt: iso(row.created_at),
  };
}

export function validateBrandInput(input: { name: unknown; country?: unknown }): {
  name: string;
  country: string;
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
  if (errors.length || !country) throw new ValidationError(errors);
  return { name, country };
}

export async function createBrand(store: Store, input: { name: unknown; country?: unknown }): Promise<Brand> {
  const { name, country } = validateBrandInput(input);
  const row = { id: newId('brand'), name, default_country: country, created_at: Date.now() };
  await store.write(({ db }) => db.insertInto('brands').values(row).execute());
  return toBrand(row);
}

export async function listBrands({ db }: Store): Promise<Brand[]> {
  const rows = await db.selectFrom('brands').selectAll().orderBy('id').execute();
  return rows.map(toBrand);
}

export async function findBrand({ db }: Store, id: string): Promise<Brand | undefined> {
  const row = await db.selectFrom('brands').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toBrand(row) : undefined;
}
