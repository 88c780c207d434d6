// Changing a password after it was chosen: by its owner (Settings > Your account, with the current one), through a
// reset link, or by whoever runs the command line. Every new password passes the same strength rule as setup and
// invitations (checkPassword, not built from the person's email or company name).
import type { Store, Tx } from '../platform/db/store.js';
import { type FieldError, NotFoundError, ValidationError } from '../shared/errors.js';
import { checkPassword } from './password-strength.js';
import * as q from './queries.js';
import { clearSignInFailures, pairDelayMs } from './sign-in.js';
import { hashPassword, verifyPassword } from './users.js';

/** The failures of "Current password" are counted per user (rows in sign_in_failures with this prefix). */
const CHANGE_SUBJECT = 'change-password:';
/** Failed "Current password" attempts are forgotten after this long, or when the change succeeds. */
const CHANGE_MEMORY_MS = 24 * 60 * 60 * 1000;

export interface PasswordOwner {
  id: string;
  brandId: string;
  email: string;
  emailNormalized: string;
  brandName: string;
  passwordHash: string;
}

/** The user (who can sign in) with what their password must not be built from. */
export async function findPasswordOwner(
  store: Store,
  by: { id: string } | { email: string },
): Promise<PasswordOwner | null> {
  const row = await q.selectPasswordOwner(
    store,
    'id' in by ? { id: by.id } : { emailNormalized: by.email.trim().toLowerCase() },
  );
  if (!row) return null;
  return {
    id: row.id,
    brandId: row.brand_id,
    email: row.email,
    emailNormalized: row.email_normalized,
    brandName: row.brand_name,
    passwordHash: row.password_hash,
  };
}

/**
 * The problems with a new password and its confirmation, as field errors: "password" (length and strength, given
 * the owner's email and company name) and "passwordConfirmation".
 */
export function newPasswordErrors(
  owner: Pick<PasswordOwner, 'email' | 'brandName'>,
  password: unknown,
  confirmation: unknown,
): FieldError[] {
  const text = typeof password === 'string' ? password : '';
  const errors: FieldError[] = [];
  const check = checkPassword(text, [owner.email, owner.brandName]);
  if (!check.ok) errors.push({ field: 'password', message: check.message, text: check.text });
  if (text !== confirmation) {
    errors.push({
      field: 'passwordConfirmation',
      message: 'does not match the new password',
      text: { key: 'password.mismatchNew' },
    });
  }
  return errors;
}

/**
 * Stores a new password hash and signs the user out: every session of theirs ends except `keepSessionId` (the one
 * that changed it), and every reset link of theirs dies. With `clearFailures`, failed sign-ins for their email are
 * forgotten too (after a reset: the owner has proved who they are). Returns how many sessions ended.
 */
export async function storeNewPassword(
  tx: Tx,
  owner: Pick<PasswordOwner, 'id' | 'emailNormalized'>,
  passwordHash: string,
  options: { keepSessionId?: string; clearFailures?: boolean } = {},
): Promise<number> {
  await q.updatePasswordHash(tx, owner.id, passwordHash);
  const ended = await q.deleteSessionsOfUser(tx, owner.id, options.keepSessionId);
  await q.deleteResetsOfUser(tx, owner.id);
  await q.deleteFailures(tx, `${CHANGE_SUBJECT}${owner.id}`);
  if (options.clearFailures) await clearSignInFailures(tx, owner.emailNormalized);
  return ended;
}

export type ChangePasswordResult =
  | { outcome: 'changed'; signedOut: number }
  | { outcome: 'throttled'; retryAfterSeconds: number };

/**
 * A signed-in user changes their own password: the current one must be right, the new one given twice and strong.
 * Wrong current passwords are counted per user; after FAILURES_BEFORE_DELAY of them each attempt waits, doubling
 * (as sign-in does), so a stolen session cannot be used to guess the password quickly. On success every other
 * session of the user ends; the one making the change stays. Field errors are a ValidationError.
 */
export async function changePassword(
  store: Store,
  input: {
    userId: string;
    sessionId: string;
    currentPassword: unknown;
    password: unknown;
    passwordConfirmation: unknown;
  },
  now = Date.now(),
): Promise<ChangePasswordResult> {
  const owner = await findPasswordOwner(store, { id: input.userId });
  if (!owner) throw new NotFoundError(`No user with id ${input.userId}`);
  const subject = `${CHANGE_SUBJECT}${owner.id}`;
  const [failures] = await q.selectFailureStats(store, [subject], now - CHANGE_MEMORY_MS);
  const until = (failures?.last ?? 0) + pairDelayMs(failures?.n ?? 0);
  if ((failures?.n ?? 0) > 0 && until > now) {
    return { outcome: 'throttled', retryAfterSeconds: Math.max(1, Math.ceil((until - now) / 1000)) };
  }

  const current = typeof input.currentPassword === 'string' ? input.currentPassword : '';
  const errors: FieldError[] = [];
  const right =
    current.length > 0 && current.length <= 1024 && (await verifyPassword(current, owner.passwordHash));
  if (!right) {
    errors.push(
      current
        ? { field: 'currentPassword', message: 'is wrong', text: { key: 'password.currentWrong' } }
        : { field: 'currentPassword', message: 'is required', text: { key: 'validation.required' } },
    );
    if (current) {
      await store.write((tx) => q.insertFailures(tx, [subject], now));
    }
  }
  errors.push(...newPasswordErrors(owner, input.password, input.passwordConfirmation));
  if (errors.length) throw new ValidationError(errors);

  const hash = await hashPassword(input.password as string);
  const signedOut = await store.write((tx) =>
    storeNewPassword(tx, owner, hash, { keepSessionId: input.sessionId }),
  );
  return { outcome: 'changed', signedOut };
}

/**
 * Sets a user's password from the command line (no current password, no email needed): the strength rule applies,
 * every session of theirs ends, and their failed sign-ins and reset links are cleared.
 */
export async function resetPasswordDirectly(
  store: Store,
  email: string,
  password: string,
): Promise<{ owner: PasswordOwner; signedOut: number }> {
  const owner = await findPasswordOwner(store, { email });
  if (!owner) throw new NotFoundError(`No user with email ${email.trim()}.`);
  const errors = newPasswordErrors(owner, password, password);
  if (errors.length) throw new ValidationError(errors);
  const hash = await hashPassword(password);
  const signedOut = await store.write((tx) => storeNewPassword(tx, owner, hash, { clearFailures: true }));
  return { owner, signedOut };
}
