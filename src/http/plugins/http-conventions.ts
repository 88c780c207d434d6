// The contract's HTTP conventions: responses over 1 KB compressed with br or gzip when the client accepts it
// (@fastify/compress), and API GETs with an ETag (a hash of the body), `Cache-Control: private, no-cache`, and a
// 304 for a matching If-None-Match. Register before the routes: compression attaches to each route as it is added.
import { createHash } from 'node:crypto';
import { constants } from 'node:zlib';
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** True when an If-None-Match header names this ETag (weak or strong, or `*`). */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

export default fp(
  async function httpConventions(app: FastifyInstance) {
    // API GETs (the key-authenticated routes): validators for conditional requests. Runs before compression
    // (app hooks run before the route hooks @fastify/compress adds), so the ETag names the uncompressed body and
    // a 304 is never compressed.
    app.addHook('onSend', async (request, reply, payload) => {
      if (request.method !== 'GET' || !request.routeOptions.config?.scope || reply.statusCode !== 200) {
        return payload;
      }
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
      const etag = `"${createHash('sha256').update(payload).digest('base64url').slice(0, 27)}"`;
      reply.header('ETag', etag).header('Cache-Control', 'private, no-cache');
      if (!matches(request.headers['if-none-match'], etag)) return payload;
      reply.code(304).removeHeader('Content-Type').removeHeader('Content-Length');
      return '';
    });
    await app.register(compress, {
      global: true,
      threshold: 1024,
      encodings: ['br', 'gzip'],
      // Brotli's default quality (11) is for static files; 4 compresses JSON about as well as gzip, faster.
      brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
      // Request bodies stay as sent: no decompression (a small compressed body could expand past the 64 KiB limit).
      globalDecompression: false,
    });
  },
  { name: 'http-conventions' },
);
