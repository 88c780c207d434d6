// Dashboard users: scrypt password hashes, one brand each.

import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { Store, Tx } from '../platform/db/store.js';
import { DomainError, type FieldError, NotFoundError, ValidationError } from '../shared/errors.js';
import { isLocale, type Locale } from '../shared/i18n/index.js';
import { newId } from '../shared/ids.js';
import { iso } from '../shared/time.js';
import { isValidEmail } from '../shared/values.js';
import { findBrand, parseLanguage } from './brands.js';
import { checkPassword } from './password-strength.js';
import * as q from './queries.js';

export { countUsers } from './queries.js';

const scrypt = promisify(scryptCallback) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

// N=2^15, r=8, p=1: OWASP's minimum for scrypt, about 50 ms per hash here.
const PARAMS = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, 32, PARAMS);
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: PARAMS.maxmem,
  });
  return timingSafeEqual(actual, expected);
}

export { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './password-strength.js';

/**
 * What a person may do. 'owner' is stored for the brand's admins (shown as "Admin"): API keys, webhooks, website
 * forms, people and settings, besides everything a member does. 'member': leads, work items and customers, and
 * their own new-lead email. A brand always keeps at least one admin.
 */
export type Role = 'owner' | 'member';

export function isAdmin(user: { role: Role }): boolean {
  return user.role === 'owner';
}

export interface User {
  id: string;
  brandId: string;
  email: string;
  /** Display name; null while they have none (their email stands in). */
  name: string | null;
  role: Role;
  /** What they read the dashboard and their mails in. */
  language: Locale;
  createdAt: string;
}

/**
 * The new-lead email a user chose: a mail on every lead, one daily summary at 08:00 in the brand's time zone, or
 * none. Until they choose: every lead for an admin, none for a member.
 */
export const NEW_LEAD_MAIL_CHOICES = ['every', 'daily', 'none'] as const;
export type NewLeadMail = (typeof NEW_LEAD_MAIL_CHOICES)[number];

export function isNewLeadMail(value: unknown): value is NewLeadMail {
  return (NEW_LEAD_MAIL_CHOICES as readonly unknown[]).includes(value);
}

/** What a user gets until they choose: every lead for an admin (role 'owner'), none for a member. */
export function defaultNewLeadMail(role: Role): NewLeadMail {
  return role === 'owner' ? 'every' : 'none';
}

/** A user as the brand's list of people shows them, with their settings. */
export interface ListedUser extends User {
  /** The new-lead email they chose. */
  newLeadMail: NewLeadMail;
}

/**
 * Checks a new user's email and password; returns one error per bad field. The password must not be built
 * from the email or the brand's name (checkPassword), so give the brand name when there is one.
 */
export const MAX_NAME_LENGTH = 100;

/** A display name as typed: trimmed, inner runs of spaces made one; null when empty. ValidationError when too long. */
export function parseUserName(value: unknown, field = 'name'): string | null {
  const name = typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '';
  if (name.length > MAX_NAME_LENGTH) {
    throw new ValidationError([
      {
        field,
        message: `must be at most ${MAX_NAME_LENGTH} characters`,
        text: { key: 'validation.tooLong', values: { max: MAX_NAME_LENGTH } },
      },
    ]);
  }
  return name || null;
}

/** What people see of a user: their display name, or their email while they have none. */
export function displayName(user: { name: string | null; email: string }): string {
  return user.name || user.email;
}

export function validateUserInput(input: {
  email: unknown;
  password: unknown;
  brandName?: unknown;
  name?: unknown;
}): FieldError[] {
  const errors: FieldError[] = [];
  try {
    parseUserName(input.name);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    errors.push(...error.errors);
  }
  const email = typeof input.email === 'string' ? input.email.trim() : '';
  const password = typeof input.password === 'string' ? input.password : '';
  const brandName = typeof input.brandName === 'string' ? input.brandName : '';
  if (!isValidEmail(email)) {
    errors.push({
      field: 'email',
      message: 'must be a valid email address',
      text: { key: 'validation.email' },
    });
  }
  const check = checkPassword(password, [email, brandName]);
  if (!check.ok) errors.push({ field: 'password', message: check.message, text: check.text });
  return errors;
}

export interface NewUser {
  brandId: string;
  email: string;
  password: string;
  role?: Role;
  /** Display name (optional). */
  name?: string | null | undefined;
  /** The brand's name, which the password must not be built from. */
  brandName?: string | undefined;
  /** What they read the dashboard and their mails in; absent: the brand's language. */
  language?: unknown;
}

/** A validated user row with its password hashed: hashing takes a while, so it is done before any write. */
export async function prepareUser(input: NewUser & { language: Locale }) {
  const email = input.email.trim();
  const errors = validateUserInput(input);
  if (errors.length) throw new ValidationError(errors);
  return {
    id: newId('user'),
    brand_id: input.brandId,
    email,
    email_normalized: email.toLowerCase(),
    name: parseUserName(input.name),
    password_hash: await hashPassword(input.password),
    role: input.role ?? 'owner',
    created_at: Date.now(),
    disabled_at: null,
    // Owners hear of every new lead until they choose otherwise; members of none until they choose.
    new_lead_mail: defaultNewLeadMail(input.role ?? 'owner'),
    language: input.language,
  };
}

/** Stores a prepared user; a conflict when the email is taken. */
export function insertUser(store: Store, row: Awaited<ReturnType<typeof prepareUser>>): Promise<User> {
  return store.write(async (tx) => {
    if (!(await q.insertUserUnlessEmailTaken(tx, row))) {
      throw new DomainError('conflict', `A user with email ${row.email} already exists.`);
    }
    return toUser(row);
  });
}

export async function createUser(store: Store, input: NewUser): Promise<User> {
  const brand = await findBrand(store, input.brandId);
  const language = isBlankValue(input.language) ? (brand?.language ?? 'en') : parseLanguage(input.language);
  const brandName = input.brandName ?? brand?.name;
  return insertUser(store, await prepareUser({ ...input, brandName, language }));
}

function isBlankValue(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/** A user as the app knows them, from their row (an unknown role is a member, an unknown language English). */
export function toUser(row: q.UserRow): User {
  return {
    id: row.id,
    brandId: row.brand_id,
    email: row.email,
    name: row.name,
    role: row.role === 'owner' ? 'owner' : 'member',
    language: isLocale(row.language) ? row.language : 'en',
    createdAt: iso(row.created_at),
  };
}

/** The brand's users, oldest first (the first admin leads the list). */
export async function listUsers(store: Store, brandId: string): Promise<ListedUser[]> {
  const rows = await q.selectActiveUsers(store, brandId);
  return rows.map((row) => ({
    ...toUser(row),
    newLeadMail: isNewLeadMail(row.new_lead_mail) ? row.new_lead_mail : 'none',
  }));
}

export async function findUser(store: Store, brandId: string, id: string): Promise<User> {
  const row = await q.selectActiveUser(store, brandId, id);
  if (!row) throw new NotFoundError(`No user with id ${id}`);
  return toUser(row);
}

/** The brand's admins (role 'owner') who can sign in, oldest first. */
export async function listAdmins(store: Store, brandId: string): Promise<User[]> {
  return (await listUsers(store, brandId)).filter(isAdmin);
}

/** Refused: the change would leave the brand without an admin. */
export class LastAdminError extends DomainError {
  constructor(readonly user: User) {
    super('conflict', `${user.email} is the only admin of the brand; make someone else an admin first.`);
    this.name = 'LastAdminError';
  }
}

/**
 * Finds the user in a write and refuses, with LastAdminError, when they are the brand's last admin. On PostgreSQL
 * the brand's row is locked first, so two admins removing (or demoting) each other at the same moment are taken
 * one after the other and the second sees the first's change; SQLite runs one write at a time anyway.
 */
async function guardLastAdmin(tx: Tx, brandId: string, id: string): Promise<User> {
  await q.lockBrand(tx, brandId);
  const user = await findUser(tx, brandId, id);
  if (!isAdmin(user)) return user;
  if (!(await q.otherAdminExists(tx, brandId, id))) throw new LastAdminError(user);
  return user;
}

/**
 * Removes a user of the brand and ends their sessions at once. Nobody removes themselves, and the brand's last
 * admin is never removed (LastAdminError). API keys they created stay valid: a key belongs to the brand.
 */
export async function removeUser(
  store: Store,
  brandId: string,
  id: string,
  actingUserId: string,
): Promise<User> {
  if (id === actingUserId) {
    await findUser(store, brandId, id);
    throw new DomainError('conflict', 'You cannot remove yourself; ask another admin to do it.');
  }
  return store.write(async (tx) => {
    const user = await guardLastAdmin(tx, brandId, id);
    await q.deleteSessionsOfUser(tx, id);
    // Their visits become "nobody yet", so the planning page shows them as still to be given to someone.
    await q.unassignLeads(tx, brandId, id);
    await q.deleteUser(tx, brandId, id);
    return user;
  });
}

/**
 * Makes a user of the brand an admin or a member; it applies from their next request. Demoting the brand's last
 * admin is refused (LastAdminError).
 */
export async function setUserRole(store: Store, brandId: string, id: string, role: Role): Promise<User> {
  return store.write(async (tx) => {
    const user = role === 'owner' ? await findUser(tx, brandId, id) : await guardLastAdmin(tx, brandId, id);
    await q.updateUser(tx, brandId, id, { role });
    return { ...user, role };
  });
}

/** The new-lead email a user of the brand chose (NotFoundError when there is no such active user). */
export async function findNewLeadMail(store: Store, brandId: string, userId: string): Promise<NewLeadMail> {
  const value = await q.selectNewLeadMail(store, brandId, userId);
  if (value === undefined) throw new NotFoundError(`No user with id ${userId}`);
  return isNewLeadMail(value) ? value : 'none';
}

/**
 * Sets the new-lead email a user chose (their own, on Settings > Your account); ValidationError for anything but
 * every, daily or none. `now` is kept with it: a daily summary is due only for a day whose 08:00 comes after it.
 */
export async function setNewLeadMail(
  store: Store,
  brandId: string,
  userId: string,
  value: unknown,
  now: number = Date.now(),
): Promise<NewLeadMail> {
  if (!isNewLeadMail(value)) {
    throw new ValidationError([
      {
        field: 'newLeadMail',
        message: 'must be every, daily or none',
        text: { key: 'account.newLeadMail.choose' },
      },
    ]);
  }
  const updated = await store.write((tx) =>
    q.updateUser(tx, brandId, userId, { new_lead_mail: value, new_lead_mail_at: now }, { onlyActive: true }),
  );
  if (!updated) throw new NotFoundError(`No user with id ${userId}`);
  return value;
}

/** Sets a user's display name (their own, on Settings > Users); empty clears it. */
export async function setUserName(
  store: Store,
  brandId: string,
  userId: string,
  value: unknown,
): Promise<string | null> {
  const name = parseUserName(value);
  const updated = await store.write((tx) =>
    q.updateUser(tx, brandId, userId, { name }, { onlyActive: true }),
  );
  if (!updated) throw new NotFoundError(`No user with id ${userId}`);
  return name;
}

/** Sets the language a user reads the dashboard and their mails in (their own, on Settings > Your account). */
export async function setUserLanguage(
  store: Store,
  brandId: string,
  userId: string,
  value: unknown,
): Promise<Locale> {
  const language = parseLanguage(value);
  const updated = await store.write((tx) =>
    q.updateUser(tx, brandId, userId, { language }, { onlyActive: true }),
  );
  if (!updated) throw new NotFoundError(`No user with id ${userId}`);
  return language;
}
