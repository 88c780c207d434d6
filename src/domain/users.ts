// Dashboard users: scrypt password hashes, one brand each.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { DB } from '../db/database.js';
import { DomainError, ValidationError } from './errors.js';
import { newId } from './ids.js';
import { isValidEmail } from './lead-input.js';

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

export const MIN_PASSWORD_LENGTH = 10;

export interface User {
  id: string;
  brandId: string;
  email: string;
  role: 'owner' | 'member';
  createdAt: string;
}

export async function createUser(
  db: DB,
  input: { brandId: string; email: string; password: string; role?: 'owner' | 'member' },
): Promise<User> {
  const email = input.email.trim();
  const errors = [];
  if (!isValidEmail(email)) errors.push({ field: 'email', message: 'must be a valid email address' });
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    errors.push({ field: 'password', message: `must be at least ${MIN_PASSWORD_LENGTH} characters` });
  } else if (input.password.length > 1024) {
    errors.push({ field: 'password', message: 'must be at most 1024 characters' });
  }
  if (errors.length) throw new ValidationError(errors);
  const existing = await db
    .selectFrom('users')
    .select('id')
    .where('email_normalized', '=', email.toLowerCase())
    .executeTakeFirst();
  if (existing) throw new DomainError('conflict', `A user with email ${email} already exists.`);
  const row = {
    id: newId('user'),
    brand_id: input.brandId,
    email,
    email_normalized: email.toLowerCase(),
    password_hash: await hashPassword(input.password),
    role: input.role ?? 'owner',
    created_at: Date.now(),
    disabled_at: null,
  };
  await db.insertInto('users').values(row).execute();
  return {
    id: row.id,
    brandId: row.brand_id,
    email,
    role: row.role as User['role'],
    createdAt: new Date(row.created_at).toISOString(),
  };
}

export async function countUsers(db: DB): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
