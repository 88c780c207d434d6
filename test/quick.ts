// The quick loop (`npm run test:quick`: vitest.quick.config.ts sets TEST_QUICK=1) and what it changes. Kept apart
// from helpers.ts so a test of pure functions can ask without loading the app.

/** The quick loop: SQLite only, no Redis, fewer property runs (helpers.ts's dialects and testRedisUrl). */
export const QUICK = process.env.TEST_QUICK === '1';

/**
 * A run that must not skip what a developer's machine may lack (PostgreSQL, Redis, Chromium, promtool): CI=true,
 * outside the quick loop.
 */
export const CI = !QUICK && (process.env.CI === 'true' || process.env.CI === '1');

/** How many cases a property test runs: `full` in `npm test`, a tenth of it (at least 10) in the quick loop. */
export function quickRuns(full: number): number {
  return QUICK ? Math.max(10, Math.ceil(full / 10)) : full;
}
