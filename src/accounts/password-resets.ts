// "Forgot password": when email is on, anyone may ask for a one-time link to the address of an account. The answer
// is the same whether or not the address has one (no account enumeration), and both cases do the same work: one
// lookup and one write. The link's token is random (256 bits); only its SHA-256 hash is stored. It works once, for
// RESET_LIFETIME_MS, and a newer request replaces it. Requests are limited per address typed and per client address.

import { queueEmail, userMailLocale } from '../mail/outbox.js';
import { passwordResetMail } from '../mail/templates/password-reset.js';
import type { Store } from '../platform/db/store.js';
import { DomainError, NotFoundError, ValidationError } from '../shared/errors.js';
import { hashSecret, isSecretShaped, newSecret } from '../shared/secrets.js';
import { findPasswordOwner, newPasswordErrors, type PasswordOwner, storeNewPassword } from './passwords.js';
import * as q from './queries.js';
import { PAIR_MEMORY_MS } from './sign-in.js';
import { hashPassword } from './users.js';

export const RESET_LIFETIME_MS = 60 * 60 * 1000;
/** At most this many requests per email address typed, and per client address, in RESET_WINDOW_MS. */
export const RESET_REQUESTS_PER_EMAIL = 3;
export const RESET_REQUESTS_PER_ADDRESS = 10;
export const RESET_WINDOW_MS = 60 * 60 * 1000;

export type ResetRequestResult =
  | { outcome: 'accepted' }
  | { outcome: 'throttled'; retryAfterSeconds: number };

/**
 * Asks for a reset link for `email`: when it belongs to a user who can sign in, their older links die and a mail with
 * a new one is queued (in the same transaction); otherwise nothing is sent. Either way the request is counted, and the
 * result says nothing about the account. Requires email to be on.
 */
export async function requestPasswordReset(
  store: Store,
  input: { email: string; address: string },
  now = Date.now(),
): Promise<ResetRequestResult> {
  const mail = store.mail;
  if (!mail) throw new DomainError('conflict', 'Email is off: password reset links cannot be sent.');
  const email = input.email.trim().toLowerCase().slice(0, 320);
  const subjects = { email: `reset-email:${email}`, address: `reset-address:${input.address}` };
  const counts = await q.selectFailureStats(store, [subjects.email, subjects.address], now - RESET_WINDOW_MS);
  const over = counts.filter(
    (row) =>
      Number(row.n) >=
      (row.subject === subjects.email ? RESET_REQUESTS_PER_EMAIL : RESET_REQUESTS_PER_ADDRESS),
  );
  if (over.length) {
    const until = Math.max(...over.map((row) => Number(row.first) + RESET_WINDOW_MS));
    return { outcome: 'throttled', retryAfterSeconds: Math.max(1, Math.ceil((until - now) / 1000)) };
  }

  const owner = await findPasswordOwner(store, { email });
  const token = newSecret();
  await store.write(async (tx) => {
    await q.insertFailures(tx, [subjects.email, subjects.address], now);
    await q.deleteFailuresUpTo(tx, now - PAIR_MEMORY_MS);
    await q.deleteExpiredResets(tx, now);
    if (!owner) return;
    await q.deleteResetsOfUser(tx, owner.id);
    await q.insertPasswordReset(tx, {
      token_hash: hashSecret(token),
      user_id: owner.id,
      created_at: now,
      expires_at: now + RESET_LIFETIME_MS,
    });
    const message = passwordResetMail({
      locale: await userMailLocale(tx, owner.id),
      brandName: owner.brandName,
      email: owner.email,
      link: `${mail.publicUrl}/reset-password?token=${token}`,
      lifetimeMinutes: Math.round(RESET_LIFETIME_MS / 60_000),
      forgotLink: `${mail.publicUrl}/forgot-password`,
    });
    await queueEmail(
      tx,
      { brandId: owner.brandId, kind: 'password_reset', recipient: owner.email, ...message },
      now,
    );
  });
  return { outcome: 'accepted' };
}

/** The user a reset link is for, while it can be used (unused, unexpired, the user still there). */
export async function findPasswordReset(
  store: Store,
  token: unknown,
  now = Date.now(),
): Promise<PasswordOwner | null> {
  if (!isSecretShaped(token)) return null;
  const userId = await q.selectLiveResetUserId(store, hashSecret(token), now);
  return userId === undefined ? null : findPasswordOwner(store, { id: userId });
}

/**
 * Uses a reset link: sets the new password (given twice; the strength rule applies), ends every session of the user,
 * forgets their failed sign-ins, and kills the link (and any other of theirs) in the same transaction. A link that
 * cannot be used is a NotFoundError; a bad password a ValidationError, and the link still works.
 */
export async function resetPassword(
  store: Store,
  input: { token: unknown; password: unknown; passwordConfirmation: unknown },
  now = Date.now(),
): Promise<PasswordOwner> {
  const notValid = () => new NotFoundError('This password reset link is not valid (any more).');
  const owner = await findPasswordReset(store, input.token, now);
  if (!owner) throw notValid();
  const errors = newPasswordErrors(owner, input.password, input.passwordConfirmation);
  if (errors.length) throw new ValidationError(errors);
  const hash = await hashPassword(input.password as string);
  await store.write(async (tx) => {
    // Used at the same moment by another request: only one of them sets a password.
    if (!(await q.deleteLiveReset(tx, hashSecret(input.token as string), owner.id, now))) throw notValid();
    await storeNewPassword(tx, owner, hash, { clearFailures: true });
  });
  return owner;
}
