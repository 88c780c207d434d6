// One-time messages from a dashboard form post to the page it redirects to (post/redirect/get), for what must be
// shown exactly once: a new API key, an invitation link, a webhook signing secret. The post stores the value and
// answers 303; the page after the redirect takes it (reading deletes it), so reloading or going Back shows it no
// more. Rows are shared by every instance through the database, and expire after FLASH_LIFETIME_MS.
//
// The value is encrypted (AES-256-GCM) under a key derived from the session's cookie token. The database keeps only
// that token's hash (the session id), so its rows, a backup or a replica reveal no secret, and only the browser that
// made the post can read the value back.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Store, Tx } from '../platform/db/store.js';
import { hashSecret, isSecretShaped } from '../shared/secrets.js';
import * as q from './queries.js';

export const FLASH_LIFETIME_MS = 5 * 60 * 1000;

function keyOf(sessionToken: string): Buffer {
  return createHmac('sha256', sessionToken).update('lead-intake dashboard flash').digest();
}

function seal(sessionToken: string, name: string, value: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(sessionToken), iv);
  cipher.setAAD(Buffer.from(name));
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

function open(sessionToken: string, name: string, payload: string): string | null {
  try {
    const bytes = Buffer.from(payload, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keyOf(sessionToken), bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(name));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/** Stores `value` for the session behind `sessionToken` (replacing one of the same name) until taken or expired. */
export async function putFlash(
  store: Store,
  sessionToken: string,
  name: string,
  value: string,
  now = Date.now(),
): Promise<void> {
  if (!isSecretShaped(sessionToken)) throw new Error('a flash needs the session cookie token');
  const sessionId = hashSecret(sessionToken);
  await store.write(async (tx) => {
    // Expired flashes of anyone go here rather than by a timer: they are few, and the index makes this cheap.
    await q.deleteExpiredFlashes(tx, now);
    await q.deleteFlash(tx, sessionId, name);
    await q.insertFlash(tx, {
      session_id: sessionId,
      name,
      payload: seal(sessionToken, name, value),
      expires_at: now + FLASH_LIFETIME_MS,
    });
  });
}

/**
 * The value stored under `name` for this session, deleting it: the first read gets it, every later one null (also
 * when it expired, or two requests raced and the other one took it).
 */
export async function takeFlash(
  store: Store,
  sessionToken: unknown,
  name: string,
  now = Date.now(),
): Promise<string | null> {
  if (!isSecretShaped(sessionToken)) return null;
  const sessionId = hashSecret(sessionToken);
  return store.write(async (tx) => {
    const row = await q.selectFlash(tx, sessionId, name);
    if (!row) return null;
    const deleted = await q.deleteFlash(tx, sessionId, name);
    if (!deleted || Number(row.expires_at) <= now) return null;
    return open(sessionToken, name, row.payload);
  });
}

/** Erasure: deletes every flash (of any session) that mentions one of these values, compared in lower case. */
export async function dropFlashesMentioning(tx: Tx, values: readonly string[]): Promise<void> {
  await q.deleteFlashesMentioning(
    tx,
    values.map((v) => v.toLowerCase()),
  );
}
