// Webhook signatures: `Lead-Intake-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` (keyed
// with the whole secret string, as Stripe's libraries expect), and the Standard Webhooks headers `webhook-id`,
// `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">` (keyed with the
// base64-decoded part of the secret after `whsec_`, as the standardwebhooks libraries expect).
// Kept free of other imports so receivers can load it without the server (lead-intake/webhooks).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Lead-Intake-Signature';
export const EVENT_ID_HEADER = 'Lead-Intake-Event-Id';
export const STANDARD_ID_HEADER = 'webhook-id';
export const STANDARD_TIMESTAMP_HEADER = 'webhook-timestamp';
export const STANDARD_SIGNATURE_HEADER = 'webhook-signature';

const STANDARD_PREFIX = 'whsec_';
const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MIN_STANDARD_KEY_BYTES = 16;

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

/**
 * The Standard Webhooks signing key of a secret: the part after `whsec_` (the whole secret without that prefix),
 * decoded as standard base64 (with padding). Null when that part is not standard base64 of at least 16 bytes, as
 * for secrets issued earlier (`whsec_` + base64url): such secrets get no `webhook-signature` (the
 * `Lead-Intake-Signature` still signs with them); rotating the secret gives one in the standard format.
 */
export function standardSigningKey(secret: string): Buffer | null {
  if (typeof secret !== 'string') return null;
  const encoded = secret.startsWith(STANDARD_PREFIX) ? secret.slice(STANDARD_PREFIX.length) : secret;
  if (encoded.length > 1024 || !STANDARD_BASE64.test(encoded)) return null;
  const key = Buffer.from(encoded, 'base64');
  return key.length >= MIN_STANDARD_KEY_BYTES ? key : null;
}

function standardHmac(key: Buffer, msgId: string, timestamp: number, body: string | Uint8Array): Buffer {
  const mac = createHmac('sha256', key);
  mac.update(`${msgId}.${timestamp}.`);
  mac.update(body);
  return mac.digest();
}

/**
 * The `webhook-signature` value: `v1,<base64>` per secret, space-separated during a rotation ("v1,abc v1,def").
 * Secrets without a Standard Webhooks key (see standardSigningKey) are left out; null when none has one, and then
 * the header is not sent.
 */
export function standardSignatureHeader(
  secrets: string | readonly string[],
  msgId: string,
  timestamp: number,
  body: string | Uint8Array,
): string | null {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  const signatures: string[] = [];
  for (const secret of list) {
    const key = standardSigningKey(secret);
    if (key) signatures.push(`v1,${standardHmac(key, msgId, timestamp, body).toString('base64')}`);
  }
  return signatures.length ? signatures.join(' ') : null;
}

export type HeaderBag =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined | null>>;

function headerValue(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() !== name) continue;
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && value.length === 1 && typeof value[0] === 'string') return value[0];
    return undefined;
  }
  return undefined;
}

/**
 * True when the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`; a plain object
 * such as Node's `req.headers`, any case, or a fetch `Headers`) carry a v1 signature of `rawBody` made with
 * `secret` (`whsec_` + base64), and the timestamp is within `toleranceSeconds` of now. Pass the body exactly as
 * received, before parsing. Comparisons take constant time.
 */
export function verifyStandardSignature(
  secret: string,
  headers: HeaderBag | null | undefined,
  rawBody: string | Uint8Array,
  toleranceSeconds = 300,
  now: number = Date.now(),
): boolean {
  if (!headers || typeof headers !== 'object') return false;
  const key = standardSigningKey(secret);
  const msgId = headerValue(headers, STANDARD_ID_HEADER);
  const timestampText = headerValue(headers, STANDARD_TIMESTAMP_HEADER);
  const signature = headerValue(headers, STANDARD_SIGNATURE_HEADER);
  if (!key || !msgId || msgId.length > 256 || !timestampText || !signature || signature.length > 4096)
    return false;
  if (!/^\d{1,12}$/.test(timestampText)) return false;
  const timestamp = Number(timestampText);
  if (Math.abs(now / 1000 - timestamp) > toleranceSeconds) return false;
  const candidates: Buffer[] = [];
  for (const part of signature.split(' ')) {
    const comma = part.indexOf(',');
    if (comma < 0 || part.slice(0, comma) !== 'v1') continue;
    const value = part.slice(comma + 1);
    if (value.length === 44 && STANDARD_BASE64.test(value)) candidates.push(Buffer.from(value, 'base64'));
  }
  if (!candidates.length) return false;
  const expected = standardHmac(key, msgId, timestamp, rawBody);
  let match = false;
  for (const candidate of candidates) {
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) match = true;
  }
  return match;
}
