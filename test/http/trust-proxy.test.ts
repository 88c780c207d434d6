// TRUST_PROXY decides which X-Forwarded-For hops are believed, and so the address per-address limits count against.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';
import { apiClient } from '../api.js';
import { awayFromWindowEdge, createTestContext, type TestContext, testConfig } from '../helpers.js';

const BAD_KEY = `lik_${'x'.repeat(43)}`;
const trustProxy = (value: string) => loadConfig({ TRUST_PROXY: value }).trustProxy;

/** An app with one extra route that says what the request looks like from inside. */
async function appTrusting(value: string): Promise<App> {
  const app = await buildApp(testConfig('sqlite', { trustProxy: trustProxy(value) }), {
    logger: false,
    defaultMetrics: false,
  });
  app.get('/test/client', async (request) => ({ ip: request.ip, protocol: request.protocol }));
  await app.ready();
  return app;
}

/** What the app takes the client to be for a request from `remoteAddress`, through proxies that say `forwardedFor`. */
function client(
  app: App,
  remoteAddress: string,
  forwardedFor?: string,
): Promise<{ ip: string; protocol: string }> {
  return apiClient(app, null).read('/test/client', {
    remoteAddress,
    headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': forwardedFor },
  });
}

describe('which client address and protocol a request has', () => {
  const apps: App[] = [];
  const trusting = async (value: string) => {
    const app = await appTrusting(value);
    apps.push(app);
    return app;
  };
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  it('off (the default): X-Forwarded-For and X-Forwarded-Proto are ignored', async () => {
    const app = await trusting('0');
    expect(await client(app, '127.0.0.1', '203.0.113.9')).toEqual({ ip: '127.0.0.1', protocol: 'http' });
  });

  it('TRUST_PROXY=1: only the hop our proxy appended counts, whatever the client put before it', async () => {
    const app = await trusting('1');
    // nginx appends the address it saw ($proxy_add_x_forwarded_for) to whatever the client sent.
    expect(await client(app, '127.0.0.1', '10.0.7.1, 198.51.100.4')).toEqual({
      ip: '198.51.100.4',
      protocol: 'https',
    });
    expect(await client(app, '127.0.0.1', '198.51.100.4')).toEqual({ ip: '198.51.100.4', protocol: 'https' });
    expect((await client(app, '127.0.0.1')).ip).toBe('127.0.0.1');
  });

  it('TRUST_PROXY=2: two proxies, two hops', async () => {
    const app = await trusting('2');
    expect((await client(app, '10.0.0.2', '10.0.7.1, 198.51.100.4, 10.0.0.1')).ip).toBe('198.51.100.4');
  });

  it('a list of proxies: only a peer in the list is believed, and only hops in the list are walked past', async () => {
    const app = await trusting('10.0.0.0/8,::1');
    // A client outside the list that sends the headers itself is taken at its socket address.
    expect(await client(app, '203.0.113.5', '198.51.100.1')).toEqual({ ip: '203.0.113.5', protocol: 'http' });
    // Through a listed proxy: the first address that is not a listed proxy.
    expect(await client(app, '10.1.2.3', '198.51.100.1, 203.0.113.5')).toEqual({
      ip: '203.0.113.5',
      protocol: 'https',
    });
    expect((await client(app, '10.1.2.3', '198.51.100.1, 203.0.113.5, 10.9.9.9')).ip).toBe('203.0.113.5');
    expect((await client(app, '::1', '2001:db8::7')).ip).toBe('2001:db8::7');
  });
});

const limits = { readsPerMinute: 1000, writesPerMinute: 1000, failedAuthPerMinute: 30 };

describe.each([
  ['1', '127.0.0.1', (i: number) => `10.0.${i}.1, 127.0.0.1`],
  ['127.0.0.1', '203.0.113.50', (i: number) => `10.0.${i}.1`],
])('failed-key limit per address with TRUST_PROXY=%s', (value, remoteAddress, forwardedFor) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext('sqlite', { trustProxy: trustProxy(value), rateLimit: limits });
  });
  afterAll(async () => ctx?.close());

  it(`40 bad keys from ${remoteAddress}, each with a made-up X-Forwarded-For, count against one address`, async () => {
    await awayFromWindowEdge(10_000);
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      statuses.push(
        (
          await ctx.api.get('/v1/leads', {
            key: BAD_KEY,
            remoteAddress: remoteAddress,
            headers: { 'x-forwarded-for': forwardedFor(i) },
          })
        ).statusCode,
      );
    }
    expect(statuses.slice(0, 30)).toEqual(Array(30).fill(401));
    expect(statuses.slice(30)).toEqual(Array(10).fill(429));
    if (value === '1') {
      // Another client behind the same proxy (the address nginx appended) has its own budget.
      expect(
        (
          await ctx.api.get('/v1/leads', {
            key: BAD_KEY,
            remoteAddress: '127.0.0.1',
            headers: { 'x-forwarded-for': '198.51.100.20' },
          })
        ).statusCode,
      ).toBe(401);
    }
  });
});
