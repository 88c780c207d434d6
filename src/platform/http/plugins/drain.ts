// Draining before a shutdown (src/shutdown.ts starts it on SIGTERM): /readyz answers 503 so load balancers stop
// sending here, while every other request is still served, each answer closing its connection so keep-alive
// clients reconnect to an instance that stays up.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export class DrainState {
  private startedAt: number | undefined;

  /** True from the first SIGTERM on: /readyz answers 503 and every response carries Connection: close. */
  get draining(): boolean {
    return this.startedAt !== undefined;
  }

  start(now = Date.now()): void {
    this.startedAt ??= now;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    drain: DrainState;
  }
}

export default fp(
  async function drainPlugin(app: FastifyInstance) {
    const state = new DrainState();
    app.decorate('drain', state);
    app.addHook('onSend', async (_request, reply, payload) => {
      // Node ends the connection after a response that says Connection: close.
      if (state.draining) reply.header('Connection', 'close');
      return payload;
    });
  },
  { name: 'drain' },
);
