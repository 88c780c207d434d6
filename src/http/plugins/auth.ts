// API-key authentication: X-API-Key -> brand + scopes, checked before the body is read.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type ApiKeyResolver, hasScope, type Principal, type Scope } from '../../domain/api-keys.js';
import { sendProblem } from '../problem.js';

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
  async function authPlugin(app: FastifyInstance, options: { resolver: ApiKeyResolver }) {
    app.decorateRequest('principal', null);
    app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      const scope = request.routeOptions.config?.scope;
      if (!scope) return;
      const header = request.headers['x-api-key'];
      const key = Array.isArray(header) ? header[0] : header;
      if (!key) {
        reply.header('WWW-Authenticate', 'ApiKey header="X-API-Key"');
        return sendProblem(request, reply, 'unauthorized', REFUSALS.missing);
      }
      const result = await options.resolver.resolve(key.trim());
      if (typeof result === 'string') {
        reply.header('WWW-Authenticate', 'ApiKey header="X-API-Key"');
        return sendProblem(request, reply, 'unauthorized', REFUSALS[result]);
      }
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
