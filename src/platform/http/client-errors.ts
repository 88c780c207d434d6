// Errors Node's HTTP parser meets before Fastify sees a request (headers too large, a malformed request line,
// Content-Length beside Transfer-Encoding, a bad chunk, a request that does not arrive in time). Fastify's default
// answers these as {"error":…} without a request id; here they get the contract's problem+json like every other
// error, written straight to the socket, which is then closed.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ulid } from '../../shared/ids.js';
import { type ProblemCode, problemBody } from './problem.js';

/** Node checks header and request timeouts this often: its 30 s default holds a slow client ~30 s past them. */
export function connectionsCheckingInterval(requestTimeoutMs: number): number {
  return Math.max(50, Math.min(1000, Math.floor(Math.min(10_000, requestTimeoutMs) / 4)));
}

const DETAILS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'The request headers are too large: at most 16 KiB in all.',
  ERR_HTTP_REQUEST_TIMEOUT: 'The request did not arrive in time; nothing was processed.',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'The request has both Content-Length and Transfer-Encoding: send only one.',
  HPE_INVALID_TRANSFER_ENCODING: 'The Transfer-Encoding header is not valid (or comes with Content-Length).',
  HPE_INVALID_CONTENT_LENGTH: 'The Content-Length header is not valid.',
  HPE_INVALID_CHUNK_SIZE: 'The chunked body is malformed: a chunk size is not a hexadecimal number.',
  HPE_INVALID_METHOD: 'The request line is malformed: unknown method.',
  HPE_INVALID_URL: 'The request line is malformed: the target is not a valid path.',
  HPE_INVALID_VERSION: 'The request line is malformed: the HTTP version is not valid.',
  HPE_INVALID_HEADER_TOKEN: 'A request header is malformed.',
};

function problemFor(code: string | undefined): { problem: ProblemCode; detail: string } {
  if (code === 'HPE_HEADER_OVERFLOW') return { problem: 'header_fields_too_large', detail: DETAILS[code]! };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { problem: 'request_timeout', detail: DETAILS[code]! };
  return {
    problem: 'bad_request',
    detail: (code && DETAILS[code]) ?? 'The request is not valid HTTP/1.1 and could not be read.',
  };
}

/** The complete HTTP/1.1 response for a client error: problem+json with a request id, and Connection: close. */
export function clientErrorResponse(code: string | undefined, requestId: string, https = false): string {
  const { problem, detail } = problemFor(code);
  const json = problemBody(problem, detail, requestId);
  const body = JSON.stringify(json);
  const { status } = json;
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Content-Type: application/problem+json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'X-Content-Type-Options: nosniff',
    'Cache-Control: no-store',
    ...(https ? ['Strict-Transport-Security: max-age=31536000; includeSubDomains'] : []),
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** Fastify's clientErrorHandler (called with the instance as `this`). */
export function handleClientError(
  this: FastifyInstance,
  error: Error & { code?: string },
  socket: Socket,
): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // Like Node itself: no answer over one already started (a pipelined request failing mid-response).
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const requestId = `req_${ulid()}`;
  this.log.debug({ err: error, requestId }, 'client error');
  const encrypted = (socket as Socket & { encrypted?: boolean }).encrypted === true;
  // end() sends the answer before closing; the socket is destroyed once it is flushed.
  socket.end(clientErrorResponse(error.code, requestId, encrypted), () => socket.destroy());
}
