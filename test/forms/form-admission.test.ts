// A multipart form post is admitted before its body is read: the form looked up, the origin checked and the limits
// counted from the headers alone. A refused post is answered while its files are still on the way, so no byte of
// them is streamed to storage. Shown over a real socket whose body never ends: the answer can only come first.
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, dialects, formRateLimit, type TestContext } from '../helpers.js';

const SITE = 'https://www.example.nl';

describe.each(dialects())('a form post refused before its files are read, on %s', (dialect) => {
  let ctx: TestContext;
  let form: { id: string };
  let port: number;
  beforeAll(async () => {
    ctx = await createTestContext(dialect, { rateLimit: formRateLimit(1) });
    const res = await ctx.api.post('/v1/forms', { name: 'Website', allowedOrigins: [SITE] });
    expect(res.statusCode, res.body).toBe(201);
    form = res.json();
    await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    port = (ctx.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await ctx?.close();
  });

  /**
   * Starts a multipart post that announces 50 MB and sends only its first file's beginning, then waits for the
   * answer (or 10 s). Resolves with the status and how many bytes were sent; the socket is closed afterwards.
   */
  const unfinishedPost = (formId: string, headers: Record<string, string>) =>
    new Promise<{ status: number | 'no answer'; stored: number }>((resolve, reject) => {
      const boundary = '----admission';
      const head = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="attachments"; filename="leak.jpg"\r\n` +
          'Content-Type: image/jpeg\r\n\r\n',
      );
      const req = request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/f/${formId}`,
        headers: {
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(50 * 1024 * 1024),
          ...headers,
        },
      });
      const timer = setTimeout(() => {
        req.destroy();
        resolve({ status: 'no answer', stored: 0 });
      }, 10_000);
      req.on('response', (res) => {
        clearTimeout(timer);
        res.resume();
        req.destroy();
        resolve({ status: res.statusCode ?? 0, stored: 0 });
      });
      req.on('error', (error) => {
        if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(error);
      });
      req.write(Buffer.concat([head, Buffer.alloc(64 * 1024, 0xff)]));
    });

  const storedKeys = async () => {
    const keys: string[] = [];
    for await (const object of ctx.app.deps.storage.list()) keys.push(object.key);
    return keys;
  };

  it('a post from an origin the form does not allow is a 403 before its files arrive', async () => {
    const answer = await unfinishedPost(form.id, { origin: 'https://elsewhere.example' });
    expect(answer.status).toBe(403);
    expect(await storedKeys()).toEqual([]);
  });

  it('a post to no such form is a 404 before its files arrive', async () => {
    const answer = await unfinishedPost('frm_nosuchform', { origin: SITE });
    expect(answer.status).toBe(404);
  });

  it('a post over the rate limit is a 429 before its files arrive', async () => {
    // The one post a minute this form takes from the address, used by a post without files.
    const first = await ctx.app.inject({
      method: 'POST',
      url: `/f/${form.id}`,
      headers: { origin: SITE, 'content-type': 'application/x-www-form-urlencoded' },
      payload:
        'customerName=A&email=a%40example.com&street=Damrak&streetNumber=1&postalCode=1012+LG&city=Amsterdam&title=Tap',
      remoteAddress: '127.0.0.1',
    });
    expect(first.statusCode, first.body).toBe(303);
    const answer = await unfinishedPost(form.id, { origin: SITE });
    expect(answer.status).toBe(429);
    expect(await storedKeys()).toEqual([]);
  });
});
