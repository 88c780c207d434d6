// IPv6 forms that carry an IPv4 address: each is judged by the IPv4 it carries (or refused outright), so a webhook
// cannot reach loopback, private networks or the metadata service through a translation prefix.
import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, isPublicAddress } from '../../src/webhooks/url-guard.js';

const strict = { allowHttp: false, allowPrivate: false };

const hex = (ipv4: string) => {
  const [a, b, c, d] = ipv4.split('.').map(Number) as [number, number, number, number];
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
};
const xorHex = (ipv4: string) => hex(ipv4).map((g) => (Number.parseInt(g, 16) ^ 0xffff).toString(16));

/** Every IPv6 form that embeds an IPv4 address, written the ways a DNS answer or a URL may write it. */
const EMBEDDINGS: Record<string, (ipv4: string) => string[]> = {
  'IPv4-mapped ::ffff:0:0/96': (v4) => [`::ffff:${v4}`, `::ffff:${hex(v4).join(':')}`],
  'IPv4-translated ::ffff:0:0:0/96': (v4) => [`::ffff:0:${v4}`, `::ffff:0:${hex(v4).join(':')}`],
  'NAT64 64:ff9b::/96': (v4) => [`64:ff9b::${v4}`, `64:ff9b::${hex(v4).join(':')}`],
  'NAT64 local-use 64:ff9b:1::/48 (as a /96)': (v4) => [
    `64:ff9b:1::${v4}`,
    `64:ff9b:1::${hex(v4).join(':')}`,
  ],
  '6to4 2002::/16': (v4) => [`2002:${hex(v4).join(':')}::1`, `2002:${hex(v4).join(':')}:1::abcd`],
};

/** Forms that are refused whatever IPv4 they carry. */
const ALWAYS_REFUSED: Record<string, (ipv4: string) => string[]> = {
  'IPv4-compatible ::/96 (deprecated)': (v4) => [`::${v4}`, `::${hex(v4).join(':')}`],
  'Teredo 2001::/32': (v4) => [`2001:0:4136:e378:8000:63bf:${xorHex(v4).join(':')}`],
};

const NOT_PUBLIC_V4 = ['127.0.0.1', '10.1.2.3', '192.168.1.1', '169.254.169.254', '172.16.0.1', '100.64.0.1'];

describe('IPv6 forms that embed an IPv4 address', () => {
  for (const [name, forms] of Object.entries({ ...EMBEDDINGS, ...ALWAYS_REFUSED })) {
    it.each(NOT_PUBLIC_V4)(`${name} embedding %s is refused`, (v4) => {
      for (const address of forms(v4)) expect(isPublicAddress(address), address).toBe(false);
    });
  }

  for (const [name, forms] of Object.entries(EMBEDDINGS)) {
    it(`${name} embedding a public IPv4 follows that IPv4's rules`, () => {
      for (const address of forms('8.8.8.8')) expect(isPublicAddress(address), address).toBe(true);
      for (const address of forms('93.184.216.34')) expect(isPublicAddress(address), address).toBe(true);
    });
  }

  for (const [name, forms] of Object.entries(ALWAYS_REFUSED)) {
    it(`${name} is refused even when it embeds a public IPv4`, () => {
      for (const address of forms('8.8.8.8')) expect(isPublicAddress(address), address).toBe(false);
    });
  }

  it('refuses other layouts of the local-use NAT64 prefix, and the rest of 64:ff9b::/32', () => {
    // A /48 translator reads bits 48-63 and 72-87: 127.0.0.1 here, although the last 32 bits say 8.8.8.8.
    expect(isPublicAddress('64:ff9b:1:7f00:0:100:808:808')).toBe(false);
    expect(isPublicAddress('64:ff9b:0:1::808:808')).toBe(false);
  });

  it('refuses addresses outside global unicast 2000::/3 and keeps allowing public IPv6', () => {
    for (const address of ['::101', '100::1', '400::1', '1fff::1', 'e000::1']) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    for (const address of ['2606:4700::1111', '2a00:1450:4001:80b::200e', '2a01:4f8::1']) {
      expect(isPublicAddress(address), address).toBe(true);
    }
  });

  it.each([
    'https://[64:ff9b:1::7f00:1]/hook',
    'https://[::ffff:0:7f00:1]/hook',
    'https://[::ffff:0:10.0.0.1]/hook',
    'https://[64:ff9b::a9fe:a9fe]/hook',
    'https://[2002:c0a8:101::1]/hook',
    'https://[::127.0.0.1]/hook',
    'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook',
  ])('refuses the webhook URL %s', async (url) => {
    await expect(checkWebhookUrl(url, strict)).rejects.toThrow(/^resolves to a private address/);
  });

  it('accepts a NAT64 address of a public host', async () => {
    await expect(checkWebhookUrl('https://[64:ff9b::808:808]/hook', strict)).resolves.toBe(
      'https://[64:ff9b::808:808]/hook',
    );
  });
});
