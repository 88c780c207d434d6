// Invitations: an admin adds a person by email; the one-time link lets them choose their own password.

import type { Store } from '../platform/db/store.js';
import { DomainError, type FieldError, NotFoundError, ValidationError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { hashSecret, isSecretShaped, newSecret } from '../shared/secrets.js';
import { iso } from '../shared/time.js';
import { isValidEmail } from '../shared/values.js';
import { findBrand, parseLanguage } from './brands.js';
import * as q from './queries.js';
import { insertUser, parseUserName, prepareUser, type Role, type User } from './users.js';

export const INVITE_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

export interface Invite {
  id: string;
  brandId: string;
  email: string;
  role: Role;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
}

function toInvite(row: q.InviteRow): Invite {
  return {
    id: row.id,
    brandId: row.brand_id,
    email: row.email,
    role: row.role === 'owner' ? 'owner' : 'member',
    invitedBy: row.invited_by,
    createdAt: iso(row.created_at),
    expiresAt: iso(row.expires_at),
  };
}

/** A role as a form sends it: 'owner' (or 'admin', the same role) or 'member'. */
export function parseRole(value: unknown): Role {
  if (value === 'owner' || value === 'admin') return 'owner';
  if (value === 'member') return 'member';
  throw new ValidationError([
    { field: 'role', message: 'must be admin or member', text: { key: 'users.role.invalid' } },
  ]);
}

/** Creates an invitation (replacing an earlier one for the same email) and returns it with its token. */
export async function createInvite(
  store: Store,
  input: { brandId: string; email: unknown; role: unknown; invitedBy: string },
  now = Date.now(),
): Promise<Invite & { token: string }> {
  const email = typeof input.email === 'string' ? input.email.trim() : '';
  const errors: FieldError[] = [];
  if (!isValidEmail(email)) {
    errors.push({
      field: 'email',
      message: 'must be a valid email address',
      text: { key: 'validation.email' },
    });
  }
  let role: Role = 'member';
  try {
    role = parseRole(input.role);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    errors.push(...error.errors);
  }
  if (errors.length) throw new ValidationError(errors);
  const normalized = email.toLowerCase();
  if (await q.emailTaken(store, normalized))
    throw new DomainError('conflict', `A user with email ${email} already exists.`);
  const token = newSecret();
  const row = {
    token_hash: hashSecret(token),
    id: newId('invite', now),
    brand_id: input.brandId,
    email,
    email_normalized: normalized,
    role,
    invited_by: input.invitedBy,
    created_at: now,
    expires_at: now + INVITE_LIFETIME_MS,
  };
  await store.write(async (tx) => {
    await q.deleteInvitesOf(tx, input.brandId, normalized);
    await q.insertInvite(tx, row);
  });
  return { ...toInvite(row), token };
}

/** The brand's invitations that can still be used, newest first. */
export async function listInvites(store: Store, brandId: string, now = Date.now()): Promise<Invite[]> {
  return (await q.selectLiveInvites(store, brandId, now)).map(toInvite);
}

export async function withdrawInvite(store: Store, brandId: string, id: string): Promise<void> {
  const deleted = await store.write((tx) => q.deleteInvite(tx, brandId, id));
  if (!deleted) throw new NotFoundError(`No invitation with id ${id}`);
}

/** The invitation behind a link token, if it is still usable. */
export async function findInvite(store: Store, token: unknown, now = Date.now()): Promise<Invite | null> {
  if (!isSecretShaped(token)) return null;
  const row = await q.selectLiveInvite(store, hashSecret(token), now);
  return row ? toInvite(row) : null;
}

/** Uses an invitation: creates the user with the chosen password; the link dies in the same transaction. */
export async function acceptInvite(
  store: Store,
  input: {
    token: unknown;
    name?: unknown;
    password: unknown;
    passwordConfirmation: unknown;
    language?: unknown;
  },
  now = Date.now(),
): Promise<User> {
  const invite = await findInvite(store, input.token, now);
  if (!invite) throw new NotFoundError('This invitation link is not valid (any more).');
  const password = typeof input.password === 'string' ? input.password : '';
  const name = parseUserName(input.name);
  if (password && password !== input.passwordConfirmation) {
    throw new ValidationError([
      {
        field: 'passwordConfirmation',
        message: 'does not match the password',
        text: { key: 'validation.mismatch' },
      },
    ]);
  }
  const brand = await findBrand(store, invite.brandId);
  const language =
    input.language === undefined || input.language === null || input.language === ''
      ? (brand?.language ?? 'en')
      : parseLanguage(input.language);
  const user = await prepareUser({
    brandId: invite.brandId,
    email: invite.email,
    name,
    password,
    role: invite.role,
    brandName: brand?.name,
    language,
  });
  return store.write(async (tx) => {
    if (!(await q.deleteLiveInvite(tx, hashSecret(input.token as string), now))) {
      throw new NotFoundError('This invitation link is not valid (any more).');
    }
    return insertUser(tx, user);
  });
}
