// Rate limits: per API key (reads and writes counted apart) and, for failed key attempts, per client address.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';
import { type RateLimiter, type RateLimitState, WINDOW_MS } from '../../rate-limit/limiter.js';
import { sendProblem } from '../problem.js';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function setHeaders(reply: FastifyReply, state: RateLimitState) {
  reply.header('RateLimit-Limit', String(state.limit));
  reply.header('RateLimit-Remaining', String(state.remaining));
  reply.header('RateLimit-Reset', String(Math.max(1, Math.ceil(state.resetMs / 1000))));
}

function refuse(request: FastifyRequest, reply: FastifyReply, state: RateLimitState, detail: string) {
  const seconds = Math.max(1, Math.ceil(state.resetMs / 1000));
  reply.header('Retry-After', String(seconds));
  return sendProblem(request, reply, 'rate_limited', `${detail} Retry in ${seconds} s.`);
}

export default fp(
  async function rateLimitPlugin(
    app: FastifyInstance,
    { limiter, config }: { limiter: RateLimiter; config: Readonly<Config> },
  ) {
    const counted = new WeakSet<FastifyRequest>();
    const failedAuthLimit = config.rateLimit.failedAuthPerMinute;
    const addressBucket = (request: FastifyRequest) => `auth:${request.ip}`;
    // Addresses this instance has refused a key from in the current window. Only their budget is looked up before
    // auth, so well-behaved clients cost no extra counter read; an address failing on other instances is caught
    // here from its first failure on this one.
    let suspectWindow = -1;
    let suspects = new Set<string>();
    const suspectsNow = () => {
      const window = Math.floor(Date.now() / WINDOW_MS);
      if (window !== suspectWindow) {
        suspectWindow = window;
        suspects = new Set();
      }
      return suspects;
    };

    const countKey = async (request: FastifyRequest) => {
      const principal = request.principal!;
      counted.add(request);
      const reading = READ_METHODS.has(request.method);
      const limit = reading
        ? (principal.readsPerMinute ?? config.rateLimit.readsPerMinute)
        : (principal.writesPerMinute ?? config.rateLimit.writesPerMinute);
      const state = await limiter.hit(`key:${principal.keyId}:${reading ? 'read' : 'write'}`, limit);
      return { state, reading };
    };

    // Registered before auth: an address that keeps sending bad keys is stopped before its keys are looked up.
    app.addHook('onRequest', async (request, reply) => {
      if (!request.routeOptions.config?.scope || !suspectsNow().has(request.ip)) return;
      const state = await limiter.peek(addressBucket(request), failedAuthLimit);
      if (state.remaining > 0) return;
      setHeaders(reply, state);
      return refuse(
        request,
        reply,
        state,
        `Too many requests with a missing or invalid API key from your address (limit ${failedAuthLimit} per minute).`,
      );
    });

    // After auth (every onRequest hook has run) and before the body is read: count against the key's budget.
    app.addHook('preParsing', async (request, reply, payload) => {
      if (!request.principal || counted.has(request)) return payload;
      const { state, reading } = await countKey(request);
      setHeaders(reply, state);
      if (state.allowed) return payload;
      return refuse(
        request,
        reply,
        state,
        `This API key has used its ${state.limit} ${reading ? 'reads' : 'writes'} for this minute.`,
      );
    });

    app.addHook('onSend', async (request, reply, payload) => {
      if (!request.routeOptions.config?.scope) return payload;
      if (reply.statusCode === 401) {
        suspectsNow().add(request.ip);
        await limiter.hit(addressBucket(request), failedAuthLimit);
      } else if (request.principal && !counted.has(request)) {
        // Refused by auth after the key resolved (403): the request still counts, and says what is left.
        setHeaders(reply, (await countKey(request)).state);
      }
      return payload;
    });
  },
  { name: 'rate-limit' },
);
