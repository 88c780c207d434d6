// First run: while no user exists, each starting instance issues a one-time setup link. Using any of them
// creates the first brand and its owner and kills every link.
import type { Store } from '../platform/db/store.js';
import { DomainError, type FieldError, ValidationError } from '../shared/errors.js';
import { hashSecret, isSecretShaped, newSecret } from '../shared/secrets.js';
import { defaultTimeZone } from '../shared/time-zones.js';
import { createBrand, validateBrandInput } from './brands.js';
import * as q from './queries.js';
import { countUsers, insertUser, parseUserName, prepareUser, type User, validateUserInput } from './users.js';

/** The only brand, when exactly one exists: setup adopts it instead of creating a second one. */
export async function soleBrand(
  store: Store,
): Promise<{ id: string; name: string; defaultCountry: string; timeZone: string } | undefined> {
  const rows = await q.selectBrands(store, 2);
  if (rows.length !== 1) return undefined;
  const [row] = rows as [(typeof rows)[number]];
  return { id: row.id, name: row.name, defaultCountry: row.default_country, timeZone: row.time_zone };
}

export async function isSetupPending(store: Store): Promise<boolean> {
  return (await countUsers(store)) === 0;
}

/**
 * Creates a setup token and returns the URL that uses it, or null when setup is already done. Only the
 * token's hash is stored; the URL exists only in the caller's hands (the server log).
 */
export async function createSetupLink(store: Store, baseUrl: string): Promise<string | null> {
  if (!(await isSetupPending(store))) return null;
  const token = newSecret();
  await store.write((tx) => q.insertSetupToken(tx, hashSecret(token), Date.now()));
  return `${baseUrl.replace(/\/$/, '')}/setup?token=${token}`;
}

/** True when setup is still pending and the token is one of the issued ones. */
export async function isSetupTokenValid(store: Store, token: unknown): Promise<boolean> {
  if (!isSecretShaped(token)) return false;
  return (await q.setupTokenExists(store, hashSecret(token))) && (await isSetupPending(store));
}

export interface SetupInput {
  token: unknown;
  brandName: unknown;
  country: unknown;
  email: unknown;
  /** The owner's display name (optional). */
  name?: unknown;
  password: unknown;
  passwordConfirmation: unknown;
  /** The brand's and the owner's language (nl or en); absent: nl for a Dutch brand, else en. */
  language?: unknown;
}

export class SetupClosedError extends DomainError {
  constructor() {
    super('not_found', 'This setup link is not valid (any more).');
  }
}

/** Creates the brand and its owner, and deletes every setup token, in one transaction. */
export async function completeSetup(store: Store, input: SetupInput): Promise<User> {
  if (!(await isSetupTokenValid(store, input.token))) throw new SetupClosedError();
  const errors: FieldError[] = [];
  let brand: ReturnType<typeof validateBrandInput> = {
    name: '',
    country: '',
    timeZone: 'UTC',
    language: 'en',
  };
  try {
    brand = validateBrandInput({ name: input.brandName, country: input.country, language: input.language });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    errors.push(...error.errors.map((e) => ({ ...e, field: e.field === 'name' ? 'brandName' : e.field })));
  }
  errors.push(...validateUserInput(input));
  if (typeof input.password === 'string' && input.password !== input.passwordConfirmation) {
    errors.push({
      field: 'passwordConfirmation',
      message: 'does not match the password',
      text: { key: 'validation.mismatch' },
    });
  }
  if (errors.length) throw new ValidationError(errors);
  const owner = await prepareUser({
    brandId: '',
    email: input.email as string,
    name: parseUserName(input.name),
    password: input.password as string,
    role: 'owner',
    brandName: brand.name,
    language: brand.language,
  });

  return store.write(async (tx) => {
    // Deleting this token first makes concurrent setups with the same or another token race on the rows
    // they delete: exactly one transaction gets to create the owner.
    if (!(await q.deleteSetupToken(tx, hashSecret(input.token as string)))) throw new SetupClosedError();
    await q.deleteAllSetupTokens(tx);
    if ((await countUsers(tx)) !== 0) throw new SetupClosedError();
    // A brand made with the CLI before anyone had an account (the README's five-minute path) is the one the
    // owner means: adopt it, with the name and country entered, so its existing API keys and leads show up.
    const existing = await soleBrand(tx);
    let brandId: string;
    if (existing) {
      // A zone nobody chose follows the country entered; one chosen with the CLI stays.
      const timeZone =
        existing.timeZone === defaultTimeZone(existing.defaultCountry) ? brand.timeZone : existing.timeZone;
      await q.updateBrand(tx, existing.id, {
        name: brand.name,
        default_country: brand.country,
        time_zone: timeZone,
        language: brand.language,
      });
      brandId = existing.id;
    } else {
      brandId = (
        await createBrand(tx, { name: brand.name, country: brand.country, language: brand.language })
      ).id;
    }
    return insertUser(tx, { ...owner, brand_id: brandId });
  });
}
