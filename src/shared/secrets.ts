// Random one-time secrets (session, setup and invite tokens) and the hash under which they are stored.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes (256 bits), base64url: 43 characters, safe in cookies, URLs and form fields. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Looks like something newSecret() made: refuses junk before it reaches the database. */
export function isSecretShaped(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);
}

/** Constant-time string comparison (for tokens compared outside the database). */
export function secretsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
