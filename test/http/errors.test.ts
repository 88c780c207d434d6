// Every error status of the contract's table, as RFC 9457 problem+json, and the X-Request-Id rules.
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { raw } from '../api.js';
import {
  createTestContext,
  dialects,
  type TestContext,
  testConfig,
  testSchemaName,
  validLead,
} from '../helpers.js';

const GENERATED_REQUEST_ID = /^req_[0-9a-z]{26}$/;

/** The shape every error shares; returns the body for further checks. */
function expectProblem(res: LightMyRequestResponse, status: number, type: string): Record<string, unknown> {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json();
  expect(body).toMatchObject({
    type: `https://lead-intake.dev/errors/${type}`,
    title: expect.any(String),
    status,
    detail: expect.any(String),
    requestId: res.headers['x-request-id'],
  });
  expect(String(body.title).length).toBeGreaterThan(0);
  expect(String(body.detail).length).toBeGreaterThan(0);
  return body;
}

/** What a 5xx must never show: driver messages, stack frames, file paths. */
function expectNoInternals(res: LightMyRequestResponse, secrets: string[]) {
  for (const secret of secrets) expect(res.body).not.toContain(secret);
  expect(res.body).not.toMatch(/\bat .+:\d+:\d+|node_modules|\/src\/|\.ts\b|stack/i);
}

describe.each(dialects())('error responses on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
  });
  afterAll(async () => ctx?.close());

  describe('400 bad request', () => {
    it('malformed JSON', async () => {
      const body = expectProblem(
        await ctx.api.post('/v1/leads', raw('{"street": "Main",')),
        400,
        'malformed-json',
      );
      expect(body.detail).toMatch(/JSON/);
    });

    it('an empty JSON body', async () => {
      const body = expectProblem(await ctx.api.post('/v1/leads', raw('')), 400, 'malformed-json');
      expect(body.detail).toMatch(/empty/);
    });

    it('a body of whitespace only', async () => {
      expectProblem(await ctx.api.post('/v1/leads', raw('   \n')), 400, 'malformed-json');
    });

    it('a URL that is not validly percent-encoded', async () => {
      const res = await ctx.app.inject({
        method: 'GET',
        url: '/v1/leads/%ff',
        headers: { 'x-api-key': ctx.keys.full },
      });
      expectProblem(res, 400, 'bad-request');
      expect(res.headers['x-request-id']).toMatch(GENERATED_REQUEST_ID);
    });
  });

  it('401 when the key is missing', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/v1/leads' });
    const body = expectProblem(res, 401, 'unauthorized');
    expect(body.detail).toMatch(/X-API-Key/);
    expect(res.headers['www-authenticate']).toBeTruthy();
  });

  it('403 names the scope the route needs', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/v1/work-items',
      headers: { 'x-api-key': ctx.keys['leads:read'] },
    });
    const body = expectProblem(res, 403, 'forbidden');
    expect(body.detail).toContain('"work-items:read"');
  });

  describe('404 not found', () => {
    it.each(['/v1/nothing-here', '/v2/leads', '/v1/leads/wrk_01/extra', '/v1'])(
      'unknown path %s',
      async (url) => {
        const res = await ctx.app.inject({ method: 'GET', url, headers: { 'x-api-key': ctx.keys.full } });
        expectProblem(res, 404, 'not-found');
      },
    );

    it.each([
      ['a well-formed unknown lead id', `/v1/leads/wrk_${'0'.repeat(26)}`],
      ['a well-formed unknown work item id', `/v1/work-items/wrk_${'0'.repeat(26)}`],
      ['an id of the wrong kind', `/v1/leads/cus_${'0'.repeat(26)}`],
      ['a malformed id', '/v1/leads/not-an-id'],
      ['an id of 150 characters', `/v1/leads/${'a'.repeat(150)}`],
      ['an id longer than the router accepts', `/v1/leads/${'a'.repeat(300)}`],
      ['an id with a NUL character', '/v1/leads/wrk_%00'],
      ['an id with a line break', '/v1/work-items/wrk_%0A'],
    ])('%s', async (_label, url) => {
      const res = await ctx.app.inject({ method: 'GET', url, headers: { 'x-api-key': ctx.keys.full } });
      expectProblem(res, 404, 'not-found');
    });

    it('a state change of an unknown id', async () => {
      const res = await ctx.app.inject({
        method: 'PATCH',
        url: `/v1/leads/wrk_${'0'.repeat(26)}`,
        headers: { 'x-api-key': ctx.keys.full, 'content-type': 'application/json' },
        payload: { status: 'quoted' },
      });
      expectProblem(res, 404, 'not-found');
    });
  });

  describe('405 method not allowed, with Allow', () => {
    it.each([
      ['DELETE', '/v1/leads', ['GET', 'POST']],
      ['PUT', '/v1/leads', ['GET', 'POST']],
      ['PUT', `/v1/leads/wrk_${'0'.repeat(26)}`, ['GET', 'PATCH']],
      ['DELETE', `/v1/leads/wrk_${'0'.repeat(26)}`, ['GET', 'PATCH']],
      ['POST', '/v1/work-items', ['GET']],
      ['PATCH', `/v1/work-items/wrk_${'0'.repeat(26)}`, ['GET']],
      ['POST', '/v1/addresses', ['GET']],
      ['DELETE', '/address', ['GET']],
    ])('%s %s', async (method, url, allowed) => {
      const res = await ctx.app.inject({
        method: method as InjectOptions['method'],
        url,
        headers: { 'x-api-key': ctx.keys.full },
      });
      const body = expectProblem(res, 405, 'method-not-allowed');
      const allow = String(res.headers.allow)
        .split(',')
        .map((m) => m.trim());
      for (const m of allowed) expect(allow).toContain(m);
      expect(allow).not.toContain(method);
      expect(body.detail).toContain(method);
    });
  });

  describe('409 state change not allowed', () => {
    it('names the current state and changes nothing', async () => {
      const lead = await ctx.createLead();
      const res = await ctx.app.inject({
        method: 'PATCH',
        url: `/v1/leads/${lead.id}`,
        headers: { 'x-api-key': ctx.keys.full, 'content-type': 'application/json' },
        payload: { status: 'completed' },
      });
      const body = expectProblem(res, 409, 'invalid-state-transition');
      expect(body.detail).toContain('"request"');
      expect(body.currentStatus).toBe('request');
      const after = await ctx.app.inject({
        method: 'GET',
        url: `/v1/leads/${lead.id}`,
        headers: { 'x-api-key': ctx.keys.full },
      });
      expect(after.json().status).toBe('request');
      expect(after.json().statusHistory).toHaveLength(1);
    });

    it('a final state allows nothing', async () => {
      const lead = await ctx.createLead();
      await ctx.setStatus(lead.id as string, 'cancelled');
      const res = await ctx.app.inject({
        method: 'PATCH',
        url: `/v1/leads/${lead.id}`,
        headers: { 'x-api-key': ctx.keys.full, 'content-type': 'application/json' },
        payload: { status: 'quoted' },
      });
      const body = expectProblem(res, 409, 'invalid-state-transition');
      expect(body.detail).toContain('"cancelled"');
      expect(body.currentStatus).toBe('cancelled');
    });
  });

  describe('413 body over 64 KiB', () => {
    // A body that is valid JSON of exactly `bytes` bytes.
    const bodyOf = (bytes: number) => {
      const shell = JSON.stringify({ notes: '' });
      return JSON.stringify({ notes: 'x'.repeat(bytes - shell.length) });
    };

    it('one byte over the limit is a 413', async () => {
      const payload = bodyOf(64 * 1024 + 1);
      expect(Buffer.byteLength(payload)).toBe(65_537);
      const body = expectProblem(await ctx.api.post('/v1/leads', raw(payload)), 413, 'payload-too-large');
      expect(body.detail).toContain('64 KiB');
    });

    it('exactly 64 KiB is read (and then judged on its content)', async () => {
      const payload = bodyOf(64 * 1024);
      expect(Buffer.byteLength(payload)).toBe(65_536);
      expectProblem(await ctx.api.post('/v1/leads', raw(payload)), 422, 'validation');
    });
  });

  describe('415 body not JSON', () => {
    it.each([
      ['text/plain', 'text/plain', JSON.stringify(validLead())],
      ['form-encoded', 'application/x-www-form-urlencoded', 'street=Main&city=Amsterdam'],
      ['XML', 'application/xml', '<lead/>'],
      ['multipart', 'multipart/form-data; boundary=x', '--x--'],
    ])('%s', async (_label, type, payload) => {
      const body = expectProblem(
        await ctx.api.post('/v1/leads', raw(payload), { headers: { 'content-type': type } }),
        415,
        'unsupported-media-type',
      );
      expect(body.detail).toContain('application/json');
    });

    it('a body without a content type', async () => {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/v1/leads',
        headers: { 'x-api-key': ctx.keys.full },
        payload: JSON.stringify(validLead()),
      });
      expectProblem(res, 415, 'unsupported-media-type');
    });

    it('no body and no content type', async () => {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/v1/leads',
        headers: { 'x-api-key': ctx.keys.full },
      });
      expectProblem(res, 415, 'unsupported-media-type');
    });

    it('a state change sent as text', async () => {
      const lead = await ctx.createLead();
      const res = await ctx.app.inject({
        method: 'PATCH',
        url: `/v1/leads/${lead.id}`,
        headers: { 'x-api-key': ctx.keys.full, 'content-type': 'text/plain' },
        payload: '{"status":"quoted"}',
      });
      expectProblem(res, 415, 'unsupported-media-type');
    });

    it('application/json with a charset parameter is accepted', async () => {
      const res = await ctx.api.post('/v1/leads', raw(JSON.stringify(validLead())), {
        headers: {
          'content-type': 'application/json; charset=utf-8',
        },
      });
      expect(res.statusCode).toBe(201);
    });
  });

  describe('422 validation', () => {
    it('lists every failing field at once', async () => {
      const res = await ctx.api.post(
        '/v1/leads',
        raw(
          JSON.stringify({
            postalCode: '1015 CJ',
            city: 'Amsterdam',
            customerName: 'Jan',
            title: 'x'.repeat(201),
            email: 'not-an-email',
            phone: '0612345678',
            priority: 'asap',
            country: 'Atlantis',
            postcode: '1015',
          }),
        ),
      );
      const body = expectProblem(res, 422, 'validation');
      const errors = body.errors as { field: string; message: string }[];
      expect(errors.map((e) => e.field).sort()).toEqual(
        ['street', 'title', 'email', 'phone', 'priority', 'country', 'postcode'].sort(),
      );
      for (const error of errors) expect(error.message.length).toBeGreaterThan(0);
      expect(body.detail).toContain('7');
    });

    it('a single failing field is named in the detail', async () => {
      const body = expectProblem(
        await ctx.api.post('/v1/leads', raw(JSON.stringify(validLead({ city: '' })))),
        422,
        'validation',
      );
      expect(body.errors).toEqual([{ field: 'city', message: expect.any(String) }]);
      expect(body.detail).toContain('city');
    });

    it('a state change body: unknown fields and a bad status together', async () => {
      const lead = await ctx.createLead();
      const res = await ctx.app.inject({
        method: 'PATCH',
        url: `/v1/leads/${lead.id}`,
        headers: { 'x-api-key': ctx.keys.full, 'content-type': 'application/json' },
        payload: { status: 'done', note: 'x' },
      });
      const body = expectProblem(res, 422, 'validation');
      expect((body.errors as { field: string }[]).map((e) => e.field).sort()).toEqual(['note', 'status']);
    });

    it('query parameters', async () => {
      const res = await ctx.app.inject({
        method: 'GET',
        url: '/v1/leads?limit=0&receivedAfter=yesterday',
        headers: { 'x-api-key': ctx.keys.full },
      });
      const body = expectProblem(res, 422, 'validation');
      expect((body.errors as { field: string }[]).map((e) => e.field)).toContain('limit');
    });
  });

  describe('500 never shows internals', () => {
    let app: App;
    const secret = 'postgres://admin:hunter2@db.internal:5432/prod';
    beforeAll(async () => {
      // A second app on the same database, with routes that fail the ways a bug would.
      app = await buildApp(testConfig(dialect), {
        database: ctx.app.deps.database,
        migrate: false,
        logger: false,
        defaultMetrics: false,
      });
      app.get('/test/throws', async () => {
        throw new Error(`could not connect to ${secret}`);
      });
      app.get('/test/throws-with-status', async () => {
        throw Object.assign(new Error(`upstream ${secret} failed`), { statusCode: 502, code: 'E_UPSTREAM' });
      });
      app.get('/test/throws-non-error', async () => {
        throw { message: secret, stack: `Error: ${secret}\n    at handler (/srv/app/src/x.ts:1:1)` };
      });
      app.get('/test/type-error', async () => {
        const missing = undefined as unknown as { field: string };
        return { value: missing.field };
      });
      await app.ready();
    });
    afterAll(async () => app?.close());

    it.each(['/test/throws', '/test/throws-with-status', '/test/throws-non-error', '/test/type-error'])(
      '%s',
      async (url) => {
        const res = await app.inject({ method: 'GET', url, headers: { 'x-request-id': 'trace-500' } });
        const body = expectProblem(res, 500, 'internal');
        expect(Object.keys(body).sort()).toEqual(['detail', 'requestId', 'status', 'title', 'type']);
        expect(body.requestId).toBe('trace-500');
        expect(body.detail).toContain('trace-500');
        expectNoInternals(res, [secret, 'hunter2', 'field', 'E_UPSTREAM', 'undefined']);
      },
    );
  });

  describe('X-Request-Id', () => {
    it('is echoed when the client sends a sane one', async () => {
      for (const id of ['abc-123', 'trace.id:42_x', 'A'.repeat(128)]) {
        const res = await ctx.app.inject({
          method: 'GET',
          url: '/v1/leads',
          headers: { 'x-request-id': id },
        });
        expect(res.headers['x-request-id']).toBe(id);
        expect(res.json().requestId).toBe(id);
      }
    });

    it.each([
      ['with spaces', 'a b c'],
      ['with markup', '<script>alert(1)</script>'],
      ['with a semicolon', 'abc;def'],
      ['empty', ''],
      ['overlong', 'A'.repeat(129)],
      ['very long', 'x'.repeat(2000)],
    ])('is replaced when the client sends one %s', async (_label, id) => {
      const res = await ctx.app.inject({ method: 'GET', url: '/v1/leads', headers: { 'x-request-id': id } });
      expect(res.headers['x-request-id']).toMatch(GENERATED_REQUEST_ID);
      expect(res.json().requestId).toBe(res.headers['x-request-id']);
    });

    it('is generated, and different, for each request without one', async () => {
      const a = await ctx.app.inject({ method: 'GET', url: '/healthz' });
      const b = await ctx.app.inject({ method: 'GET', url: '/healthz' });
      expect(a.headers['x-request-id']).toMatch(GENERATED_REQUEST_ID);
      expect(b.headers['x-request-id']).toMatch(GENERATED_REQUEST_ID);
      expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
    });

    it.each<[string, () => InjectOptions]>([
      ['200', () => ({ method: 'GET', url: '/healthz' })],
      [
        '201',
        () => ({
          method: 'POST',
          url: '/v1/leads',
          headers: { 'x-api-key': ctx.keys.full, 'content-type': 'application/json' },
          payload: validLead(),
        }),
      ],
      [
        '400',
        () => ({
          method: 'POST',
          url: '/v1/leads',
          headers: { 'x-api-key': ctx.keys.full, 'content-type': 'application/json' },
          payload: '{',
        }),
      ],
      ['401', () => ({ method: 'GET', url: '/v1/leads' })],
      [
        '403',
        () => ({ method: 'GET', url: '/v1/addresses', headers: { 'x-api-key': ctx.keys['leads:read'] } }),
      ],
      ['404', () => ({ method: 'GET', url: '/nowhere' })],
      ['404 (router refusal)', () => ({ method: 'GET', url: `/v1/leads/${'a'.repeat(300)}` })],
      ['405', () => ({ method: 'DELETE', url: '/v1/leads' })],
      [
        '413',
        () => ({
          method: 'POST',
          url: '/v1/leads',
          headers: { 'x-api-key': ctx.keys.full, 'content-type': 'application/json' },
          payload: JSON.stringify({ notes: 'x'.repeat(70_000) }),
        }),
      ],
      [
        '415',
        () => ({
          method: 'POST',
          url: '/v1/leads',
          headers: { 'x-api-key': ctx.keys.full, 'content-type': 'text/plain' },
          payload: 'x',
        }),
      ],
      ['422', () => ({ method: 'GET', url: '/v1/leads?limit=0', headers: { 'x-api-key': ctx.keys.full } })],
    ])('is on a %s response, echoing the client id', async (status, options) => {
      const request = options();
      const res = await ctx.app.inject({
        ...request,
        headers: {
          ...(request.headers as Record<string, string>),
          'x-request-id': `rid-${status.slice(0, 3)}`,
        },
      });
      expect(String(res.statusCode)).toBe(status.slice(0, 3));
      expect(res.headers['x-request-id']).toBe(`rid-${status.slice(0, 3)}`);
    });
  });

  if (dialect === 'postgres')
    it('503 with Retry-After when the database is unreachable; nothing internal shown', async () => {
      const unreachable = 'postgres://postgres@127.0.0.1:1/test';
      const app = await buildApp(
        testConfig(dialect, {
          database: { dialect: 'postgres', url: unreachable, schema: testSchemaName(), poolMax: 2 },
        }),
        { migrate: false, logger: false, defaultMetrics: false },
      );
      try {
        await app.ready();
        for (const request of [
          { method: 'GET', url: '/v1/leads' },
          {
            method: 'POST',
            url: '/v1/leads',
            headers: { 'content-type': 'application/json' },
            payload: validLead(),
          },
        ] as InjectOptions[]) {
          const res = await app.inject({
            ...request,
            headers: { ...(request.headers as Record<string, string>), 'x-api-key': ctx.keys.full },
          });
          const body = expectProblem(res, 503, 'service-unavailable');
          expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
          expectNoInternals(res, ['ECONNREFUSED', '127.0.0.1', ':1', 'connect']);
          expect(Object.keys(body).sort()).toEqual(['detail', 'requestId', 'status', 'title', 'type']);
        }
      } finally {
        await app.close();
      }
    });
});
