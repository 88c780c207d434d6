import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signatureHeader, verifySignature } from '../../src/webhooks/signature.js';

const secret = 'whsec_test_secret';
const body = '{"id":"evt_1","type":"lead.created"}';
const now = 1_800_000_000_000;
const t = now / 1000;

const v1 = (key: string, timestamp: number, payload: string) =>
  createHmac('sha256', key).update(`${timestamp}.${payload}`).digest('hex');

describe('verifySignature', () => {
  it('accepts the header the sender makes, as the contract defines it', () => {
    const header = signatureHeader(secret, body, t);
    expect(header).toBe(`t=${t},v1=${v1(secret, t, body)}`);
    expect(verifySignature(secret, header, body, 300, now)).toBe(true);
    expect(verifySignature(secret, header, Buffer.from(body), 300, now)).toBe(true);
  });

  it('refuses another body, another secret, or a tampered signature', () => {
    const header = signatureHeader(secret, body, t);
    expect(verifySignature(secret, header, `${body} `, 300, now)).toBe(false);
    expect(verifySignature('whsec_other', header, body, 300, now)).toBe(false);
    const flipped = header.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
    expect(verifySignature(secret, flipped, body, 300, now)).toBe(false);
  });

  it('refuses timestamps outside the tolerance, either way', () => {
    const header = signatureHeader(secret, body, t);
    expect(verifySignature(secret, header, body, 300, now + 300_000)).toBe(true);
    expect(verifySignature(secret, header, body, 300, now + 301_000)).toBe(false);
    expect(verifySignature(secret, header, body, 300, now - 301_000)).toBe(false);
    expect(verifySignature(secret, header, body, 600, now + 400_000)).toBe(true);
  });

  it('accepts any of several v1 values (secret rotation), and ignores unknown schemes', () => {
    const header = signatureHeader(['whsec_new', secret], body, t);
    expect(header.split(',')).toHaveLength(3);
    expect(verifySignature(secret, header, body, 300, now)).toBe(true);
    expect(verifySignature('whsec_new', header, body, 300, now)).toBe(true);
    expect(verifySignature(secret, `v0=abc,${header},v2=zzz`, body, 300, now)).toBe(true);
  });

  it('refuses malformed headers', () => {
    const sig = v1(secret, t, body);
    for (const header of [
      undefined,
      null,
      '',
      `v1=${sig}`,
      `t=${t}`,
      `t=abc,v1=${sig}`,
      `t=${t},t=${t},v1=${sig}`,
      `t=${t},v1=${sig.slice(0, 63)}`,
      `t=${t},v1=${'z'.repeat(64)}`,
    ]) {
      expect(verifySignature(secret, header, body, 300, now), String(header)).toBe(false);
    }
    expect(verifySignature('', `t=${t},v1=${sig}`, body, 300, now)).toBe(false);
  });

  it('is exported by the package entry and by lead-intake/webhooks', async () => {
    const entry = await import('../../src/index.js');
    expect(entry.verifySignature).toBe(verifySignature);
    const pkg = await import('../../package.json', { with: { type: 'json' } });
    expect(pkg.default.exports['./webhooks']).toEqual({
      types: './dist/webhooks/signature.d.ts',
      import: './dist/webhooks/signature.js',
    });
  });
});
