// The Standard Webhooks signature (webhook-id, webhook-timestamp, webhook-signature), checked against the
// standardwebhooks package itself, and the format of new secrets. No network.
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newSecret } from '../../src/webhooks/endpoints.js';
import {
  STANDARD_ID_HEADER,
  STANDARD_SIGNATURE_HEADER,
  STANDARD_TIMESTAMP_HEADER,
  signatureHeader,
  standardSignatureHeader,
  standardSigningKey,
  verifySignature,
  verifyStandardSignature,
} from '../../src/webhooks/signature.js';

const key = Buffer.alloc(32, 7);
const secret = `whsec_${key.toString('base64')}`;
const other = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const msgId = 'evt_01JDTESTEVENT0000000000000';
const body = '{"id":"evt_1","type":"lead.created","data":{"name":"Zoë"}}';
const now = 1_800_000_000_000;
const t = now / 1000;

const headersFor = (signature: string | null, id = msgId, timestamp = t) => ({
  [STANDARD_ID_HEADER]: id,
  [STANDARD_TIMESTAMP_HEADER]: String(timestamp),
  ...(signature === null ? {} : { [STANDARD_SIGNATURE_HEADER]: signature }),
});

describe('standardSignatureHeader', () => {
  it('is v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>"> keyed with the decoded secret', () => {
    const expected = createHmac('sha256', key).update(`${msgId}.${t}.${body}`).digest('base64');
    expect(standardSignatureHeader(secret, msgId, t, body)).toBe(`v1,${expected}`);
    expect(standardSignatureHeader(secret, msgId, t, Buffer.from(body))).toBe(`v1,${expected}`);
  });

  it('is what the standardwebhooks package makes and accepts', () => {
    const webhook = new Webhook(secret);
    const header = standardSignatureHeader(secret, msgId, t, body);
    expect(header).toBe(webhook.sign(msgId, new Date(now), body));
    const live = Math.floor(Date.now() / 1000);
    const liveHeader = standardSignatureHeader(secret, msgId, live, body);
    expect(webhook.verify(body, headersFor(liveHeader, msgId, live))).toEqual(JSON.parse(body));
  });

  it('lists one v1 per secret, space-separated, during a rotation; each secret verifies', () => {
    const live = Math.floor(Date.now() / 1000);
    const header = standardSignatureHeader([other, secret], msgId, live, body);
    expect(header).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    for (const s of [secret, other]) {
      expect(new Webhook(s).verify(body, headersFor(header, msgId, live))).toEqual(JSON.parse(body));
      expect(verifyStandardSignature(s, headersFor(header, msgId, live), body)).toBe(true);
    }
  });

  it('leaves out secrets that are not whsec_ + standard base64 of at least 16 bytes', () => {
    const legacy = `whsec_${Buffer.alloc(32, 0xfb).toString('base64url')}`; // has - and _, no padding
    expect(standardSigningKey(legacy)).toBeNull();
    expect(standardSigningKey('whsec_test_secret')).toBeNull();
    expect(standardSigningKey(`whsec_${Buffer.alloc(15).toString('base64')}`)).toBeNull();
    expect(standardSigningKey('whsec_')).toBeNull();
    expect(standardSigningKey(`whsec_${Buffer.alloc(16, 1).toString('base64')}`)).toEqual(
      Buffer.alloc(16, 1),
    );
    // Without the prefix, as the standardwebhooks package also accepts.
    expect(standardSigningKey(key.toString('base64'))).toEqual(key);
    expect(standardSignatureHeader(legacy, msgId, t, body)).toBeNull();
    expect(standardSignatureHeader([secret, legacy], msgId, t, body)).toBe(
      standardSignatureHeader(secret, msgId, t, body),
    );
  });
});

describe('verifyStandardSignature', () => {
  const header = standardSignatureHeader(secret, msgId, t, body) as string;

  it('accepts the sender’s headers in any case, as a plain object or fetch Headers', () => {
    expect(verifyStandardSignature(secret, headersFor(header), body, 300, now)).toBe(true);
    expect(verifyStandardSignature(secret, headersFor(header), Buffer.from(body), 300, now)).toBe(true);
    const upper = {
      'Webhook-Id': msgId,
      'WEBHOOK-TIMESTAMP': String(t),
      'Webhook-Signature': header,
    };
    expect(verifyStandardSignature(secret, upper, body, 300, now)).toBe(true);
    expect(verifyStandardSignature(secret, new Headers(headersFor(header)), body, 300, now)).toBe(true);
  });

  it('refuses another body, id, timestamp, secret, or a tampered signature', () => {
    expect(verifyStandardSignature(secret, headersFor(header), `${body} `, 300, now)).toBe(false);
    expect(verifyStandardSignature(secret, headersFor(header, 'evt_other'), body, 300, now)).toBe(false);
    expect(verifyStandardSignature(secret, headersFor(header, msgId, t + 1), body, 300, now + 1000)).toBe(
      false,
    );
    expect(verifyStandardSignature(other, headersFor(header), body, 300, now)).toBe(false);
    const flipped = header.replace(/^v1,./, (m) => (m.endsWith('A') ? 'v1,B' : 'v1,A'));
    expect(verifyStandardSignature(secret, headersFor(flipped), body, 300, now)).toBe(false);
  });

  it('refuses timestamps outside the tolerance, either way', () => {
    expect(verifyStandardSignature(secret, headersFor(header), body, 300, now + 300_000)).toBe(true);
    expect(verifyStandardSignature(secret, headersFor(header), body, 300, now + 301_000)).toBe(false);
    expect(verifyStandardSignature(secret, headersFor(header), body, 300, now - 301_000)).toBe(false);
  });

  it('ignores other versions and refuses malformed or missing headers', () => {
    expect(verifyStandardSignature(secret, headersFor(`v1a,xyz v2,abc ${header}`), body, 300, now)).toBe(
      true,
    );
    for (const bad of [
      headersFor(null),
      headersFor(''),
      headersFor(header.replace('v1,', 'v1=')),
      headersFor(header.slice(0, -2)),
      headersFor(header, ''),
      { [STANDARD_ID_HEADER]: msgId, [STANDARD_SIGNATURE_HEADER]: header },
      { ...headersFor(header), [STANDARD_TIMESTAMP_HEADER]: 'soon' },
    ]) {
      expect(verifyStandardSignature(secret, bad, body, 300, now), JSON.stringify(bad)).toBe(false);
    }
    expect(verifyStandardSignature(secret, null, body, 300, now)).toBe(false);
    expect(verifyStandardSignature('whsec_test_secret', headersFor(header), body, 300, now)).toBe(false);
  });

  it('is exported by the package entry', async () => {
    const entry = await import('../../src/index.js');
    expect(entry.verifyStandardSignature).toBe(verifyStandardSignature);
  });
});

describe('new secrets', () => {
  it('are whsec_ + standard base64 (with padding) of 32 random bytes', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const s = newSecret();
      expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const decoded = Buffer.from(s.slice('whsec_'.length), 'base64');
      expect(decoded).toHaveLength(32);
      expect(decoded.toString('base64')).toBe(s.slice('whsec_'.length));
      expect(standardSigningKey(s)).toEqual(decoded);
      expect(() => new Webhook(s)).not.toThrow();
      seen.add(s);
    }
    expect(seen.size).toBe(200);
  });

  it('sign both header families: Lead-Intake-Signature keyed with the whole string', () => {
    const s = newSecret();
    const lis = signatureHeader(s, body, t);
    expect(lis).toBe(`t=${t},v1=${createHmac('sha256', s).update(`${t}.${body}`).digest('hex')}`);
    expect(verifySignature(s, lis, body, 300, now)).toBe(true);
    const std = standardSignatureHeader(s, msgId, t, body) as string;
    expect(verifyStandardSignature(s, headersFor(std), body, 300, now)).toBe(true);
  });
});
