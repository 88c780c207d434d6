// The dependencies buildApp creates once and hands to the API routes, the dashboard and background work.

import type { ApiKeyLookup } from '../../shared/scopes.js';
import type { BackupScheduler } from '../backup/schedule.js';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import type { ObjectStorage } from '../storage/storage.js';
import type { ResponseCache } from './response-cache.js';

/** What route plugins need from the app, passed explicitly instead of through decorators. */
export interface RouteDeps {
  config: Readonly<Config>;
  /**
   * Reads and writes; domain functions take it (or a write's tx) as their Store. It carries this app's counters
   * (withWriteMetrics) from the start: buildApp wraps it before any plugin registers, and nothing replaces it.
   */
  database: Database;
  keys: ApiKeyLookup;
  /** Reuses list and single-read responses while the data is unchanged. */
  responses: ResponseCache;
  /** Where attachments' bytes are kept (ATTACHMENT_STORAGE: disk or s3). */
  storage: ObjectStorage;
  /** Scheduled backups and their status (Settings, /metrics). */
  backups: BackupScheduler;
}
