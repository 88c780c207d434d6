// Work each instance does besides answering requests: sending webhooks and forgetting old idempotency keys.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { RouteDeps } from './deps.js';
import { pruneIdempotencyKeys } from './domain/idempotency.js';
import { DeliveryWorker } from './webhooks/worker.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** This instance's webhook delivery worker, or null when the app was built without one. */
    deliveryWorker: DeliveryWorker | null;
  }
}

const PRUNE_INTERVAL_MS = 10 * 60 * 1000;

/** Calls `extra` after whatever the hook already did, so several subsystems can listen to one hook. */
function chain<T extends unknown[]>(existing: ((...args: T) => void) | undefined, extra: () => void) {
  return (...args: T) => {
    existing?.(...args);
    extra();
  };
}

export default fp(
  async function background(app: FastifyInstance, { deps, worker }: { deps: RouteDeps; worker: boolean }) {
    const deliveryWorker = worker
      ? new DeliveryWorker({
          db: deps.db,
          dialect: deps.database.dialect,
          config: deps.config.webhooks,
          log: app.log,
        })
      : null;
    app.decorate('deliveryWorker', deliveryWorker);
    if (deliveryWorker) {
      // Right after a commit that queued deliveries, so latency is a round trip, not a poll interval.
      const wake = () => deliveryWorker.wake();
      deps.hooks.leadCreated = chain(deps.hooks.leadCreated, wake);
      deps.hooks.leadChanged = chain(deps.hooks.leadChanged, wake);
      deps.hooks.deliveryQueued = chain(deps.hooks.deliveryQueued, wake);
      app.addHook('onReady', async () => deliveryWorker.start());
      app.addHook('preClose', async () => deliveryWorker.stop());
    }

    const prune = () =>
      pruneIdempotencyKeys(deps.db).catch((error) =>
        app.log.warn({ err: error }, 'could not prune expired idempotency keys'),
      );
    const timer = setInterval(prune, PRUNE_INTERVAL_MS);
    timer.unref();
    app.addHook('onReady', async () => {
      await prune();
    });
    app.addHook('preClose', async () => clearInterval(timer));
  },
  { name: 'background' },
);
