// Email + password sign-in with throttling of failures per account and per client address. Failures are
// counted in the database, so the limits hold across every instance behind a load balancer.
import type { Store } from '../db/store.js';
import { iso } from './time.js';
import { hashPassword, type User, verifyPassword } from './users.js';

export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
export const MAX_FAILURES_PER_ACCOUNT = 5;
export const MAX_FAILURES_PER_ADDRESS = 20;

export type SignInResult =
  | { outcome: 'signed-in'; user: User }
  | { outcome: 'wrong' }
  | { outcome: 'throttled'; retryAfterSeconds: number };

// Unknown emails are checked against this hash so they take as long as known ones and reveal nothing.
let decoyHash: Promise<string> | undefined;

export async function signIn(
  store: Store,
  input: { email: unknown; password: unknown; address: string },
  now = Date.now(),
): Promise<SignInResult> {
  const email = typeof input.email === 'string' ? input.email.trim().toLowerCase() : '';
  const password = typeof input.password === 'string' ? input.password : '';
  // The account subject is the email as typed, whether or not it exists, so throttling leaks nothing either.
  const account = `account:${email.slice(0, 320)}`;
  const address = `address:${input.address}`;

  const retryAfter = await throttled(store, account, address, now);
  if (retryAfter !== null) return { outcome: 'throttled', retryAfterSeconds: retryAfter };

  const row =
    email && password.length <= 1024
      ? await store.db
          .selectFrom('users')
          .select(['id', 'brand_id', 'email', 'role', 'created_at', 'password_hash'])
          .where('email_normalized', '=', email)
          .where('disabled_at', 'is', null)
          .executeTakeFirst()
      : undefined;
  let valid = false;
  if (row) {
    valid = await verifyPassword(password, row.password_hash);
  } else {
    decoyHash ??= hashPassword('decoy password that matches nothing');
    await verifyPassword(password, await decoyHash);
  }

  if (!row || !valid) {
    await store.write(async ({ db }) => {
      await db
        .insertInto('sign_in_failures')
        .values([
          { subject: account, at: now },
          { subject: address, at: now },
        ])
        .execute();
      await db
        .deleteFrom('sign_in_failures')
        .where('at', '<=', now - SIGN_IN_WINDOW_MS)
        .execute();
    });
    return { outcome: 'wrong' };
  }
  // A correct password clears the account's count; the address keeps its count (it may be guessing others).
  await store.write(({ db }) => db.deleteFrom('sign_in_failures').where('subject', '=', account).execute());
  return {
    outcome: 'signed-in',
    user: {
      id: row.id,
      brandId: row.brand_id,
      email: row.email,
      role: row.role === 'owner' ? 'owner' : 'member',
      createdAt: iso(row.created_at),
    },
  };
}

/** Seconds until another attempt is allowed, or null when neither the account nor the address is over. */
async function throttled(
  { db }: Store,
  account: string,
  address: string,
  now: number,
): Promise<number | null> {
  const rows = await db
    .selectFrom('sign_in_failures')
    .select(['subject', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.min('at').as('oldest')])
    .where('subject', 'in', [account, address])
    .where('at', '>', now - SIGN_IN_WINDOW_MS)
    .groupBy('subject')
    .execute();
  let waitUntil: number | null = null;
  for (const row of rows) {
    const limit = row.subject === account ? MAX_FAILURES_PER_ACCOUNT : MAX_FAILURES_PER_ADDRESS;
    if (Number(row.n) >= limit) {
      const until = Number(row.oldest) + SIGN_IN_WINDOW_MS;
      waitUntil = Math.max(waitUntil ?? 0, until);
    }
  }
  return waitUntil === null ? null : Math.max(1, Math.ceil((waitUntil - now) / 1000));
}
