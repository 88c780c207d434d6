// The contract's HTTP conventions: responses over 1 KB compressed with br or gzip when the client accepts it
// (@fastify/compress), and API GETs with an ETag (a hash of the body), `Cache-Control: private, no-cache`, and a
// 304 for a matching If-None-Match. Register before the routes: compression attaches to each route as it is added.
//
// Cheap on the hot path: a body the response cache sends again and again (the same Buffer while the data is
// unchanged) is hashed once and compressed once per encoding, not on every request (see BodyMemo).
import { hash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { Negotiator } from '@fastify/accept-negotiator';
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ValidationError } from '../../../shared/errors.js';

/** What an API response may be cached as: by the client only, and only after asking whether it is current. */
export const API_CACHE_CONTROL = 'private, no-cache';

/** Bodies smaller than this are sent as they are: compressing them saves too little to pay for itself. */
const THRESHOLD = 1024;
/**
 * Levels for JSON made on demand (measured on a page of 100 leads: bench/README.md). Brotli's default (11) is
 * for static files; quality 2 is smaller than gzip's default level and cheaper. gzip level 3 is within 6% of
 * level 6's size at about half its time.
 */
const BROTLI_QUALITY = 2;
const GZIP_LEVEL = 3;
const ENCODINGS = ['br', 'gzip'] as const;
type Encoding = (typeof ENCODINGS)[number];

/**
 * The ETag of a body: weak (`W/`), because the same ETag names the identity, gzip and br encodings of it, which
 * are different bytes (RFC 9110 8.8.3). SHA-1 is plenty to tell two bodies apart; nothing relies on it being
 * hard to forge.
 */
export function etagOf(body: string | Buffer): string {
  return `W/"${hash('sha1', body, 'base64url')}"`;
}

/** True when an If-None-Match header names this ETag (the weak comparison RFC 9110 13.1.2 asks for), or is `*`. */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  for (const tag of header.split(',')) {
    const t = tag.trim();
    if (t === '*' || t === opaque || t === `W/${opaque}`) return true;
  }
  return false;
}

/** What is known about one body Buffer: its ETag and its compressed forms, made when first needed. */
interface BodyMemo {
  etag: string;
  br?: Buffer;
  gzip?: Buffer;
}

export interface HttpConventionsOptions {
  /** Compress responses (default true); off behind a proxy that compresses, or to measure what it costs. */
  compression?: boolean;
  /** ETags and 304s on API GETs (default true); off only to measure what they cost. */
  etags?: boolean;
}

export default fp(
  async function httpConventions(app: FastifyInstance, options: HttpConventionsOptions) {
    const etags = options.etags ?? true;
    const compression = options.compression ?? true;
    // Keyed by the Buffer itself: an entry lives exactly as long as the response cache keeps that body.
    const memos = new WeakMap<Buffer, BodyMemo>();
    const negotiator = new Negotiator<Encoding>({ supportedValues: [...ENCODINGS] });
    const encodingFor = (header: string | undefined): Encoding | null =>
      // As @fastify/compress reads it: `*` and x-gzip mean gzip.
      header ? negotiator.negotiate(header.toLowerCase().replace(/\*|x-gzip/g, 'gzip')) : null;

    // API reads (the key-authenticated routes): never stored by a shared cache (the key is in a header a proxy
    // does not key on), revalidated by the client each time, with an ETag to revalidate by. Runs before
    // compression (app hooks run before the route hooks @fastify/compress adds), so the ETag names the
    // uncompressed body and a 304 is never compressed. Streamed bodies (the CSV exports) get no ETag: it would
    // mean holding the whole export in memory.
    // A NUL in a query parameter is refused on every route, before any handler sees it: no value the service
    // takes holds one, and PostgreSQL cannot even bind it (issue 29: seven routes answered 500).
    app.addHook('preValidation', async (request) => {
      const query = request.query as Record<string, unknown> | undefined;
      if (!query || typeof query !== 'object') return;
      const errors = Object.entries(query)
        .filter(([, v]) =>
          (Array.isArray(v) ? v : [v]).some((s) => typeof s === 'string' && s.includes('\0')),
        )
        .map(([field]) => ({ field, message: 'must not contain a NUL character' }));
      if (errors.length) throw new ValidationError(errors);
    });

    app.addHook('onSend', async (request, reply, payload) => {
      if ((request.method !== 'GET' && request.method !== 'HEAD') || !request.routeOptions.config?.scope) {
        return payload;
      }
      // A route that said otherwise (the CSV exports: no-store) keeps its own.
      if (!reply.hasHeader('Cache-Control')) reply.header('Cache-Control', API_CACHE_CONTROL);
      if (reply.statusCode !== 200) return payload;
      const isBuffer = Buffer.isBuffer(payload);
      if (!isBuffer && typeof payload !== 'string') return payload;
      const body = payload as string | Buffer;
      let memo = isBuffer ? memos.get(payload) : undefined;
      if (etags) {
        if (!memo) {
          memo = { etag: etagOf(body) };
          if (isBuffer) memos.set(payload, memo);
        }
        reply.header('ETag', memo.etag);
        if (ifNoneMatchHits(request.headers['if-none-match'], memo.etag)) {
          reply.code(304).removeHeader('Content-Type').removeHeader('Content-Length');
          return '';
        }
      }
      // A Buffer the response cache sends again: compressed once per encoding, kept beside its ETag. Anything
      // else is left to @fastify/compress, which compresses it with the same settings.
      if (!compression || !isBuffer || payload.length < THRESHOLD) return payload;
      const encoding = encodingFor(request.headers['accept-encoding']);
      if (!encoding) return payload;
      if (!memo) {
        memo = { etag: etags ? etagOf(body) : '' };
        memos.set(payload, memo);
      }
      memo[encoding] ??= compressBody(payload, encoding);
      const compressed = memo[encoding];
      const vary = reply.getHeader('Vary');
      if (!vary) reply.header('Vary', 'Accept-Encoding');
      else if (!/accept-encoding/i.test(String(vary))) reply.header('Vary', `${vary}, Accept-Encoding`);
      reply.header('Content-Encoding', encoding);
      reply.header('Content-Length', compressed.length);
      return compressed;
    });
    if (!compression) return;
    await app.register(compress, {
      global: true,
      threshold: THRESHOLD,
      encodings: [...ENCODINGS],
      brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } },
      zlibOptions: { level: GZIP_LEVEL },
      // Bodies up to 1 MiB are compressed in one synchronous call (a page of 100 events: about 0.2 ms). The
      // default on a 2-core machine, 8 KiB, sent bigger pages through zlib streams on the thread pool, which cost
      // 2.5 times as much per response under load (bench/README.md). Streams (the docs assets) stay streams.
      syncThreshold: 1024 * 1024,
      // Request bodies stay as sent: no decompression (a small compressed body could expand past the 64 KiB limit).
      globalDecompression: false,
    });
  },
  { name: 'http-conventions' },
);

function compressBody(body: Buffer, encoding: Encoding): Buffer {
  return encoding === 'br'
    ? brotliCompressSync(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      })
    : gzipSync(body, { level: GZIP_LEVEL });
}
