// The package's public surface for embedding and for receivers.
//
// Its declarations name only Fastify's and Node's types, never the storage layer's (Kysely, better-sqlite3, pg),
// whose type packages are development dependencies: a consumer compiling with `strict` and without
// `skipLibCheck` needs nothing beyond @types/node. The typed HTTP client is `lead-intake/client`.
import type { FastifyInstance } from 'fastify';
import { buildApp as buildFullApp } from './app.js';
import type { Config } from './platform/config.js';

export type { Config, DatabaseConfig } from './platform/config.js';
export { ConfigError, loadConfig } from './platform/config.js';
export { verifySignature, verifyStandardSignature } from './webhooks/signature.js';

/** How buildApp runs the service; everything is optional. */
export interface BuildOptions {
  /** Run migrations on start (default true). */
  migrate?: boolean;
  /** Pino logger options, or false for silence. */
  logger?: boolean | Record<string, unknown>;
  /** Collect process metrics (default true). */
  defaultMetrics?: boolean;
  /** Run this instance's webhook delivery worker (default true). */
  webhookWorker?: boolean;
  /** Run this instance's mail worker when email is on (default true). */
  mailWorker?: boolean;
}

/**
 * The whole service as a Fastify instance, not listening yet: `await app.listen({ host, port })`, or
 * `app.inject()` in tests; `await app.close()` stops the workers and closes the database.
 */
export function buildApp(config: Readonly<Config>, options: BuildOptions = {}): Promise<FastifyInstance> {
  return buildFullApp(config, options);
}
