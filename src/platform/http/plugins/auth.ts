// API-key authentication: X-API-Key or Authorization: Bearer -> brand + scopes, checked before the body is read.
// The key is looked up first; the failed-key limit of the client's address applies only when it is missing or bad.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type ApiKeyLookup, hasScope, type Principal, type Scope } from '../../../shared/scopes.js';
import { sendProblem } from '../problem.js';
import type { FailedKeyLimit } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a route needs; routes with a scope require an API key. */
    scope?: Scope;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

const REFUSALS = {
  missing: 'Send your API key in the X-API-Key header or as Authorization: Bearer <key>.',
  conflict: 'X-API-Key and Authorization: Bearer carry two different keys: send one.',
  unknown: 'The API key is not valid.',
  revoked: 'The API key has been revoked.',
  expired: 'The API key has expired.',
} as const;

/**
 * The key a request sends: X-API-Key, or Authorization: Bearer <key> (what most HTTP tools offer first). Both
 * naming the same key is fine; two different keys are refused rather than one silently chosen.
 */
function keyOf(request: FastifyRequest): string | undefined | 'conflict' {
  const header = request.headers['x-api-key'];
  const apiKey = (Array.isArray(header) ? header[0] : header)?.trim() || undefined;
  const authorization = request.headers.authorization;
  const bearer =
    typeof authorization === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
  if (apiKey && bearer && apiKey !== bearer) return 'conflict';
  return apiKey ?? bearer;
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route has no scope: no principal was resolved');
  return request.principal;
}

export default fp(
  async function authPlugin(
    app: FastifyInstance,
    options: { resolver: ApiKeyLookup; failedKeys: Pick<FailedKeyLimit, 'refused'> },
  ) {
    app.decorateRequest('principal', null);

    const refuseKey = async (request: FastifyRequest, reply: FastifyReply, reason: keyof typeof REFUSALS) => {
      // 429 once the address has sent too many bad keys this minute, so guessing stays limited.
      if (await options.failedKeys.refused(request, reply)) return reply;
      reply.header('WWW-Authenticate', 'Bearer, ApiKey header="X-API-Key"');
      return sendProblem(request, reply, 'unauthorized', REFUSALS[reason]);
    };

    app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      const scope = request.routeOptions.config?.scope;
      if (!scope) return;
      const key = keyOf(request);
      if (!key) return refuseKey(request, reply, 'missing');
      if (key === 'conflict') return refuseKey(request, reply, 'conflict');
      // A hash and, within KEY_CACHE_TTL_MS, a cache hit: cheap enough to do before any address check.
      const result = await options.resolver.resolve(key);
      if (typeof result === 'string') return refuseKey(request, reply, result);
      request.principal = result;
      if (!hasScope(result.scopes, scope)) {
        return sendProblem(
          request,
          reply,
          'forbidden',
          `This API key lacks the scope "${scope}" that this route needs (the key has: ${result.scopes.join(', ')}).`,
          { requiredScope: scope },
        );
      }
    });
  },
  { name: 'auth' },
);
