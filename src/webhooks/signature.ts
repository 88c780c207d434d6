// Webhook signatures: `Lead-Intake-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`.
// Kept free of other imports so receivers can load it without the server (lead-intake/webhooks).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Lead-Intake-Signature';
export const EVENT_ID_HEADER = 'Lead-Intake-Event-Id';

function hmac(secret: string, timestamp: number, body: string | Uint8Array): Buffer {
  const mac = createHmac('sha256', secret);
  mac.update(`${timestamp}.`);
  mac.update(body);
  return mac.digest();
}

/**
 * The header value for a body: one v1 per secret. During a secret rotation both the new and the previous secret
 * sign, so a receiver configured with either accepts the delivery.
 */
export function signatureHeader(
  secrets: string | readonly string[],
  body: string | Uint8Array,
  timestamp: number = Math.floor(Date.now() / 1000),
): string {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  return [`t=${timestamp}`, ...list.map((s) => `v1=${hmac(s, timestamp, body).toString('hex')}`)].join(',');
}

/**
 * True when `header` carries a v1 signature of `rawBody` made with `secret`, and its timestamp is within
 * `toleranceSeconds` of now (a replayed old delivery fails). Pass the body exactly as received, before parsing.
 * Comparisons take constant time.
 */
export function verifySignature(
  secret: string,
  header: string | null | undefined,
  rawBody: string | Uint8Array,
  toleranceSeconds = 300,
  now: number = Date.now(),
): boolean {
  if (typeof secret !== 'string' || !secret || typeof header !== 'string' || header.length > 4096)
    return false;
  let timestamp: number | undefined;
  const candidates: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === 't') {
      if (timestamp !== undefined || !/^\d{1,12}$/.test(value)) return false;
      timestamp = Number(value);
    } else if (name === 'v1' && /^[0-9a-f]{64}$/i.test(value)) {
      candidates.push(Buffer.from(value, 'hex'));
    }
  }
  if (timestamp === undefined || !candidates.length) return false;
  if (Math.abs(now / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = hmac(secret, timestamp, rawBody);
  let match = false;
  // Check every candidate, not just until the first match, so timing says nothing about which one matched.
  for (const candidate of candidates) {
    if (timingSafeEqual(candidate, expected)) match = true;
  }
  return match;
}
