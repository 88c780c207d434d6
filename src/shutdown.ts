// Shutting down without failing a request (docs/operations.md, "Draining and restarts"). On the first SIGTERM or
// SIGINT: /readyz answers 503 at once while everything else is served on for SHUTDOWN_DRAIN_MS, so a load balancer
// that checks /readyz stops sending here; then no new connections, in-flight requests finish (answered with
// Connection: close), the workers stop claiming and hand back what they hold, the database closes, exit 0.
// A second signal, or the hard deadline, ends it anyway: jobs are aborted and handed back, exit 1.
import type { App } from './app.js';

/** How long finishing may take after the drain before the process exits anyway. */
export const FINISH_LIMIT_MS = 10_000;
/** How long a forced stop waits for aborted jobs to hand their rows back. */
const HAND_BACK_LIMIT_MS = 2000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
    // Node closes idle keep-alive connections when the server closes; a connection whose response was already
    // under way when the drain began goes once that response is done.
    const connectionsClosed = new Promise<void>((resolve) => app.server.close(() => resolve()));
    const idle = setInterval(() => app.server.closeIdleConnections(), 100);
    try {
      await Promise.all([connectionsClosed, ...workers().map((w) => w.stop())]);
      clearInterval(idle);
      if (phase !== 'finishing') return;
      // The rest: periodic jobs and backups stop, the database closes.
      await app.close();
      clearTimeout(deadline);
      if (phase === 'finishing') exit(0);
    } catch (error) {
      clearInterval(idle);
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
