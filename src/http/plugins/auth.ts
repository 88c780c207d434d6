// API-key authentication: X-API-Key -> brand + scopes, checked before the body is read. The key is looked up
// first; the failed-key limit of the client's address applies only when it is missing or bad.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type ApiKeyResolver, hasScope, type Principal, type Scope } from '../../domain/api-keys.js';
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
  missing: 'Send your API key in the X-API-Key header.',
  unknown: 'The API key is not valid.',
  revoked: 'The API key has been revoked.',
  expired: 'The API key has expired.',
} as const;

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route has no scope: no principal was resolved');
  return request.principal;
}

export default fp(
  async function authPlugin(
    app: FastifyInstance,
    options: { resolver: ApiKeyResolver; failedKeys: Pick<FailedKeyLimit, 'refused'> },
  ) {
    app.decorateRequest('principal', null);

    const refuseKey = async (request: FastifyRequest, reply: FastifyReply, reason: keyof typeof REFUSALS) => {
      // 429 once the address has sent too many bad keys this minute, so guessing stays limited.
      if (await options.failedKeys.refused(request, reply)) return reply;
      reply.header('WWW-Authenticate', 'ApiKey header="X-API-Key"');
      return sendProblem(request, reply, 'unauthorized', REFUSALS[reason]);
    };

    app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      const scope = request.routeOptions.config?.scope;
      if (!scope) return;
      const header = request.headers['x-api-key'];
      const key = Array.isArray(header) ? header[0] : header;
      if (!key) return refuseKey(request, reply, 'missing');
      // A hash and, within KEY_CACHE_TTL_MS, a cache hit: cheap enough to do before any address check.
      const result = await options.resolver.resolve(key.trim());
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
