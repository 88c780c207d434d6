// lead-intake/client's own behaviour (retries, Idempotency-Key, paging, auth), against a local HTTP server that
// plays the API: real sockets and the real Fetch, no mocked fetch. Tests the built client (dist/client), which
// `npm run build` generates; test/client/package.test.ts runs it against the real service from an installed tarball.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, type ClientOptions, createClient, retryAfterMs } from '../../dist/client/index.js';

const root = path.resolve(import.meta.dirname, '../..');

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
type Handler = (request: Seen, response: http.ServerResponse) => void;

let handler: Handler;
const seen: Seen[] = [];
let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  if (!fs.existsSync(path.join(root, 'dist/client/index.js'))) {
    throw new Error('dist/client is missing: run "npm run build" first');
  }
  server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const request = { method: req.method!, url: req.url!, headers: req.headers, body };
      seen.push(request);
      handler(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => {
  seen.length = 0;
});

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const type = status >= 400 ? 'application/problem+json' : 'application/json';
  res.writeHead(status, { 'Content-Type': type, ...headers }).end(JSON.stringify(body));
}
function problem(status: number, extra: Record<string, unknown> = {}) {
  return {
    type: 'https://lead-intake.dev/errors/x',
    title: 'X',
    status,
    detail: `failed ${status}`,
    requestId: 'r',
    ...extra,
  };
}
/** Answers with the given handlers in turn, the last one for every further request. */
function sequence(...handlers: Handler[]): Handler {
  let next = 0;
  return (request, response) => handlers[Math.min(next++, handlers.length - 1)]!(request, response);
}
const drop: Handler = (_request, response) => response.socket?.destroy();
const lead = { id: 'wrk_1', title: 'Leaking tap', status: 'request' };
const created: Handler = (_request, response) => json(response, 201, lead);
const LEAD_BODY = {
  street: 'Keizersgracht',
  postalCode: '1015 CJ',
  city: 'Amsterdam',
  customerName: 'A',
  title: 'T',
};

function client(options: Partial<ClientOptions> = {}) {
  return createClient({ baseUrl, apiKey: 'lik_test', retryBaseDelayMs: 1, ...options });
}

describe('Retry-After', () => {
  it('reads delay-seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-24T10:00:00.000Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Tue, 24 Nov 2026 10:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Tue, 24 Nov 2026 09:59:00 GMT', now)).toBe(0);
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('-1', now)).toBeUndefined();
  });

  it('retries a 429 after the seconds it names, with the same Idempotency-Key', async () => {
    handler = sequence((_q, res) => json(res, 429, problem(429), { 'Retry-After': '1' }), created);
    const { data, error } = await client().POST('/v1/leads', { body: LEAD_BODY });
    expect(error).toBeUndefined();
    expect(data?.id).toBe('wrk_1');
    expect(seen).toHaveLength(2);
    const keys = seen.map((request) => request.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(seen[1]!.body).toBe(seen[0]!.body);
    expect(JSON.parse(seen[1]!.body)).toEqual(LEAD_BODY);
  });

  it('retries a 503 whose Retry-After is an HTTP date (here: already passed)', async () => {
    const past = new Date(Date.now() - 60_000).toUTCString();
    handler = sequence(
      (_q, res) => json(res, 503, problem(503), { 'Retry-After': past }),
      (_q, res) => json(res, 200, { ...lead, statusHistory: [] }),
    );
    const { data } = await client().GET('/v1/leads/{id}', { params: { path: { id: 'wrk_1' } } });
    expect(data?.id).toBe('wrk_1');
    expect(seen).toHaveLength(2);
  });

  it('hands back a 429 whose Retry-After is beyond maxRetryDelayMs, without waiting', async () => {
    handler = (_q, res) => json(res, 429, problem(429), { 'Retry-After': '120' });
    const { data, error, response } = await client({ maxRetryDelayMs: 10_000 }).GET('/v1/leads');
    expect(data).toBeUndefined();
    expect(response.status).toBe(429);
    expect(error?.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('120');
    expect(seen).toHaveLength(1);
  });
});

describe('retries', () => {
  it('stops after 1 + retries attempts and returns the last answer as the typed problem', async () => {
    handler = (_q, res) => json(res, 503, problem(503), { 'Retry-After': '0' });
    const { error, response } = await client({ retries: 3 }).GET('/v1/leads');
    expect(seen).toHaveLength(4);
    expect(response.status).toBe(503);
    expect(error?.detail).toBe('failed 503');
    expect(error?.requestId).toBe('r');
  });

  it('backs off with jitter when there is no Retry-After', async () => {
    handler = sequence(
      (_q, res) => json(res, 503, problem(503)),
      (_q, res) => json(res, 503, problem(503)),
      (_q, res) => json(res, 200, { data: [], limit: 50, hasMore: false, nextCursor: null }),
    );
    const { data } = await client().GET('/v1/leads');
    expect(data?.data).toEqual([]);
    expect(seen).toHaveLength(3);
  });

  it('does not retry other errors', async () => {
    handler = (_q, res) => json(res, 500, problem(500));
    const { error } = await client().GET('/v1/leads');
    expect(error?.status).toBe(500);
    expect(seen).toHaveLength(1);
  });

  it('retries: 0 sends once', async () => {
    handler = (_q, res) => json(res, 429, problem(429), { 'Retry-After': '0' });
    const { response } = await client({ retries: 0 }).GET('/v1/leads');
    expect(response.status).toBe(429);
    expect(seen).toHaveLength(1);
  });

  it('retries a GET after a network error', async () => {
    handler = sequence(drop, (_q, res) =>
      json(res, 200, { data: [], limit: 50, hasMore: false, nextCursor: null }),
    );
    const { data } = await client().GET('/v1/leads');
    expect(data?.hasMore).toBe(false);
    expect(seen).toHaveLength(2);
  });

  it('retries a create after a network error, with the same Idempotency-Key', async () => {
    handler = sequence(drop, drop, created);
    const { data } = await client().POST('/v1/leads', { body: LEAD_BODY });
    expect(data?.id).toBe('wrk_1');
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((request) => request.headers['idempotency-key'])).size).toBe(1);
  });

  it('never repeats a POST without an Idempotency-Key after a network error', async () => {
    handler = drop;
    await expect(
      client().POST('/v1/webhook-endpoints', { body: { url: 'https://example.com/hook' } }),
    ).rejects.toThrow();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('never repeats a PATCH after a network error', async () => {
    handler = drop;
    await expect(
      client().PATCH('/v1/leads/{id}', { params: { path: { id: 'wrk_1' } }, body: { status: 'quoted' } }),
    ).rejects.toThrow();
    expect(seen).toHaveLength(1);
  });
});

describe('Idempotency-Key', () => {
  it('is new for each create, and only on operations that honour it', async () => {
    handler = (q, res) => (q.url === '/v1/leads' ? created(q, res) : json(res, 201, { id: 'whk_1' }));
    const c = client();
    await c.POST('/v1/leads', { body: LEAD_BODY });
    await c.POST('/v1/leads', { body: LEAD_BODY });
    await c.POST('/v1/webhook-endpoints', { body: { url: 'https://example.com/hook' } });
    const [first, second, hook] = seen.map((request) => request.headers['idempotency-key']);
    expect(first).toBeTypeOf('string');
    expect(second).toBeTypeOf('string');
    expect(second).not.toBe(first);
    expect(hook).toBeUndefined();
  });

  it("keeps the caller's own key", async () => {
    handler = created;
    await client().POST('/v1/leads', {
      body: LEAD_BODY,
      params: { header: { 'idempotency-key': 'order-42' } },
    });
    expect(seen[0]!.headers['idempotency-key']).toBe('order-42');
  });

  it('uses the idempotencyKey generator when given', async () => {
    handler = created;
    await client({ idempotencyKey: () => 'fixed-key' }).POST('/v1/leads', { body: LEAD_BODY });
    expect(seen[0]!.headers['idempotency-key']).toBe('fixed-key');
  });
});

describe('authentication', () => {
  it('sends the key as a bearer token by default, or as X-API-Key', async () => {
    handler = (_q, res) => json(res, 200, { data: [], limit: 50, hasMore: false, nextCursor: null });
    await client().GET('/v1/leads');
    await client({ authHeader: 'x-api-key' }).GET('/v1/leads');
    expect(seen[0]!.headers.authorization).toBe('Bearer lik_test');
    expect(seen[0]!.headers['x-api-key']).toBeUndefined();
    expect(seen[1]!.headers['x-api-key']).toBe('lik_test');
    expect(seen[1]!.headers.authorization).toBeUndefined();
  });
});

describe('paginate', () => {
  const pages: Record<string, { data: { id: string }[]; nextCursor: string | null }> = {
    start: { data: [{ id: 'wrk_1' }, { id: 'wrk_2' }], nextCursor: 'c2' },
    c2: { data: [{ id: 'wrk_3' }, { id: 'wrk_4' }], nextCursor: 'c3' },
    c3: { data: [{ id: 'wrk_5' }], nextCursor: null },
  };
  const paged: Handler = (q, res) => {
    const url = new URL(q.url, 'http://x');
    const page = pages[url.searchParams.get('cursor') ?? 'start'];
    if (!page) return json(res, 422, problem(422, { errors: [{ field: 'cursor', message: 'bad' }] }));
    json(res, 200, { ...page, limit: 2, hasMore: page.nextCursor !== null });
  };

  it('yields every item across pages and stops when nextCursor is null', async () => {
    handler = paged;
    const ids: string[] = [];
    for await (const item of client().paginate('/v1/leads', {
      params: { query: { limit: 2, order: 'asc' } },
    })) {
      ids.push(item.id);
    }
    expect(ids).toEqual(['wrk_1', 'wrk_2', 'wrk_3', 'wrk_4', 'wrk_5']);
    expect(seen.map((request) => request.url)).toEqual([
      '/v1/leads?limit=2&order=asc',
      '/v1/leads?limit=2&order=asc&cursor=c2',
      '/v1/leads?limit=2&order=asc&cursor=c3',
    ]);
  });

  it('starts from a given cursor, fills path parameters, and can be left early', async () => {
    handler = paged;
    const ids: string[] = [];
    for await (const note of client().paginate('/v1/leads/{id}/notes', {
      params: { path: { id: 'wrk_9' }, query: { cursor: 'c2' } },
    })) {
      ids.push(note.id);
      if (ids.length === 3) break;
    }
    expect(ids).toEqual(['wrk_3', 'wrk_4', 'wrk_5']);
    expect(seen.map((request) => request.url)).toEqual([
      '/v1/leads/wrk_9/notes?cursor=c2',
      '/v1/leads/wrk_9/notes?cursor=c3',
    ]);
  });

  it('throws an ApiError with the problem+json body when a page fails', async () => {
    handler = paged;
    const iterator = client().paginate('/v1/leads', { params: { query: { cursor: 'bogus' } } });
    const failure = await iterator.next().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    const apiError = failure as ApiError;
    expect(apiError.status).toBe(422);
    expect(apiError.problem.errors).toEqual([{ field: 'cursor', message: 'bad' }]);
    expect(apiError.message).toBe('422 failed 422');
  });
});
