// Dashboard sessions, stored server-side. The browser holds a random token; the database holds its hash.

import type { Store } from '../platform/db/store.js';
import { isLocale, type Locale } from '../shared/i18n/index.js';
import { hashSecret, isSecretShaped, newSecret } from '../shared/secrets.js';
import * as q from './queries.js';

/** A session ends after a week without use, and after 30 days whatever happens. */
export const SESSION_IDLE_MS = 7 * 24 * 60 * 60 * 1000;
export const SESSION_MAX_MS = 30 * 24 * 60 * 60 * 1000;
/** last_seen_at is written at most this often per session, so reading pages costs no write each time. */
const TOUCH_INTERVAL_MS = 60 * 1000;

export interface SessionUser {
  sessionId: string;
  csrfToken: string;
  userId: string;
  email: string;
  /** Display name; null while they have none (the email stands in). */
  name: string | null;
  role: 'owner' | 'member';
  brandId: string;
  brandName: string;
  /** The brand's IANA time zone: the dashboard shows and takes times in it. */
  timeZone: string;
  /** The brand's default country (ISO 3166-1 alpha-2): phones of that country are shown in national format. */
  brandCountry: string;
  /** The language this user reads the dashboard and their mails in. */
  locale: Locale;
  expiresAt: number;
}

export interface NewSession {
  /** Goes in the cookie; never stored. */
  token: string;
  csrfToken: string;
  expiresAt: number;
}

export async function createSession(store: Store, userId: string, now = Date.now()): Promise<NewSession> {
  const token = newSecret();
  const csrfToken = newSecret();
  const expiresAt = now + SESSION_IDLE_MS;
  await store.write(async (tx) => {
    await q.insertSession(tx, {
      id: hashSecret(token),
      user_id: userId,
      csrf_token: csrfToken,
      created_at: now,
      last_seen_at: now,
      expires_at: expiresAt,
    });
    // Expired sessions of anyone are cleared here rather than by a timer: sign-ins are rare and indexed.
    await q.deleteExpiredSessions(tx, now);
  });
  return { token, csrfToken, expiresAt };
}

/** The signed-in user behind a cookie token, or null when it is unknown, expired or its user is gone. */
export async function findSession(
  store: Store,
  token: unknown,
  now = Date.now(),
): Promise<SessionUser | null> {
  if (!isSecretShaped(token)) return null;
  const id = hashSecret(token);
  const row = await q.selectSession(store, id);
  if (!row) return null;
  if (row.expires_at <= now || row.disabled_at !== null) {
    await store.write((tx) => q.deleteSession(tx, id));
    return null;
  }
  let expiresAt = row.expires_at;
  if (now - row.last_seen_at >= TOUCH_INTERVAL_MS) {
    expiresAt = Math.min(now + SESSION_IDLE_MS, row.created_at + SESSION_MAX_MS);
    await store.write((tx) => q.updateSession(tx, id, { last_seen_at: now, expires_at: expiresAt }));
  }
  return {
    sessionId: id,
    csrfToken: row.csrf_token,
    userId: row.user_id,
    email: row.email,
    name: row.name,
    role: row.role === 'owner' ? 'owner' : 'member',
    brandId: row.brand_id,
    brandName: row.brand_name,
    timeZone: row.time_zone,
    brandCountry: row.brand_country,
    locale: isLocale(row.language) ? row.language : 'en',
    expiresAt,
  };
}

/** Ends the session behind a cookie token (sign-out, or the old session on a new sign-in). */
export async function endSession(store: Store, token: unknown): Promise<void> {
  if (!isSecretShaped(token)) return;
  await store.write((tx) => q.deleteSession(tx, hashSecret(token)));
}
