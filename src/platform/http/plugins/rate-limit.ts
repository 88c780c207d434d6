// Rate limits: per API key (reads and writes counted apart) and, for failed key attempts, per client address.
// Only failures are counted and refused per address: a request with a valid key is never refused for what other
// clients at its address did (an office or a mobile carrier shares one address).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';
import { type RateLimiter, type RateLimitState, WINDOW_MS } from '../../rate-limit/limiter.js';
import { sendProblem } from '../problem.js';
import type { RateLimitKind } from './metrics.js';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Which limit refused a request, for the rate_limited_requests_total metric (set where the 429 is decided). */
const refusedBy = new WeakMap<FastifyRequest, RateLimitKind>();

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

/**
 * The failed-key limit per client address. Auth consults it only for a missing or bad key, after looking the key
 * up, so a valid key from an address that is over the limit is still served; bad keys from it get 429 instead of
 * 401 until the window ends, which keeps guessing limited.
 */
export class FailedKeyLimit {
  // Addresses this instance has refused a key from in the current window. Only their budget is looked up, so a
  // bad key from a well-behaved address costs no extra counter read; an address failing on other instances is
  // caught here from its first failure on this one.
  private suspectWindow = -1;
  private suspects = new Set<string>();

  constructor(
    private readonly limiter: RateLimiter,
    readonly limit: number,
  ) {}

  private suspectsNow() {
    const window = Math.floor(Date.now() / WINDOW_MS);
    if (window !== this.suspectWindow) {
      this.suspectWindow = window;
      this.suspects = new Set();
    }
    return this.suspects;
  }

  private bucket(request: FastifyRequest) {
    return `auth:${request.ip}`;
  }

  /** For a missing or bad key: sends the 429 and says true when the address has used up its failures. */
  async refused(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    if (!this.suspectsNow().has(request.ip)) return false;
    const state = await this.limiter.peek(this.bucket(request), this.limit);
    if (state.remaining > 0) return false;
    setHeaders(reply, state);
    refusedBy.set(request, 'failed_auth');
    refuse(
      request,
      reply,
      state,
      `Too many requests with a missing or invalid API key from your address (limit ${this.limit} per minute).`,
    );
    return true;
  }

  /** Counts a refused key (a 401) against the request's address. */
  async record(request: FastifyRequest): Promise<void> {
    this.suspectsNow().add(request.ip);
    await this.limiter.hit(this.bucket(request), this.limit);
  }
}

export default fp(
  async function rateLimitPlugin(
    app: FastifyInstance,
    {
      limiter,
      config,
      failedKeys,
    }: { limiter: RateLimiter; config: Readonly<Config>; failedKeys: FailedKeyLimit },
  ) {
    const counted = new WeakSet<FastifyRequest>();

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

    // After auth (every onRequest hook has run) and before the body is read: count against the key's budget.
    app.addHook('preParsing', async (request, reply, payload) => {
      if (!request.principal || counted.has(request)) return payload;
      const { state, reading } = await countKey(request);
      setHeaders(reply, state);
      if (state.allowed) return payload;
      refusedBy.set(request, reading ? 'key_read' : 'key_write');
      return refuse(
        request,
        reply,
        state,
        `This API key has used its ${state.limit} ${reading ? 'reads' : 'writes'} for this minute.`,
      );
    });

    // Every 429 is counted, by the limit that refused it: this plugin's (marked above), a website form's or one of
    // the dashboard's throttles (those routes answer their own 429s).
    app.addHook('onResponse', async (request, reply) => {
      if (reply.statusCode !== 429) return;
      const kind =
        refusedBy.get(request) ??
        (request.routeOptions.url?.startsWith('/f/')
          ? 'form'
          : request.routeOptions.config?.page
            ? 'dashboard'
            : 'other');
      app.meter.rateLimited(kind);
    });

    app.addHook('onSend', async (request, reply, payload) => {
      if (!request.routeOptions.config?.scope) return payload;
      if (reply.statusCode === 401) {
        await failedKeys.record(request);
      } else if (request.principal && !counted.has(request)) {
        // Refused by auth after the key resolved (403): the request still counts, and says what is left.
        setHeaders(reply, (await countKey(request)).state);
      }
      return payload;
    });
  },
  { name: 'rate-limit', dependencies: ['metrics'] },
);
