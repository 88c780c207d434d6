// Invitations: an admin adds a person by email; the one-time link lets them choose their own password. The link is
// shown once to the admin (only its hash is stored; the page after the post gets it as an encrypted flash) and,
// when email is on, a second link is mailed to the address; that one's token is made when the mail is sent
// (renderInvitationMail, a send-time mail), so no usable link is ever stored. Either works, once, until the
// invitation is used, withdrawn or expires.
//
// Inviting never tells whether the address has an account with another brand: the answer, and the work done for
// it, depend only on the brand's own users (an address of one of them is refused, as the admin sees them anyway).
// An address can hold one account in the whole service, so whoever uses the link of an address that has one is
// told then, on the invitation page, that the address already has an account (acceptInvite's conflict): the
// address's owner, or someone the admin gave the link to.

import { queueSendTimeEmail } from '../mail/outbox.js';
import { invitationMail, invitationSubject } from '../mail/templates/invitation.js';
import type { Store, Tx } from '../platform/db/store.js';
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

/** The kind of the invitation mail in the outbox, and the name of its renderer. */
export const INVITATION_MAIL = 'invitation';

/**
 * Creates an invitation (replacing an earlier one of the brand for the same email) and returns it with the token
 * of the link to show the admin once; when email is on, the invitation mail is queued in the same write
 * (`emailed`). A conflict only when a user of this brand has the address.
 */
export async function createInvite(
  store: Store,
  input: { brandId: string; email: unknown; role: unknown; invitedBy: string },
  now = Date.now(),
): Promise<Invite & { token: string; emailed: boolean }> {
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
  if (await q.brandHasUserWithEmail(store, input.brandId, normalized))
    throw new DomainError('conflict', `A user with email ${email} already exists.`);
  const brand = await findBrand(store, input.brandId);
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
  const emailed = store.mail !== null;
  await store.write(async (tx) => {
    await q.deleteInvitesOf(tx, input.brandId, normalized);
    await q.insertInvite(tx, row);
    if (!emailed) return;
    const subject = invitationSubject(brand?.language ?? 'en', brand?.name ?? '');
    await queueSendTimeEmail(
      tx,
      { brandId: input.brandId, kind: INVITATION_MAIL, recipient: email, subject, ref: row.id },
      now,
    );
  });
  return { ...toInvite(row), token, emailed };
}

/**
 * Writes the invitation mail of invitation `inviteId` as the worker sends it (a SendTimeRenderer), in the brand's
 * language: makes the emailed link's token and stores its hash (replacing an earlier attempt's). Null, and nothing
 * is sent, once the invitation was used, withdrawn, replaced or has expired.
 */
export async function renderInvitationMail(tx: Tx, inviteId: string, now: number) {
  const mail = tx.mail;
  if (!mail) throw new Error('Email is off: an invitation mail cannot be written.');
  const invite = await q.selectLiveInviteById(tx, inviteId, now);
  const brand = invite ? await findBrand(tx, invite.brand_id) : undefined;
  if (!invite || !brand) return null;
  const token = newSecret();
  if (!(await q.setInviteMailToken(tx, invite.id, hashSecret(token), now))) return null;
  return invitationMail({
    locale: brand.language,
    brandName: brand.name,
    email: invite.email,
    invitedBy: invite.invited_by,
    role: invite.role === 'owner' ? 'owner' : 'member',
    link: `${mail.publicUrl}/invite?token=${token}`,
    lifetimeDays: Math.round(INVITE_LIFETIME_MS / 86_400_000),
  });
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
