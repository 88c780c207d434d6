// A form's hourly budget cannot be spent by strangers (issue 29): only a post that passed validation and the
// captcha counts against it, so invalid posts, posts with a refused captcha and honeypot spam from many addresses
// leave the hour to real customers. The per-address minute limit still counts every post. On both databases, with
// the limiter in process and in Redis (its counters are what the hour is counted in).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formPoster } from '../api.js';
import {
  awayFromWindowEdge,
  createTestContext,
  dialects,
  formPeople,
  formRateLimit,
  type TestContext,
  testRedisUrl,
  waitFor,
} from '../helpers.js';
import { type Handler, type Receiver, startReceiver } from '../receiver.js';

const SITE = 'https://www.example.nl';
const HOUR = 60 * 60 * 1000;
const PER_HOUR = 3;
const redisUrl = testRedisUrl();

/** The verifier's answer: it passes only the token "good". */
const verdict =
  (verifier: () => Receiver): Handler =>
  (_req, res, index) => {
    const good = new URLSearchParams(verifier().received[index]!.body).get('response') === 'good';
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(good ? '{"success":true}' : '{"success":false,"error-codes":["invalid-input-response"]}');
  };

async function awayFromEdges(): Promise<void> {
  const left = HOUR - (Date.now() % HOUR);
  if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
  await awayFromWindowEdge(15_000);
}

const limiters = redisUrl ? (['memory', 'redis'] as const) : (['memory'] as const);
const cases = dialects().flatMap((dialect) => limiters.map((limiter) => [dialect, limiter] as const));

describe.each(cases)('the hourly form budget on %s, limiter in %s', (dialect, limiter) => {
  let verifier: Receiver;
  let ctx: TestContext;
  let formId: string;
  beforeAll(async () => {
    verifier = await startReceiver(verdict(() => verifier));
    const url = verifier.url('/verify');
    ctx = await createTestContext(dialect, {
      rateLimit: { ...formRateLimit(2), formPostsPerHour: PER_HOUR },
      captcha: { verifyUrls: { turnstile: url, hcaptcha: url, recaptcha: url }, timeoutMs: 5000 },
      ...(limiter === 'redis'
        ? { redisUrl: redisUrl!, redisKeyPrefix: `test:hour:${randomBytes(6).toString('hex')}:` }
        : {}),
    });
    if (limiter === 'redis') {
      await waitFor(
        async () =>
          (await ctx.app.inject({ method: 'GET', url: '/readyz' })).json().checks.rateLimit === 'redis',
        'the limiter to count in Redis',
      );
    }
    const res = await ctx.api.post('/v1/forms', {
      name: 'Contact',
      allowedOrigins: [SITE],
      captcha: { provider: 'turnstile', siteKey: 'site-key', secret: 'secret' },
    });
    expect(res.statusCode, res.body).toBe(201);
    formId = res.json().id;
  });
  afterAll(async () => {
    await ctx?.close();
    await verifier?.close();
  });

  const site = formPoster(() => ctx.app, SITE);
  const fields = formPeople('Hour person', (n) => `hour${n}-${randomBytes(3).toString('hex')}@example.com`);
  const stored = async () =>
    Number(
      (
        await ctx.app.deps.database.db
          .selectFrom('leads')
          .select((eb) => eb.fn.countAll<string | number>().as('n'))
          .where('source_form_id', '=', formId)
          .where('spam', '=', 0)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('invalid posts, refused captchas and spam from many addresses leave the hour to real customers', async () => {
    await awayFromEdges();
    // 30 addresses, each sending what the form refuses: no fields at all, a missing token, a token the provider
    // refuses. Nothing is stored, and none of it is counted against the hour.
    for (let i = 0; i < 10; i++) {
      const remoteAddress = `10.29.0.${i + 1}`;
      expect((await site.form(formId, { title: 'x' }, { remoteAddress })).statusCode).toBe(422);
      expect((await site.json(formId, fields(), { remoteAddress: `10.29.1.${i + 1}` })).statusCode).toBe(422);
      const refused = await site.form(formId, fields({ 'cf-turnstile-response': 'bad' }), {
        remoteAddress: `10.29.2.${i + 1}`,
      });
      expect(refused.statusCode).toBe(422);
    }
    // Honeypot spam is kept (as spam) but counted in a budget of its own.
    for (let i = 0; i < PER_HOUR; i++) {
      const spam = await site.form(formId, fields({ _gotcha: 'bot' }), { remoteAddress: `10.29.3.${i + 1}` });
      expect(spam.statusCode).toBe(303);
    }
    expect(await stored()).toBe(0);

    // Real customers with a good token get the whole hour.
    for (let i = 0; i < PER_HOUR; i++) {
      const res = await site.form(formId, fields({ 'cf-turnstile-response': 'good' }), {
        remoteAddress: `192.0.2.${i + 1}`,
      });
      expect(res.statusCode, res.body).toBe(303);
    }
    expect(await stored()).toBe(PER_HOUR);
    // The hour is full now: the next post is refused, before its body is read, with the hour's Retry-After.
    const full = await site.json(formId, fields({ 'cf-turnstile-response': 'good' }), {
      remoteAddress: '192.0.2.99',
    });
    expect(full.statusCode).toBe(429);
    expect(full.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(full.json().detail).toMatch(/this hour/);
    expect(await stored()).toBe(PER_HOUR);
    // Spam over its own budget is refused too, and not stored.
    const spam = await site.form(formId, fields({ _gotcha: 'bot' }), { remoteAddress: '10.29.3.99' });
    expect(spam.statusCode).toBe(429);
  });

  it('the per-address minute limit still counts every post, valid or not', async () => {
    await awayFromWindowEdge(10_000);
    // A form of its own: the first test filled the other's hour.
    const created = await ctx.api.post('/v1/forms', { name: 'Second', allowedOrigins: [SITE] });
    const second = created.json().id as string;
    const remoteAddress = '10.29.9.9';
    expect((await site.form(second, { title: 'x' }, { remoteAddress })).statusCode).toBe(422);
    expect((await site.form(second, { title: 'x' }, { remoteAddress })).statusCode).toBe(422);
    const third = await site.form(second, fields(), { remoteAddress });
    expect(third.statusCode).toBe(429);
    expect(third.body).toContain('from your address');
  });
});
