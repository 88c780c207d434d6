// Operational endpoints: health, readiness, metrics, the OpenAPI document and the docs page.
import { Validator } from '@seriousme/openapi-schema-validator';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import {
  createTestContext,
  dialects,
  type TestContext,
  testConfig,
  unreachableDatabase,
} from '../helpers.js';

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';

/** Every API route with its scope and the statuses its OpenAPI entry must list. */
const API_ROUTES = [
  {
    path: '/v1/leads',
    method: 'post',
    operationId: 'createLead',
    scope: 'leads:write',
    ok: '201',
    errors: ['400', '401', '403', '413', '415', '422'],
  },
  {
    path: '/v1/leads',
    method: 'get',
    operationId: 'listLeads',
    scope: 'leads:read',
    ok: '200',
    errors: ['401', '403', '422'],
  },
  {
    path: '/v1/leads/{id}',
    method: 'get',
    operationId: 'getLead',
    scope: 'leads:read',
    ok: '200',
    errors: ['401', '403', '404'],
  },
  {
    path: '/v1/leads/{id}',
    method: 'patch',
    operationId: 'changeLeadStatus',
    scope: 'full',
    ok: '200',
    errors: ['400', '401', '403', '404', '409', '422'],
  },
  {
    path: '/v1/work-items',
    method: 'get',
    operationId: 'listWorkItems',
    scope: 'work-items:read',
    ok: '200',
    errors: ['401', '403', '422'],
  },
  {
    path: '/v1/work-items/{id}',
    method: 'get',
    operationId: 'getWorkItem',
    scope: 'work-items:read',
    ok: '200',
    errors: ['401', '403', '404'],
  },
  {
    path: '/v1/addresses',
    method: 'get',
    operationId: 'listAddresses',
    scope: 'full',
    ok: '200',
    errors: ['401', '403', '422'],
  },
  {
    path: '/address',
    method: 'get',
    operationId: 'listAddressesAlias',
    scope: 'full',
    ok: '200',
    errors: ['401', '403', '422'],
  },
] as const;

const LIST_PARAMETERS = ['limit', 'cursor', 'order'];

type OpenApiDocument = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, Record<string, unknown>>; schemas?: Record<string, unknown> };
};
type Operation = {
  operationId?: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: unknown }[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
  security?: Record<string, string[]>[];
};

function expectServiceUnavailable(res: LightMyRequestResponse) {
  expect(res.statusCode).toBe(503);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json();
  expect(body).toMatchObject({
    type: 'https://lead-intake.dev/errors/service-unavailable',
    status: 503,
    requestId: res.headers['x-request-id'],
    database: 'unreachable',
  });
  // The probe is public: no driver message, host, port or file path.
  expect(res.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|not open|connect|\/work\/|sqlite/i);
}

describe.each(dialects())('operational endpoints on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
  });
  afterAll(async () => ctx?.close());

  /** A second app on the same database, with other settings. */
  async function appWith(overrides: Parameters<typeof testConfig>[1]): Promise<App> {
    const app = await buildApp(testConfig(dialect, overrides), {
      database: ctx.app.deps.database,
      migrate: false,
      logger: false,
      defaultMetrics: false,
    });
    await app.ready();
    return app;
  }

  describe('GET /healthz', () => {
    it('answers 200 without a key', async () => {
      const res = await ctx.app.inject({ method: 'GET', url: '/healthz' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ok' });
    });
  });

  describe('GET /readyz', () => {
    it('answers 200 with the database ok, without a key', async () => {
      const res = await ctx.app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: 'ready', database: 'ok' });
    });

    it('answers 503 with Retry-After when the database is unreachable', async () => {
      const { database, cut, dispose } = unreachableDatabase(dialect);
      const app = await buildApp(testConfig(dialect), {
        database,
        migrate: false,
        logger: false,
        defaultMetrics: false,
      });
      try {
        await app.ready();
        await cut();
        expectServiceUnavailable(await app.inject({ method: 'GET', url: '/readyz' }));
        // Liveness does not depend on the database.
        expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      } finally {
        await app.close();
        await dispose();
      }
    });

    it('answers 503 at once while draining, and every answer then closes its connection', async () => {
      const app = await buildApp(testConfig(dialect), {
        database: ctx.app.deps.database,
        migrate: false,
        logger: false,
        defaultMetrics: false,
        webhookWorker: false,
        mailWorker: false,
        backupSchedule: false,
      });
      try {
        await app.ready();
        const before = await app.inject({ method: 'GET', url: '/readyz' });
        expect(before.statusCode).toBe(200);
        expect(before.headers.connection).not.toBe('close');
        app.drain.start();
        const ready = await app.inject({ method: 'GET', url: '/readyz' });
        expect(ready.statusCode).toBe(503);
        expect(Number(ready.headers['retry-after'])).toBeGreaterThan(0);
        expect(ready.json()).toMatchObject({ type: 'https://lead-intake.dev/errors/service-unavailable' });
        expect(ready.json().detail).toMatch(/shutting down/);
        // Everything else is still served, with Connection: close; /healthz stays 200.
        const health = await app.inject({ method: 'GET', url: '/healthz' });
        expect(health.statusCode).toBe(200);
        const list = await app.inject({
          method: 'GET',
          url: '/v1/leads',
          headers: { 'x-api-key': ctx.keys.full },
        });
        expect(list.statusCode).toBe(200);
        expect(list.headers.connection).toBe('close');
      } finally {
        await app.close();
      }
    });
  });

  describe('GET /metrics', () => {
    it('serves Prometheus text to loopback when METRICS_TOKEN is unset', async () => {
      const lead = await ctx.createLead();
      await ctx.app.inject({
        method: 'GET',
        url: `/v1/leads/${lead.id}`,
        headers: { 'x-api-key': ctx.keys.full },
      });
      const res = await ctx.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(res.body).toContain('# TYPE lead_intake_http_requests_total counter');
      expect(res.body).toMatch(
        /lead_intake_http_requests_total\{method="GET",route="\/v1\/leads\/:id",status_code="200"\} \d+/,
      );
      expect(res.body).toContain('lead_intake_http_request_duration_seconds_bucket');
      // Labels carry the route pattern, never ids or keys.
      expect(res.body).not.toContain(String(lead.id));
      expect(res.body).not.toContain('lik_');
    });

    it('also answers IPv6 loopback', async () => {
      const res = await ctx.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '::1' });
      expect(res.statusCode).toBe(200);
    });

    it.each([
      ['a request through a proxy (X-Forwarded-For)', { 'x-forwarded-for': '203.0.113.7' }, '127.0.0.1'],
      ['a request from another host', {}, '203.0.113.7'],
    ])('is a 404 for %s when no token is configured', async (_label, headers, remoteAddress) => {
      const res = await ctx.app.inject({ method: 'GET', url: '/metrics', headers, remoteAddress });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).not.toContain('lead_intake_');
    });

    describe('with METRICS_TOKEN set', () => {
      let app: App;
      beforeAll(async () => {
        app = await appWith({ metricsToken: METRICS_TOKEN });
      });
      afterAll(async () => app?.close());

      it.each([
        ['no Authorization header', {}],
        ['a wrong token', { authorization: 'Bearer wrong-token' }],
        ['the token with one character changed', { authorization: `Bearer ${METRICS_TOKEN.slice(0, -1)}X` }],
        ['the token without the Bearer scheme', { authorization: METRICS_TOKEN }],
        ['the token as Basic credentials', { authorization: `Basic ${METRICS_TOKEN}` }],
      ])('401 with %s, even from loopback', async (_label, headers) => {
        const res = await app.inject({ method: 'GET', url: '/metrics', headers, remoteAddress: '127.0.0.1' });
        expect(res.statusCode).toBe(401);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
        expect(res.json()).toMatchObject({ status: 401, requestId: res.headers['x-request-id'] });
        expect(res.body).not.toContain('lead_intake_');
        expect(res.body).not.toContain(METRICS_TOKEN);
      });

      it.each([
        ['from loopback', {}, '127.0.0.1'],
        ['from another host through a proxy', { 'x-forwarded-for': '198.51.100.2' }, '203.0.113.7'],
      ])('200 with the right token %s', async (_label, headers, remoteAddress) => {
        const res = await app.inject({
          method: 'GET',
          url: '/metrics',
          headers: { ...headers, authorization: `Bearer ${METRICS_TOKEN}` },
          remoteAddress,
        });
        expect(res.statusCode).toBe(200);
        expect(res.body).toContain('# TYPE lead_intake_http_requests_total counter');
      });
    });
  });

  describe('GET /v1/openapi.json', () => {
    let doc: OpenApiDocument;
    /** Follows $refs (named schemas, reusable responses) to what they name. */
    // biome-ignore lint/suspicious/noExplicitAny: walks free-form JSON
    const resolve = (node: unknown): any => {
      let out = node;
      while (out && typeof out === 'object' && typeof (out as { $ref?: unknown }).$ref === 'string') {
        out = (out as { $ref: string }).$ref
          .slice(2)
          .split('/')
          .reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], doc);
      }
      return out;
    };
    beforeAll(async () => {
      const res = await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      doc = res.json();
    });

    it('is served without a key and is a valid OpenAPI 3.1.0 document', async () => {
      expect(doc.openapi).toBe('3.1.0');
      const validator = new Validator();
      const result = await validator.validate(structuredClone(doc));
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      expect(validator.version).toBe('3.1');
      // Every $ref points at something the document holds.
      expect(() => validator.resolveRefs()).not.toThrow();
      const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!);
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of new Set(refs)) {
        const target = ref
          .replace(/^#\//, '')
          .split('/')
          .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);
        expect(target, ref).toBeDefined();
      }
    });

    it('declares ApiKeyAuth as an apiKey in the X-API-Key header', () => {
      expect(doc.components.securitySchemes.ApiKeyAuth).toMatchObject({
        type: 'apiKey',
        in: 'header',
        name: 'X-API-Key',
      });
    });

    it('has no operation for the internal endpoints, and documents the public ones without security', () => {
      expect(Object.keys(doc.paths)).not.toContain('/metrics');
      for (const path of ['/healthz', '/readyz', '/v1/openapi.json']) {
        expect(doc.paths[path]?.get?.security, path).toEqual([]);
      }
    });

    it('operation ids are unique', () => {
      const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
      expect(new Set(ids).size).toBe(ids.length);
    });

    describe.each(API_ROUTES)('$method $path', (route) => {
      const operation = () => doc.paths[route.path]?.[route.method] as Operation;

      it('is documented with its operationId and scope', () => {
        expect(operation(), `${route.method} ${route.path} is missing`).toBeDefined();
        expect(operation().operationId).toBe(route.operationId);
        expect(operation().security).toEqual([{ ApiKeyAuth: [route.scope] }, { BearerAuth: [route.scope] }]);
      });

      it('documents its parameters', () => {
        const parameters = operation().parameters ?? [];
        if (route.path.includes('{id}')) {
          expect(parameters).toContainEqual(
            expect.objectContaining({ name: 'id', in: 'path', required: true }),
          );
        }
        if (route.method === 'get' && !route.path.includes('{id}')) {
          const names = parameters.filter((p) => p.in === 'query').map((p) => p.name);
          for (const name of LIST_PARAMETERS) expect(names).toContain(name);
        }
        for (const parameter of parameters) expect(parameter.schema).toBeDefined();
      });

      it('documents its success response schema', () => {
        const schema = resolve(operation().responses[route.ok]?.content?.['application/json']?.schema);
        expect(schema, `no ${route.ok} schema`).toBeDefined();
        expect(schema!.type).toBe('object');
        const properties = Object.keys((schema!.properties ?? {}) as Record<string, unknown>);
        if (route.method === 'get' && !route.path.includes('{id}')) {
          expect(properties.sort()).toEqual(['data', 'hasMore', 'limit', 'nextCursor']);
        } else {
          expect(properties).toContain('id');
        }
      });

      it('documents its errors as problem+json', () => {
        for (const status of route.errors) {
          const response = resolve(operation().responses[status]);
          expect(response, `no ${status} response`).toBeDefined();
          const schema = response!.content?.['application/problem+json']?.schema;
          expect(schema, `${status} is not application/problem+json`).toEqual({
            $ref: '#/components/schemas/Problem',
          });
        }
      });
    });

    it('the Problem schema has the RFC 9457 fields and errors[]', () => {
      const problem = doc.components.schemas?.Problem as {
        required: string[];
        properties: Record<string, unknown>;
      };
      expect(problem.required.sort()).toEqual(['detail', 'requestId', 'status', 'title', 'type']);
      expect(Object.keys(problem.properties)).toContain('errors');
    });

    it('the lead body requires exactly the required fields and rejects unknown ones', () => {
      const schema = resolve(
        doc.paths['/v1/leads']!.post!.requestBody!.content['application/json']!.schema,
      ) as {
        required: string[];
        additionalProperties: boolean;
        properties: Record<string, { maxLength?: number; enum?: string[] }>;
      };
      expect(schema.required.sort()).toEqual(['city', 'customerName', 'postalCode', 'street', 'title']);
      expect(schema.additionalProperties).toBe(false);
      expect(schema.properties.priority!.enum).toEqual(['low', 'medium', 'high', 'urgent']);
      expect(schema.properties.title!.maxLength).toBe(200);
      expect(schema.properties.postalCode!.maxLength).toBe(16);
    });
  });

  describe('GET /docs', () => {
    it('renders HTML whose assets are all served locally', async () => {
      const res = await ctx.app.inject({ method: 'GET', url: '/docs/' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).not.toMatch(/https?:\/\//);
      expect(res.body).not.toMatch(/src="\/\/|href="\/\//);

      const assets = [...res.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(assets.some((asset) => asset.endsWith('.js'))).toBe(true);
      expect(assets.some((asset) => asset.endsWith('.css'))).toBe(true);
      for (const asset of assets) {
        const url = new URL(asset, 'http://localhost/docs/').pathname;
        const served = await ctx.app.inject({ method: 'GET', url });
        expect(served.statusCode, url).toBe(200);
        if (url.endsWith('swagger-initializer.js')) {
          // The page loads this API's document and sends it to no outside validator.
          expect(served.body).toContain('validatorUrl: null');
          expect(served.body).not.toMatch(/url:\s*["']https?:/);
        }
      }
    });

    it('/docs without the slash works too', async () => {
      const res = await ctx.app.inject({ method: 'GET', url: '/docs' });
      expect([200, 301, 302]).toContain(res.statusCode);
    });

    it('serves the same document the API publishes', async () => {
      const docs = await ctx.app.inject({ method: 'GET', url: '/docs/json' });
      const api = await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' });
      expect(docs.statusCode).toBe(200);
      expect(docs.json()).toEqual(api.json());
    });
  });
});
