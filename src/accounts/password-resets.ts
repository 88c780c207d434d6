// "Forgot password": when email is on, anyone may ask for a one-time link to the address of an account. The answer
// is the same whether or not the address has one (no account enumeration), and both cases do the same work: one
// lookup and one write. The link's token is random (256 bits) and is made only when the mail worker sends the mail
// (renderPasswordResetMail, a send-time mail: src/mail/send-time.ts); only its SHA-256 hash is stored, so neither
// the reset nor its queued or sent mail holds anything that opens the link. It works once, for RESET_LIFETIME_MS
// from the request, and a newer request replaces it. Requests are limited per address typed and per client address.

import { queueSendTimeEmail, userMailLocale } from '../mail/outbox.js';
import { passwordResetMail } from '../mail/templates/password-reset.js';
import type { Store, Tx } from '../platform/db/store.js';
import { DomainError, NotFoundError, ValidationError } from '../shared/errors.js';
import { translator } from '../shared/i18n/index.js';
import { newId } from '../shared/ids.js';
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
  await store.write(async (tx) => {
    await q.insertFailures(tx, [subjects.email, subjects.address], now);
    await q.deleteFailuresUpTo(tx, now - PAIR_MEMORY_MS);
    await q.deleteExpiredResets(tx, now);
    if (!owner) return;
    await q.deleteResetsOfUser(tx, owner.id);
    // No token yet: the worker makes it when it sends the mail (renderPasswordResetMail).
    const id = newId('passwordReset', now);
    await q.insertPasswordReset(tx, {
      id,
      token_hash: null,
      user_id: owner.id,
      created_at: now,
      expires_at: now + RESET_LIFETIME_MS,
    });
    const subject = translator(await userMailLocale(tx, owner.id)).t('mail.passwordReset.subject');
    await queueSendTimeEmail(
      tx,
      { brandId: owner.brandId, kind: PASSWORD_RESET_MAIL, recipient: owner.email, subject, ref: id },
      now,
    );
  });
  return { outcome: 'accepted' };
}

/** The kind of the reset mail in the outbox, and the name of its renderer. */
export const PASSWORD_RESET_MAIL = 'password_reset';

/**
 * Writes the reset mail of reset `resetId` as the worker sends it (a SendTimeRenderer): makes the link's token and
 * stores its hash, replacing the one an earlier attempt made (that mail was not delivered, or the newer one
 * is). Null, and nothing is sent, once the reset was used, replaced by a newer request or expired, or its user can
 * no longer sign in.
 */
export async function renderPasswordResetMail(tx: Tx, resetId: string, now: number) {
  const mail = tx.mail;
  if (!mail) throw new Error('Email is off: a reset mail cannot be written.');
  const userId = await q.selectLiveResetUserIdById(tx, resetId, now);
  const owner = userId === undefined ? null : await findPasswordOwner(tx, { id: userId });
  if (!owner) return null;
  const token = newSecret();
  if (!(await q.setResetToken(tx, resetId, hashSecret(token), now))) return null;
  return passwordResetMail({
    locale: await userMailLocale(tx, owner.id),
    brandName: owner.brandName,
    email: owner.email,
    link: `${mail.publicUrl}/reset-password?token=${token}`,
    lifetimeMinutes: Math.round(RESET_LIFETIME_MS / 60_000),
    forgotLink: `${mail.publicUrl}/forgot-password`,
  });
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
