// Captchas on website forms, checked against a real verifier on 127.0.0.1 that records what it gets (no mocks): the
// token in each provider's field, success, refusal, a missing token, a provider that fails or never answers, the
// honeypot; the hosted page's widget and Content-Security-Policy; and the hourly limit per form.
import http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CAPTCHA_MESSAGES, CAPTCHA_TEXTS, verifyCaptcha } from '../../src/forms/captcha.js';

/** The entry's message in a form post's JSON 422: the sentence people read (the form's language, English here). */
const sentence = (kind: keyof typeof CAPTCHA_MESSAGES) => `Robot check ${CAPTCHA_MESSAGES[kind]}.`;

import type { CaptchaConfig } from '../../src/platform/config.js';
import { formPoster } from '../api.js';
import {
  awayFromWindowEdge,
  createTestContext,
  dialects,
  formPeople,
  formRateLimit,
  type TestContext,
  waitFor,
} from '../helpers.js';
import { type Handler, type Receiver, startReceiver } from '../receiver.js';

const SITE = 'https://www.example.nl';
const HOUR = 60 * 60 * 1000;
const PROVIDERS = [
  { provider: 'turnstile', field: 'cf-turnstile-response' },
  { provider: 'hcaptcha', field: 'h-captcha-response' },
  { provider: 'recaptcha', field: 'g-recaptcha-response' },
] as const;
type Provider = (typeof PROVIDERS)[number]['provider'];

const answer =
  (status: number, body: string, type = 'application/json'): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': type }).end(body);
  };
const passes = answer(200, '{"success":true,"hostname":"www.example.nl"}');
const refuses = answer(200, '{"success":false,"error-codes":["invalid-input-response"]}');
/** Takes the request and never answers. */
const silent: Handler = () => {};

const NO_LIMITS = { ...formRateLimit(), formPostsPerHour: 1_000_000 };

function verifierConfig(verifier: Receiver, timeoutMs: number): CaptchaConfig {
  return {
    verifyUrls: {
      turnstile: verifier.url('/turnstile'),
      hcaptcha: verifier.url('/hcaptcha'),
      recaptcha: verifier.url('/recaptcha'),
    },
    timeoutMs,
  };
}

/** The directives of a Content-Security-Policy header, by name. */
function cspOf(header: unknown): Record<string, string> {
  return Object.fromEntries(
    String(header)
      .split(/;\s*/)
      .map((d) => {
        const [name, ...sources] = d.trim().split(/\s+/);
        return [name ?? '', sources.join(' ')];
      }),
  );
}

/** Starts a burst where neither the minute nor the hour window ends within the next few seconds. */
async function awayFromEdges(): Promise<void> {
  const left = HOUR - (Date.now() % HOUR);
  if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
  await awayFromWindowEdge(10_000);
}

const fields = formPeople('Captcha person', (n) => `captcha${n}-${Date.now()}@example.com`);

/** The requests of one test context's app, with its forms API. */
function client(ctx: () => TestContext) {
  const newForm = async (body: Record<string, unknown>) => {
    const res = await ctx().api.post('/v1/forms', { name: 'Contact', allowedOrigins: [SITE], ...body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; snippet: string };
  };
  const captchaForm = (provider: Provider, extra: Record<string, unknown> = {}) =>
    newForm({
      captcha: { provider, siteKey: `site-key-${provider}`, secret: `secret-${provider}` },
      ...extra,
    });
  /** Posts to a form as a browser on SITE. */
  const site = formPoster(() => ctx().app, SITE);
  const leadCount = async (formId: string) => {
    const row = await ctx()
      .app.deps.database.db.selectFrom('leads')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('source_form_id', '=', formId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  return { newForm, captchaForm, site, leadCount };
}

describe.each(dialects())('captcha on website forms on %s', (dialect) => {
  let verifier: Receiver;
  let ctx: TestContext;
  const { newForm, captchaForm, site, leadCount } = client(() => ctx);
  beforeAll(async () => {
    verifier = await startReceiver(passes);
    ctx = await createTestContext(dialect, { rateLimit: NO_LIMITS, captcha: verifierConfig(verifier, 5000) });
  });
  afterAll(async () => {
    await ctx?.close();
    await verifier?.close();
  });
  beforeEach(() => {
    verifier.setHandler(passes);
    verifier.received.length = 0;
  });
  const sent = () => verifier.received.map((r) => Object.fromEntries(new URLSearchParams(r.body)));

  it('a token the provider accepts: the lead is stored; the provider got secret, response and remoteip form-encoded', async () => {
    const form = await captchaForm('turnstile');
    const values = fields({ 'cf-turnstile-response': 'token-ok-1' });
    const res = await site.form(form.id, values, { remoteAddress: '203.0.113.7' });
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe(`/f/${form.id}/thanks`);
    expect(await leadCount(form.id)).toBe(1);
    expect(verifier.received).toHaveLength(1);
    expect(verifier.received[0]!.path).toBe('/turnstile');
    expect(verifier.received[0]!.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(sent()).toEqual([{ secret: 'secret-turnstile', response: 'token-ok-1', remoteip: '203.0.113.7' }]);
    // The token is read by the endpoint, never kept with the lead as an extra field.
    const lead = await ctx.app.deps.database.db
      .selectFrom('leads')
      .select(['extra_fields', 'spam'])
      .where('source_form_id', '=', form.id)
      .executeTakeFirstOrThrow();
    expect(lead.spam).toBe(0);
    expect(String(lead.extra_fields ?? '')).not.toContain('token-ok-1');
  });

  it.each(PROVIDERS)(
    '$provider: the token comes in $field, form-encoded and JSON alike; another field does not count',
    async ({ provider, field }) => {
      const form = await captchaForm(provider);
      const posted = await site.form(form.id, fields({ [field]: `${provider}-form-token` }));
      expect(posted.statusCode, posted.body).toBe(303);
      const json = await site.json(form.id, { ...fields(), [field]: `${provider}-json-token` });
      expect(json.statusCode, json.body).toBe(201);
      expect(verifier.received.map((r) => r.path)).toEqual([`/${provider}`, `/${provider}`]);
      expect(sent().map((s) => [s.secret, s.response])).toEqual([
        [`secret-${provider}`, `${provider}-form-token`],
        [`secret-${provider}`, `${provider}-json-token`],
      ]);
      // Another provider's field is no token for this form: a 422, and the provider is not asked.
      const other = PROVIDERS.find((p) => p.provider !== provider)!.field;
      const wrong = await site.json(form.id, { ...fields(), [other]: 'some-token' });
      expect(wrong.statusCode).toBe(422);
      expect(wrong.json().errors).toEqual([{ field: 'captcha', message: sentence('missing') }]);
      expect(verifier.received).toHaveLength(2);
      expect(await leadCount(form.id)).toBe(2);
    },
  );

  it('a token the provider refuses is a 422 naming captcha, the form shown again; nothing is stored', async () => {
    verifier.setHandler(refuses);
    const form = await captchaForm('turnstile');
    const html = await site.form(
      form.id,
      fields({ customerName: 'Kees <b>', 'cf-turnstile-response': 'bad' }),
    );
    expect(html.statusCode).toBe(422);
    expect(html.headers['content-type']).toMatch(/^text\/html/);
    expect(html.body).toContain('href="#field-captcha"');
    expect(html.body).toContain('Robot check did not pass: please confirm you are not a robot');
    expect(html.body).toContain('value="Kees &lt;b&gt;"');
    // The hosted form again, with a fresh widget, under a policy that lets the widget run.
    expect(html.body).toContain('<div class="cf-turnstile" data-sitekey="site-key-turnstile"></div>');
    expect(cspOf(html.headers['content-security-policy'])['script-src']).toBe(
      'https://challenges.cloudflare.com',
    );
    const json = await site.json(form.id, { ...fields(), 'cf-turnstile-response': 'bad' });
    expect(json.statusCode).toBe(422);
    expect(json.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json.headers['access-control-allow-origin']).toBe(SITE);
    expect(json.json().errors).toEqual([{ field: 'captcha', message: sentence('refused') }]);
    expect(verifier.received).toHaveLength(2);
    expect(await leadCount(form.id)).toBe(0);
  });

  it('a missing token is a 422 listed with the other problems; the provider is asked only once the fields are valid', async () => {
    const form = await captchaForm('hcaptcha');
    const missing = await site.form(form.id, fields());
    expect(missing.statusCode).toBe(422);
    expect(missing.headers['content-type']).toMatch(/^text\/html/);
    expect(missing.body).toContain('Robot check is missing: please confirm you are not a robot.');
    expect(missing.body).toContain('<div class="h-captcha" data-sitekey="site-key-hcaptcha"></div>');
    const empty = await site.json(form.id, { ...fields(), 'h-captcha-response': '' });
    expect(empty.json().errors).toEqual([{ field: 'captcha', message: sentence('missing') }]);
    const notString = await site.json(form.id, { ...fields(), 'h-captcha-response': 42 });
    expect(notString.json().errors).toEqual([{ field: 'captcha', message: sentence('missing') }]);
    // Reported together with the field errors.
    const both = await site.json(form.id, { customerName: 'x', email: 'nope' });
    expect(both.statusCode).toBe(422);
    const names = both.json().errors.map((e: { field: string }) => e.field);
    expect(names).toEqual(expect.arrayContaining(['street', 'title', 'email', 'captcha']));
    // A token with invalid fields costs no provider call.
    const invalid = await site.json(form.id, { customerName: 'x', 'h-captcha-response': 'good-token' });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json().errors.map((e: { field: string }) => e.field)).not.toContain('captcha');
    expect(verifier.received).toHaveLength(0);
    expect(await leadCount(form.id)).toBe(0);
  });

  it.each([
    ['answers 500', answer(500, 'internal error', 'text/plain')],
    ['answers 200 with something other than JSON', answer(200, '<html>busy</html>', 'text/html')],
    ['answers JSON without a boolean success', answer(200, '{"success":"yes"}')],
    ['redirects', answer(302, '', 'text/plain')],
  ])(
    'a provider that %s: a 422 the person may retry, nothing stored, never a 500',
    async (_what, handler) => {
      verifier.setHandler(handler);
      const form = await captchaForm('recaptcha');
      const html = await site.form(form.id, fields({ 'g-recaptcha-response': 'token' }));
      expect(html.statusCode).toBe(422);
      expect(html.body).toContain('Robot check could not be completed: please try again in a moment.');
      const json = await site.json(form.id, { ...fields(), 'g-recaptcha-response': 'token' });
      expect(json.statusCode).toBe(422);
      expect(json.json().errors).toEqual([{ field: 'captcha', message: sentence('unavailable') }]);
      expect(verifier.received).toHaveLength(2);
      expect(await leadCount(form.id)).toBe(0);
      // Once the provider answers again, the same person can send the form.
      verifier.setHandler(passes);
      expect((await site.json(form.id, { ...fields(), 'g-recaptcha-response': 'token' })).statusCode).toBe(
        201,
      );
      expect(await leadCount(form.id)).toBe(1);
    },
  );

  it('a filled honeypot is answered as success and stored as spam without asking the provider', async () => {
    verifier.setHandler(refuses);
    const form = await captchaForm('turnstile');
    const noToken = await site.form(form.id, fields({ _gotcha: 'bot' }));
    expect(noToken.statusCode).toBe(303);
    expect(noToken.headers.location).toBe(`/f/${form.id}/thanks`);
    const withToken = await site.json(form.id, { ...fields(), _gotcha: 'bot', 'cf-turnstile-response': 'x' });
    expect(withToken.statusCode).toBe(201);
    expect(Object.keys(withToken.json()).sort()).toEqual(['id', 'receivedAt', 'status']);
    expect(verifier.received).toHaveLength(0);
    const spam = await ctx.app.deps.database.db
      .selectFrom('leads')
      .select('spam')
      .where('source_form_id', '=', form.id)
      .execute();
    expect(spam.map((l) => l.spam)).toEqual([1, 1]);
  });

  it('a form without a captcha takes posts without a token and never asks a provider', async () => {
    const form = await newForm({});
    expect((await site.form(form.id, fields())).statusCode).toBe(303);
    expect((await site.json(form.id, { ...fields(), 'cf-turnstile-response': 'ignored' })).statusCode).toBe(
      201,
    );
    expect(verifier.received).toHaveLength(0);
  });

  describe('the hosted page and the snippet', () => {
    const expected: Record<Provider, { widget: string; script: string; csp: Record<string, string> }> = {
      turnstile: {
        widget: '<div class="cf-turnstile" data-sitekey="site-key-turnstile"></div>',
        script: '<script src="https://challenges.cloudflare.com/turnstile/v0/api.js" async defer></script>',
        csp: {
          'script-src': 'https://challenges.cloudflare.com',
          'frame-src': 'https://challenges.cloudflare.com',
          'style-src': "'self'",
        },
      },
      hcaptcha: {
        widget: '<div class="h-captcha" data-sitekey="site-key-hcaptcha"></div>',
        script: '<script src="https://js.hcaptcha.com/1/api.js" async defer></script>',
        csp: {
          'script-src': 'https://hcaptcha.com https://*.hcaptcha.com',
          'frame-src': 'https://hcaptcha.com https://*.hcaptcha.com',
          'connect-src': 'https://hcaptcha.com https://*.hcaptcha.com',
          'style-src': "'self' https://hcaptcha.com https://*.hcaptcha.com",
        },
      },
      recaptcha: {
        widget: '<div class="g-recaptcha" data-sitekey="site-key-recaptcha"></div>',
        script: '<script src="https://www.google.com/recaptcha/api.js" async defer></script>',
        csp: {
          'script-src': 'https://www.google.com/recaptcha/ https://www.gstatic.com/recaptcha/',
          'frame-src': 'https://www.google.com/recaptcha/ https://recaptcha.google.com/recaptcha/',
          'style-src': "'self'",
        },
      },
    };

    it.each(PROVIDERS)(
      "$provider: the page shows the widget and its CSP allows that provider's script and frames, nothing more",
      async ({ provider }) => {
        const form = await captchaForm(provider);
        const page = await ctx.app.inject({ method: 'GET', url: `/f/${form.id}` });
        expect(page.statusCode).toBe(200);
        const want = expected[provider];
        expect(page.body).toContain(want.widget);
        expect(page.body).toContain(want.script);
        // The widget sits inside the form, so its token is posted with the fields.
        expect(page.body.indexOf(want.widget)).toBeGreaterThan(page.body.indexOf('<form '));
        expect(page.body.indexOf(want.widget)).toBeLessThan(page.body.indexOf('</form>'));
        expect(page.body.match(/<script\b[^>]*>/g)).toEqual([want.script.replace('</script>', '')]);
        const csp = cspOf(page.headers['content-security-policy']);
        expect(csp).toEqual({
          'default-src': "'none'",
          'img-src': "'self' data:",
          'form-action': "'self'",
          'frame-ancestors': SITE,
          'base-uri': "'none'",
          ...want.csp,
        });
        // Pages without the form (thanks, errors) allow no script.
        const thanks = await ctx.app.inject({ method: 'GET', url: `/f/${form.id}/thanks` });
        expect(cspOf(thanks.headers['content-security-policy'])['script-src']).toBeUndefined();
        // The snippet carries the same widget and the provider's script line; no other script.
        expect(form.snippet).toContain(want.widget);
        expect(form.snippet.match(/<script\b[^>]*>/g)).toEqual([want.script.replace('</script>', '')]);
      },
    );

    it('without a captcha: no widget, no script, and a policy without script-src, frame-src or connect-src', async () => {
      const form = await newForm({});
      const page = await ctx.app.inject({ method: 'GET', url: `/f/${form.id}` });
      expect(page.body).not.toContain('<script');
      expect(page.body).not.toContain('data-sitekey');
      expect(form.snippet).not.toContain('<script');
      const csp = cspOf(page.headers['content-security-policy']);
      expect(Object.keys(csp).sort()).toEqual([
        'base-uri',
        'default-src',
        'form-action',
        'frame-ancestors',
        'img-src',
        'style-src',
      ]);
      expect(csp['style-src']).toBe("'self'");
    });

    it('escapes the site key', async () => {
      const form = await newForm({ captcha: { provider: 'turnstile', siteKey: 'k"><b>x', secret: 's' } });
      const page = await ctx.app.inject({ method: 'GET', url: `/f/${form.id}` });
      expect(page.body).toContain('data-sitekey="k&quot;&gt;&lt;b&gt;x"');
      expect(page.body).not.toContain('"><b>');
    });
  });

  it('documents the captcha fields and the limits on POST /f/{formId}', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const description = doc.paths['/f/{formId}'].post.description as string;
    for (const text of [
      'cf-turnstile-response',
      'h-captcha-response',
      'g-recaptcha-response',
      'RATE_LIMIT_FORM_POSTS_PER_HOUR',
      '429',
    ]) {
      expect(description).toContain(text);
    }
  });

  describe('a provider that never answers', () => {
    let slow: TestContext;
    const slowClient = client(() => slow);
    beforeAll(async () => {
      slow = await createTestContext(dialect, {
        rateLimit: NO_LIMITS,
        captcha: verifierConfig(verifier, 300),
      });
    });
    afterAll(async () => {
      await slow?.close();
    });

    it('is a 422 the person can retry once the timeout passes; nothing is stored and the server keeps serving', async () => {
      verifier.setHandler(silent);
      const form = await slowClient.captchaForm('turnstile');
      const pending = slowClient.site.form(form.id, fields({ 'cf-turnstile-response': 'token' }));
      await waitFor(() => verifier.received.length === 1, 'the verifier to get the check');
      // While the check waits on the provider, other requests are served.
      const page = await slow.app.inject({ method: 'GET', url: `/f/${form.id}` });
      expect(page.statusCode).toBe(200);
      const res = await pending;
      expect(res.statusCode).toBe(422);
      expect(res.body).toContain('Robot check could not be completed: please try again in a moment.');
      const json = await slowClient.site.json(form.id, { ...fields(), 'cf-turnstile-response': 'token' });
      expect(json.statusCode).toBe(422);
      expect(json.json().errors).toEqual([{ field: 'captcha', message: sentence('unavailable') }]);
      expect(await slowClient.leadCount(form.id)).toBe(0);
      verifier.setHandler(passes);
      const retried = await slowClient.site.form(form.id, fields({ 'cf-turnstile-response': 'token' }));
      expect(retried.statusCode).toBe(303);
      expect(await slowClient.leadCount(form.id)).toBe(1);
    });
  });

  describe('posts per form and hour', () => {
    let limited: TestContext;
    const limitedClient = client(() => limited);
    beforeAll(async () => {
      limited = await createTestContext(dialect, {
        rateLimit: { ...NO_LIMITS, formPostsPerMinute: 2, formPostsPerHour: 3 },
      });
    });
    afterAll(async () => {
      await limited?.close();
    });

    it('counts every address together: the 4th post of the hour is a 429 with Retry-After, HTML or problem+json', async () => {
      await awayFromEdges();
      const form = await limitedClient.newForm({});
      const other = await limitedClient.newForm({});
      expect(
        (await limitedClient.site.form(form.id, fields(), { remoteAddress: '10.0.0.1' })).statusCode,
      ).toBe(303);
      expect(
        (await limitedClient.site.json(form.id, fields(), { remoteAddress: '10.0.0.2' })).statusCode,
      ).toBe(201);
      expect(
        (await limitedClient.site.form(form.id, fields(), { remoteAddress: '10.0.0.3' })).statusCode,
      ).toBe(303);
      const html = await limitedClient.site.form(form.id, fields(), { remoteAddress: '10.0.0.4' });
      expect(html.statusCode).toBe(429);
      expect(html.headers['content-type']).toMatch(/^text\/html/);
      expect(html.body).toContain('as many posts as it can this hour');
      const retryAfter = Number(html.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      const problem = await limitedClient.site.json(form.id, fields(), { remoteAddress: '10.0.0.5' });
      expect(problem.statusCode).toBe(429);
      expect(problem.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(Number(problem.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(problem.json().detail).toMatch(/this hour/);
      expect(await limitedClient.leadCount(form.id)).toBe(3);
      // Another form has its own hour.
      expect(
        (await limitedClient.site.form(other.id, fields(), { remoteAddress: '10.0.0.4' })).statusCode,
      ).toBe(303);
    });

    it('keeps the minute limit per address; posts refused by it or by the origin check use none of the hour', async () => {
      await awayFromEdges();
      const form = await limitedClient.newForm({});
      for (let i = 0; i < 3; i++) {
        const evil = await limited.app.inject({
          method: 'POST',
          url: `/f/${form.id}`,
          remoteAddress: '10.1.0.9',
          headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
          payload: JSON.stringify(fields()),
        });
        expect(evil.statusCode).toBe(403);
      }
      expect(
        (await limitedClient.site.form(form.id, fields(), { remoteAddress: '10.1.0.1' })).statusCode,
      ).toBe(303);
      expect(
        (await limitedClient.site.form(form.id, fields(), { remoteAddress: '10.1.0.1' })).statusCode,
      ).toBe(303);
      const perMinute = await limitedClient.site.form(form.id, fields(), { remoteAddress: '10.1.0.1' });
      expect(perMinute.statusCode).toBe(429);
      expect(perMinute.body).toContain('from your address');
      expect(Number(perMinute.headers['retry-after'])).toBeLessThanOrEqual(60);
      // The third post of the hour, from another address.
      expect(
        (await limitedClient.site.form(form.id, fields(), { remoteAddress: '10.1.0.2' })).statusCode,
      ).toBe(303);
      expect(
        (await limitedClient.site.form(form.id, fields(), { remoteAddress: '10.1.0.3' })).statusCode,
      ).toBe(429);
    });
  });
});

describe('verifyCaptcha', () => {
  let verifier: Receiver;
  beforeAll(async () => {
    verifier = await startReceiver(passes);
  });
  afterAll(async () => {
    await verifier?.close();
  });
  const recordingLog = () => {
    const lines: { level: string; object: object; message: string }[] = [];
    return {
      lines,
      warn: (object: object, message: string) => lines.push({ level: 'warn', object, message }),
      info: (object: object, message: string) => lines.push({ level: 'info', object, message }),
    };
  };
  const check = {
    provider: 'hcaptcha' as const,
    secret: 'the-secret-value',
    token: 'the-token-value',
    remoteIp: '198.51.100.1',
    formId: 'frm_test',
  };

  it('logs a provider that fails at warn and a refusal at info, never with the secret or the token', async () => {
    const log = recordingLog();
    verifier.setHandler(answer(503, 'down', 'text/plain'));
    expect(await verifyCaptcha(verifierConfig(verifier, 5000), check, log)).toEqual({
      ok: false,
      error: { field: 'captcha', message: CAPTCHA_MESSAGES.unavailable, text: CAPTCHA_TEXTS.unavailable },
    });
    verifier.setHandler(refuses);
    expect(await verifyCaptcha(verifierConfig(verifier, 5000), check, log)).toEqual({
      ok: false,
      error: { field: 'captcha', message: CAPTCHA_MESSAGES.refused, text: CAPTCHA_TEXTS.refused },
    });
    verifier.setHandler(passes);
    expect(await verifyCaptcha(verifierConfig(verifier, 5000), check, log)).toEqual({ ok: true });
    expect(log.lines.map((l) => l.level)).toEqual(['warn', 'info']);
    expect(log.lines[0]!.object).toMatchObject({
      provider: 'hcaptcha',
      formId: 'frm_test',
      reason: 'answered HTTP 503',
    });
    expect(log.lines[1]!.object).toMatchObject({ errorCodes: ['invalid-input-response'] });
    const logged = JSON.stringify(log.lines);
    expect(logged).not.toContain('the-secret-value');
    expect(logged).not.toContain('the-token-value');
  });

  it('a provider that cannot be reached is a failure to retry, logged with the reason', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const log = recordingLog();
    const url = `http://127.0.0.1:${port}/siteverify`;
    const verdict = await verifyCaptcha(
      { verifyUrls: { turnstile: url, hcaptcha: url, recaptcha: url }, timeoutMs: 5000 },
      check,
      log,
    );
    expect(verdict).toEqual({
      ok: false,
      error: { field: 'captcha', message: CAPTCHA_MESSAGES.unavailable, text: CAPTCHA_TEXTS.unavailable },
    });
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]!.object).toMatchObject({ reason: 'ECONNREFUSED' });
  });

  it('a form with a captcha but no secret fails without asking the provider', async () => {
    verifier.received.length = 0;
    const log = recordingLog();
    const verdict = await verifyCaptcha(verifierConfig(verifier, 5000), { ...check, secret: null }, log);
    expect(verdict.ok).toBe(false);
    expect(verifier.received).toHaveLength(0);
    expect(log.lines.map((l) => l.level)).toEqual(['warn']);
  });
});
