// Email + password sign-in, throttled per (account, client address) pair with growing delays, so an attacker slows
// down their own guesses without locking the owner out from anywhere else. Failures are counted in the database,
// so the throttle holds across every instance behind a load balancer.
//
// - A pair (the email as typed, the client address) may fail FAILURES_BEFORE_DELAY times; after that each attempt
//   must wait FIRST_DELAY_MS, doubling per further failure (1 s, 2 s, 4 s, …), at most MAX_DELAY_MS, counted from
//   the pair's last failure. A throttled attempt is not checked and not counted. The pair's failures are forgotten
//   PAIR_MEMORY_MS after they happened, or at once when the pair signs in.
// - Password spraying (few guesses on many accounts from one address): once an address has ADDRESS_FAILURES
//   failures within ADDRESS_WINDOW_MS, across all accounts, its pairs are delayed from their first failure. An
//   account with no failures from that address still has its password checked, so a correct one always works.
// - Nothing is kept per account alone: failures from one address never delay the same account elsewhere.

import type { Store, Tx } from '../platform/db/store.js';
import * as q from './queries.js';
import { hashPassword, toUser, type User, verifyPassword } from './users.js';

export const FAILURES_BEFORE_DELAY = 5;
export const FIRST_DELAY_MS = 1000;
export const MAX_DELAY_MS = 15 * 60 * 1000;
export const PAIR_MEMORY_MS = 24 * 60 * 60 * 1000;
export const ADDRESS_FAILURES = 20;
export const ADDRESS_WINDOW_MS = 15 * 60 * 1000;

export type SignInResult =
  | { outcome: 'signed-in'; user: User }
  | { outcome: 'wrong' }
  | { outcome: 'throttled'; retryAfterSeconds: number };

/** How long a pair with `failures` failures must wait after its last one (0: no wait). */
export function pairDelayMs(failures: number, freeFailures = FAILURES_BEFORE_DELAY): number {
  if (failures < freeFailures) return 0;
  return Math.min(FIRST_DELAY_MS * 2 ** (failures - freeFailures), MAX_DELAY_MS);
}

// Unknown emails are checked against this hash so they take as long as known ones and reveal nothing.
let decoyHash: Promise<string> | undefined;

export async function signIn(
  store: Store,
  input: { email: unknown; password: unknown; address: string },
  now = Date.now(),
): Promise<SignInResult> {
  const email = typeof input.email === 'string' ? input.email.trim().toLowerCase() : '';
  const password = typeof input.password === 'string' ? input.password : '';
  // The pair is the email as typed, whether or not it exists, so throttling leaks nothing either. An address has
  // no "|", so the subject is unambiguous.
  const pair = `pair:${input.address}|${email.slice(0, 320)}`;
  const address = `address:${input.address}`;

  const retryAfter = await throttled(store, pair, address, now);
  if (retryAfter !== null) return { outcome: 'throttled', retryAfterSeconds: retryAfter };

  const row = email && password.length <= 1024 ? await q.selectSignInUser(store, email) : undefined;
  let valid = false;
  if (row) {
    valid = await verifyPassword(password, row.password_hash);
  } else {
    decoyHash ??= hashPassword('decoy password that matches nothing');
    await verifyPassword(password, await decoyHash);
  }

  if (!row || !valid) {
    await store.write(async (tx) => {
      await q.insertFailures(tx, [pair, address], now);
      // Everything older than the longest memory goes, including per-account rows of earlier versions.
      await q.deleteFailuresUpTo(tx, now - PAIR_MEMORY_MS);
    });
    return { outcome: 'wrong' };
  }
  // A correct password clears the pair; the address keeps its count (it may be guessing other accounts).
  await store.write((tx) => q.deleteFailures(tx, pair));
  return {
    outcome: 'signed-in',
    user: toUser(row),
  };
}

/**
 * Forgets the failed sign-ins for an account from every address (after its password was reset: whoever reset it
 * proved who they are). Each address's own count stays.
 */
export function clearSignInFailures(tx: Tx, emailNormalized: string): Promise<void> {
  return q.deleteAccountPairFailures(tx, emailNormalized);
}

/** Seconds until the pair may try again, or null when it may try now. */
async function throttled(store: Store, pair: string, address: string, now: number): Promise<number | null> {
  const rows = await q.selectFailureStats(
    store,
    [pair, address],
    now - PAIR_MEMORY_MS,
    now - ADDRESS_WINDOW_MS,
  );
  const pairRow = rows.find((row) => row.subject === pair);
  if (!pairRow) return null;
  const addressRow = rows.find((row) => row.subject === address);
  const spraying = (addressRow?.recent ?? 0) >= ADDRESS_FAILURES;
  const delay = pairDelayMs(pairRow.n, spraying ? 1 : FAILURES_BEFORE_DELAY);
  const until = pairRow.last + delay;
  return until > now ? Math.max(1, Math.ceil((until - now) / 1000)) : null;
}
