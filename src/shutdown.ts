// Shutting down without failing a request (docs/operations.md, "Draining and restarts"). On the first SIGTERM or
// SIGINT: /readyz answers 503 at once while everything else is served on for SHUTDOWN_DRAIN_MS, so a load balancer
// that checks /readyz stops sending here; then no new connections, in-flight requests finish (answered with
// Connection: close), the workers stop claiming and hand back what they hold, the database closes, exit 0.
// A second signal, or the hard deadline, ends it anyway: jobs are aborted and handed back, exit 1.
import net from 'node:net';
import type { App } from './app.js';

/** How long finishing may take after the drain before the process exits anyway. */
export const FINISH_LIMIT_MS = 10_000;
/** How long a forced stop waits for aborted jobs to hand their rows back. */
const HAND_BACK_LIMIT_MS = 2000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** After the drain, a connection with no request for this long is closed (the client left it open). */
const IDLE_CLOSE_MS = 1000;

/**
 * The server's connections, and whether each is busy. Node's own closing of idle connections also closes one whose
 * client has just sent a request that is not read yet (a connection accepted a moment ago, a keep-alive request on
 * its way), and the client gets a reset; this closes only connections that have been quiet for a while.
 */
function trackConnections(app: App) {
  const connections = new Map<net.Socket, { active: number; idleSince: number }>();
  app.server.on('connection', (socket: net.Socket) => {
    connections.set(socket, { active: 0, idleSince: Date.now() });
    socket.once('close', () => connections.delete(socket));
  });
  app.server.on('request', (request, response) => {
    const state = connections.get(request.socket);
    if (!state) return;
    state.active++;
    response.once('close', () => {
      state.active--;
      state.idleSince = Date.now();
    });
  });
  return {
    get size() {
      return connections.size;
    },
    closeQuiet(now = Date.now()) {
      for (const [socket, state] of connections) {
        if (state.active === 0 && now - state.idleSince >= IDLE_CLOSE_MS) socket.destroy();
      }
    },
  };
}

export interface ShutdownOptions {
  drainMs: number;
  /** Ends the process (process.exit outside tests). */
  exit?: (code: number) => void;
}

/** Installs the SIGTERM/SIGINT handling on a listening app. */
export function handleShutdownSignals(app: App, options: ShutdownOptions): void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const workers = () => [app.deliveryWorker, app.mailWorker].filter((w) => w !== null);
  let phase: 'serving' | 'draining' | 'finishing' | 'forced' = 'serving';
  const connections = trackConnections(app);

  // Whatever a request or a job is waiting on (a mail server that stopped answering, a receiver that holds the
  // connection): cut the connections, abort the jobs so their rows go back to the queue, and leave.
  const force = async (why: string) => {
    if (phase === 'forced') return;
    phase = 'forced';
    app.log.error({ reason: why }, 'shutting down now: in-flight requests are cut off and jobs handed back');
    app.server.closeAllConnections();
    await Promise.race([Promise.all(workers().map((w) => w.abort())), sleep(HAND_BACK_LIMIT_MS)]);
    exit(1);
  };

  const drainAndClose = async (signal: string) => {
    phase = 'draining';
    app.drain.start();
    const deadline = setTimeout(
      () => void force(`the shutdown took longer than SHUTDOWN_DRAIN_MS + ${FINISH_LIMIT_MS} ms`),
      options.drainMs + FINISH_LIMIT_MS,
    );
    app.log.info(
      { signal, drainMs: options.drainMs },
      'shutting down: /readyz answers 503; serving on for SHUTDOWN_DRAIN_MS',
    );
    await sleep(options.drainMs);
    if (phase !== 'draining') return;
    phase = 'finishing';
    app.log.info({}, 'shutting down: no new connections; finishing in-flight requests and jobs');
    // Stop listening without Node's closing of idle connections (see trackConnections); every answer now says
    // Connection: close, and a connection quiet for IDLE_CLOSE_MS is closed.
    net.Server.prototype.close.call(app.server);
    const connectionsClosed = (async () => {
      while (connections.size > 0) {
        connections.closeQuiet();
        await sleep(100);
      }
    })();
    try {
      await Promise.all([connectionsClosed, ...workers().map((w) => w.stop())]);
      if (phase !== 'finishing') return;
      // The rest: periodic jobs and backups stop, the database closes.
      await app.close();
      clearTimeout(deadline);
      if (phase === 'finishing') exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'error during shutdown');
      if (phase === 'finishing') exit(1);
    }
  };

  const onSignal = (signal: NodeJS.Signals) => {
    if (phase === 'serving') void drainAndClose(signal);
    else void force(`a second ${signal}`);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
