// The dashboard lives in its own scope: the API keeps refusing form bodies, the OpenAPI document lists no
// dashboard route, assets are cached for good, and unknown dashboard paths get an HTML 404.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createInvite } from '../../src/accounts/invites.js';
import { createSetupLink } from '../../src/accounts/setup.js';
import { buildApp } from '../../src/app.js';
import { assetUrls } from '../../src/platform/web/assets.js';
import { dialects, testConfig } from '../helpers.js';
import { useTestContext } from '../test-context.js';
import { addUser, Browser, signedIn } from './helpers.js';

describe.each(dialects())('the dashboard beside the API on %s', (dialect) => {
  const ctx = useTestContext(dialect);

  it('leaves the API refusing form bodies with 415', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v1/leads',
      headers: { 'x-api-key': ctx.keys['leads:write'], 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'title=Tap&customerName=Sam&street=A&postalCode=1&city=B',
    });
    expect(res.statusCode).toBe(415);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const patch = await ctx.app.inject({
      method: 'PATCH',
      url: '/v1/leads/wrk_00000000000000000000000000',
      headers: { 'x-api-key': ctx.keys.full, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'status=quoted',
    });
    expect(patch.statusCode).toBe(415);
  });

  it('keeps dashboard routes out of the OpenAPI document', async () => {
    const doc = (await ctx.app.inject({ url: '/v1/openapi.json' })).json();
    const paths = Object.keys(doc.paths);
    expect(paths).toContain('/v1/leads');
    // The public website-form endpoint (/f/{formId}) is part of the API; the dashboard is not.
    expect(paths.filter((p) => !/^\/(v1\/|healthz|readyz|address|f\/\{formId\})/.test(p))).toEqual([]);
  });

  it('serves one stylesheet and one script with immutable caching and the CSP', async () => {
    for (const [url, type] of [
      [assetUrls.css, 'text/css; charset=utf-8'],
      [assetUrls.js, 'text/javascript; charset=utf-8'],
    ] as const) {
      const res = await ctx.app.inject({ url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe(type);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    }
    expect(assetUrls.css).toMatch(/^\/assets\/app\.[0-9a-f]{12}\.css$/);
  });

  it('answers unknown dashboard paths with an HTML 404 and a way back', async () => {
    await addUser(ctx.app, ctx.brandId, 'owner@acme.example');
    const browser = await signedIn(ctx.app, 'owner@acme.example');
    const res = await browser.get('/dashboard/no-such-page');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<a href="/dashboard/leads">Go to leads</a>');
    const anonymous = await ctx.app.inject({ url: '/dashboard/no-such-page' });
    expect(anonymous.statusCode).toBe(404);
    expect(anonymous.body).toContain('<a href="/sign-in">Go to sign-in</a>');
  });

  it('labels every form control and offers a skip link on every page', async () => {
    const browser = await signedIn(ctx.app, 'owner@acme.example');
    const { id } = await ctx.createLead({ title: 'Labelled' });
    for (const url of [
      '/dashboard/leads',
      '/dashboard/work-items',
      `/dashboard/leads/${id}`,
      '/dashboard/settings/api-keys',
      '/dashboard/settings/users',
    ]) {
      const body = (await browser.get(url)).body;
      expect(body, url).toContain('<a class="skip-link" href="#main">Skip to content</a>');
      expect(body, url).toContain('<main id="main"');
      expect(body, url).toMatch(/<h1[ >]/);
      const controls = [...body.matchAll(/<(input|select)\s[^>]*>/g)].map((m) => m[0]);
      for (const control of controls) {
        if (/type="(hidden|submit)"/.test(control)) continue;
        const controlId = /\sid="([^"]+)"/.exec(control)?.[1];
        expect(controlId, `${url}: ${control}`).toBeDefined();
        expect(body, `${url}: label for ${controlId}`).toContain(`for="${controlId}"`);
      }
    }
  });

  it('keeps one-time setup and invitation tokens out of the request log', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = await buildApp(testConfig(dialect, { logLevel: 'info' }), {
      database: ctx.app.deps.database,
      migrate: false,
      logger: { stream },
      defaultMetrics: false,
    });
    try {
      const invite = await createInvite(app.deps.database, {
        brandId: ctx.brandId,
        email: 'logged@acme.example',
        role: 'member',
        invitedBy: 'owner@acme.example',
      });
      const setup = new URL(
        (await createSetupLink(app.deps.database, 'http://x')) ?? 'http://x/setup?token=none',
      );
      const browser = new Browser(app);
      expect((await browser.get(`/invite?token=${invite.token}`)).statusCode).toBe(200);
      await browser.post('/invite', {
        token: invite.token,
        password: 'short',
        passwordConfirmation: 'short',
      });
      await browser.get(`/setup${setup.search}`);
      await browser.get('/sign-in');
      expect(lines.some((line) => line.includes('/sign-in'))).toBe(true);
      expect(lines.filter((line) => line.includes(invite.token))).toEqual([]);
      expect(lines.filter((line) => line.includes('/invite') || line.includes('/setup'))).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
