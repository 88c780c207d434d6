import { loadConfig } from '../platform/config.js';
import { command } from './context.js';

export const SERVE_HELP = `Usage: lead-intake serve

Migrates the database, then serves HTTP on HOST:PORT (default 127.0.0.1:3000) until SIGTERM or SIGINT,
finishing in-flight requests before it exits. Configuration comes from the environment; see the README.`;

export const serveCommand = command({ name: 'serve', help: SERVE_HELP }, async () => {
  const config = loadConfig();
  // Loaded only here so that the other commands do not pay for Fastify and its plugins.
  const { serve } = await import('../server.js');
  await serve(config);
  return 0;
});
