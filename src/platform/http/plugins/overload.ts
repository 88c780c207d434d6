// Load shedding: when the process cannot keep up, refuse new work with 503 + Retry-After so that latency stays
// bounded, instead of queueing every request until clients time out. Also answers during shutdown.
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { sendProblem } from '../problem.js';

export interface OverloadOptions {
  /** Requests being served at once beyond which new ones are refused; 0 turns the limit off. */
  maxInFlight: number;
  /** Mean event-loop lag (ms) over the last sample beyond which new requests are refused; 0 turns it off. */
  maxEventLoopDelayMs: number;
  /** How often the event-loop lag is sampled (ms). */
  sampleIntervalMs?: number;
}

// Probes must answer while the service sheds load, or an orchestrator would kill a process that is only busy.
// Metrics are how an operator sees the overload, so they stay reachable too.
const EXEMPT = new Set(['/healthz', '/readyz', '/metrics']);
const RETRY_AFTER_SECONDS = '2';

export interface OverloadState {
  inFlight: number;
  eventLoopDelayMs: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    overload: OverloadState;
  }
}

export default fp(
  async function overloadPlugin(app: FastifyInstance, options: OverloadOptions) {
    const state: OverloadState = { inFlight: 0, eventLoopDelayMs: 0 };
    let closing = false;
    let histogram: IntervalHistogram | undefined;
    let sampler: NodeJS.Timeout | undefined;
    app.decorate('overload', state);

    // Only a listening server measures its event loop: an app driven by inject() (tests, embedding) shares
    // its loop with the caller, whose own busy work must not make the app refuse requests.
    app.addHook('onListen', async () => {
      if (options.maxEventLoopDelayMs <= 0 || histogram) return;
      histogram = monitorEventLoopDelay({ resolution: 10 });
      histogram.enable();
      const monitor = histogram;
      sampler = setInterval(() => {
        state.eventLoopDelayMs = Number.isFinite(monitor.mean) ? monitor.mean / 1e6 : 0;
        monitor.reset();
      }, options.sampleIntervalMs ?? 250);
      sampler.unref();
    });
    app.addHook('preClose', async () => {
      closing = true;
    });
    app.addHook('onClose', async () => {
      clearInterval(sampler);
      histogram?.disable();
    });

    app.addHook('onRequest', async (request, reply) => {
      if (closing) {
        app.meter.shed('shutting_down');
        // The connection goes too, so a keep-alive client reconnects to an instance that is staying up.
        reply.header('Connection', 'close').header('Retry-After', RETRY_AFTER_SECONDS);
        return sendProblem(
          request,
          reply,
          'service_unavailable',
          'The server is shutting down; nothing was stored. Retry, and another instance will answer.',
        );
      }
      if (EXEMPT.has(request.routeOptions.url ?? '')) return;
      const tooMany = options.maxInFlight > 0 && state.inFlight >= options.maxInFlight;
      const tooSlow = options.maxEventLoopDelayMs > 0 && state.eventLoopDelayMs > options.maxEventLoopDelayMs;
      if (tooMany || tooSlow) {
        app.meter.shed(tooMany ? 'in_flight' : 'event_loop_lag');
        reply.header('Retry-After', RETRY_AFTER_SECONDS);
        return sendProblem(
          request,
          reply,
          'service_unavailable',
          'The server is overloaded; nothing was stored. Retry after the number of seconds in Retry-After.',
        );
      }
      state.inFlight++;
      // 'close' fires once whether the response was sent or the client went away, so the count never leaks.
      reply.raw.once('close', () => {
        state.inFlight--;
      });
    });
  },
  { name: 'overload', dependencies: ['metrics'] },
);
