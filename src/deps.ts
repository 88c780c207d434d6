// The dependencies buildApp creates once and hands to the API routes, the dashboard and background work.
import type { Config } from './config.js';
import type { Database, DB } from './db/database.js';
import type { ApiKeyResolver } from './domain/api-keys.js';
import type { ResponseCache } from './http/response-cache.js';

/** What route plugins need from the app, passed explicitly instead of through decorators. */
export interface RouteDeps {
  config: Readonly<Config>;
  database: Database;
  db: DB;
  keys: ApiKeyResolver;
  /** Reuses list and single-read responses while the data is unchanged. */
  responses: ResponseCache;
  /** Notifications after a change commits (webhooks, dashboard); optional so routes work without them. */
  hooks: {
    leadCreated?: (id: string) => void;
    leadChanged?: (id: string) => void;
    /** A webhook delivery was queued outside a lead change (e.g. resend). */
    deliveryQueued?: () => void;
  };
}
