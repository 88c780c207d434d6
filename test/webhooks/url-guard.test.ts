import { describe, expect, it } from 'vitest';
import { sendWebhook } from '../../src/webhooks/sender.js';
import {
  checkWebhookUrl,
  isPublicAddress,
  parseWebhookUrl,
  type Resolver,
} from '../../src/webhooks/url-guard.js';
import { startReceiver } from '../receiver.js';

const strict = { allowHttp: false, allowPrivate: false };

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.254',
    '0.0.0.0',
    '224.0.0.251',
    '255.255.255.255',
    '198.18.0.1',
    '::',
    '::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1%eth0',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.1.2.3',
    '::ffff:a9fe:a9fe',
    '64:ff9b::10.0.0.1',
    '2002:0a00:0001::1',
    '2001:db8::1',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])(
    'allows %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it('refuses what is not an address', () => {
    expect(isPublicAddress('example.com')).toBe(false);
  });
});

describe('webhook URLs', () => {
  it('must be https; http only to local hosts, and only when allowed', () => {
    expect(() => parseWebhookUrl('http://127.0.0.1/x', strict)).toThrow('must use https');
    const local = { allowHttp: true, allowPrivate: false };
    for (const url of ['http://127.0.0.1:8080/x', 'http://localhost/x', 'http://[::1]:9/x']) {
      expect(parseWebhookUrl(url, local).href).toBe(url);
    }
    expect(() => parseWebhookUrl('http://example.com/x', local)).toThrow(/only for 127\.0\.0\.1/);
    expect(() => parseWebhookUrl('ftp://example.com/x', local)).toThrow('must use https');
    expect(() => parseWebhookUrl('https://u:p@example.com/x', strict)).toThrow(/user name or password/);
    expect(() => parseWebhookUrl('https://example.com/x#frag', strict)).toThrow(/fragment/);
    expect(() => parseWebhookUrl('example.com/x', strict)).toThrow(/absolute URL/);
  });

  it('refuses a name when any address it resolves to is not public', async () => {
    const resolve: Resolver = async (host) =>
      host === 'mixed.example'
        ? [
            { address: '93.184.216.34', family: 4 },
            { address: '10.0.0.5', family: 4 },
          ]
        : [{ address: '93.184.216.34', family: 4 }];
    // The rule that refused, never the address: what an internal name resolves to is not told.
    const refused = await checkWebhookUrl('https://mixed.example/hook', strict, resolve).catch((e) => e);
    expect(refused).toBeInstanceOf(Error);
    expect(refused.message).toMatch(/^resolves to a private address/);
    expect(refused.message).not.toContain('10.0.0.5');
    expect(refused.message).not.toContain('93.184');
    await expect(checkWebhookUrl('https://public.example/hook', strict, resolve)).resolves.toBe(
      'https://public.example/hook',
    );
    await expect(
      checkWebhookUrl('https://private.example/hook', { ...strict, allowPrivate: true }, async () => [
        { address: '10.0.0.5', family: 4 },
      ]),
    ).resolves.toBe('https://private.example/hook');
  });
});

describe('sendWebhook', () => {
  it('connects to the address it checked, keeping the URL’s host name in Host', async () => {
    const receiver = await startReceiver();
    try {
      let lookups = 0;
      // A name that would resolve elsewhere on a second lookup (DNS rebinding): only the checked answer is used.
      const resolve: Resolver = async () => {
        lookups++;
        return lookups === 1 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.9.9.9', family: 4 }];
      };
      const result = await sendWebhook({
        url: `http://localhost:${receiver.port}/pinned`,
        body: '{}',
        headers: {},
        timeoutMs: 5000,
        policy: { allowHttp: true, allowPrivate: true },
        resolve,
      });
      expect(result).toMatchObject({ ok: true, responseStatus: 200, error: null });
      expect(lookups).toBe(1);
      expect(receiver.received[0]!.headers.host).toBe(`localhost:${receiver.port}`);
      expect(receiver.received[0]!.path).toBe('/pinned');
    } finally {
      await receiver.close();
    }
  });

  it('refuses before connecting when the name resolves to a private address', async () => {
    const receiver = await startReceiver();
    try {
      const result = await sendWebhook({
        url: `http://localhost:${receiver.port}/hook`,
        body: '{}',
        headers: {},
        timeoutMs: 5000,
        policy: { allowHttp: true, allowPrivate: false },
        resolve: async () => [{ address: '127.0.0.1', family: 4 }],
      });
      expect(result).toMatchObject({ ok: false, responseStatus: null });
      expect(result.error).toMatch(/^refused: resolves to a private address/);
      expect(result.error).not.toContain('127.0.0.1');
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  it('reports a connection that fails', async () => {
    const receiver = await startReceiver();
    const port = receiver.port;
    await receiver.close();
    const result = await sendWebhook({
      url: `http://127.0.0.1:${port}/gone`,
      body: '{}',
      headers: {},
      timeoutMs: 5000,
      policy: { allowHttp: true, allowPrivate: true },
    });
    expect(result).toMatchObject({ ok: false, responseStatus: null });
    expect(result.error).toMatch(/ECONNREFUSED/);
  });
});
