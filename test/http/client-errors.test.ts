// What Node's HTTP parser refuses before Fastify sees a request (431, 408, malformed requests) is answered with
// the contract's problem+json and a request id, over raw TCP; and a slow client is cut off near the configured
// timeout, not up to 30 s later. HSTS is sent over HTTPS only.
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, dialects, type TestContext, validLead } from '../helpers.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from connecting until the server closed the connection. */
  elapsedMs: number;
}

/**
 * Connects, writes `head`, then (with `trickle`) one more byte every 100 ms so the connection is never idle, and
 * collects everything until the server closes the connection (or `giveUpMs` passes).
 */
function rawRequest(
  port: number,
  head: string | Buffer,
  options: { trickle?: string; giveUpMs?: number } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1');
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => socket.destroy(), options.giveUpMs ?? 10_000);
    socket.on('connect', () => {
      socket.write(head);
      if (options.trickle !== undefined) {
        timer = setInterval(() => {
          if (socket.writable) socket.write(options.trickle!);
        }, 100);
      }
    });
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {}); // a reset after the answer is fine: the answer is what is checked
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      const elapsedMs = Date.now() - started;
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) {
        resolve({ status: 0, headers: {}, body: text, elapsedMs });
        return;
      }
      const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(split + 4), elapsedMs });
    });
    socket.on('timeout', () => reject(new Error('socket timeout')));
  });
}

function expectProblem(answer: RawAnswer, status: number, type: string, detail: RegExp) {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers['content-type']).toBe('application/problem+json');
  expect(answer.headers.connection).toBe('close');
  expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  const problem = JSON.parse(answer.body);
  expect(problem).toMatchObject({ type: `https://lead-intake.dev/errors/${type}`, status });
  expect(problem.title).toEqual(expect.any(String));
  expect(problem.detail).toMatch(detail);
  expect(problem.requestId).toMatch(/^req_[0-9A-Za-z]{26}$/);
  expect(answer.headers['x-request-id']).toBe(problem.requestId);
}

describe.each(dialects())('client errors over raw TCP on %s', (dialect) => {
  let ctx: TestContext;
  let port: number;
  beforeAll(async () => {
    // A short timeout, so a slow client must be cut off within about half a second.
    ctx = await createTestContext(dialect, { requestTimeoutMs: 500 });
    await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    port = (ctx.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => ctx?.close());

  it('headers too large: 431 problem+json with a request id', async () => {
    const answer = await rawRequest(
      port,
      `GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expectProblem(answer, 431, 'header-fields-too-large', /headers are too large/);
  });

  it('Content-Length beside Transfer-Encoding: 400 problem+json', async () => {
    const answer = await rawRequest(
      port,
      'POST /v1/leads HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    );
    expectProblem(answer, 400, 'bad-request', /Content-Length|Transfer-Encoding/);
  });

  it('a malformed chunk: 400 problem+json', async () => {
    const answer = await rawRequest(
      port,
      `POST /v1/leads HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${ctx.keys.full}\r\n` +
        'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    );
    expectProblem(answer, 400, 'bad-request', /chunk/);
  });

  it.each([
    ['an unknown method', 'G@T /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n'],
    ['a bad HTTP version', 'GET /healthz HTTP/7.3\r\nHost: localhost\r\n\r\n'],
    ['a request line of garbage', '\u0001\u0002\u0003\r\n\r\n'],
    ['a malformed header', 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nBad Header: x\r\n\r\n'],
  ])('%s: 400 problem+json', async (_name, request) => {
    expectProblem(await rawRequest(port, request), 400, 'bad-request', /malformed|not valid/);
  });

  it('headers that trickle in are cut off near the timeout with a 408 problem, not 30 s later', async () => {
    const answer = await rawRequest(port, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ', {
      trickle: 'a',
      giveUpMs: 15_000,
    });
    // 500 ms configured and checked every 125 ms; Node's default check every 30 s would take up to 30 s more.
    expect(answer.elapsedMs).toBeLessThan(10_000);
    expectProblem(answer, 408, 'request-timeout', /did not arrive in time/);
  });

  it('a body that trickles in is cut off the same way', async () => {
    const body = JSON.stringify(validLead());
    const answer = await rawRequest(
      port,
      `POST /v1/leads HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${ctx.keys.full}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length + 10_000}\r\n\r\n${body}`,
      { trickle: ' ', giveUpMs: 15_000 },
    );
    expect(answer.elapsedMs).toBeLessThan(10_000);
    expectProblem(answer, 408, 'request-timeout', /did not arrive in time/);
  });

  it('a well-formed request on the same server is still answered normally', async () => {
    const answer = await rawRequest(
      port,
      'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    );
    expect(answer.status).toBe(200);
    expect(answer.headers['strict-transport-security']).toBeUndefined();
  });
});

describe.each(dialects())('Strict-Transport-Security on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect, { trustProxy: 1 });
  });
  afterAll(async () => ctx?.close());

  it('is sent when the request came over HTTPS (X-Forwarded-Proto from a trusted proxy)', async () => {
    for (const url of ['/healthz', '/v1/leads', '/nowhere']) {
      const res = await ctx.app.inject({
        method: 'GET',
        url,
        headers: { 'x-forwarded-proto': 'https', 'x-api-key': ctx.keys.full },
      });
      expect(res.headers['strict-transport-security'], url).toBe('max-age=31536000; includeSubDomains');
    }
  });

  it('is not sent over plain HTTP', async () => {
    for (const headers of [{}, { 'x-forwarded-proto': 'http' }]) {
      const res = await ctx.app.inject({ method: 'GET', url: '/healthz', headers });
      expect(res.headers['strict-transport-security']).toBeUndefined();
    }
  });

  it('is not sent for X-Forwarded-Proto from a proxy that is not trusted', async () => {
    const untrusting = await createTestContext(dialect, { trustProxy: false });
    try {
      const res = await untrusting.app.inject({
        method: 'GET',
        url: '/healthz',
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(res.headers['strict-transport-security']).toBeUndefined();
    } finally {
      await untrusting.close();
    }
  });
});
