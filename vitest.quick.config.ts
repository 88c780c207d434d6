// `npm run test:quick`: the loop to run while editing. SQLite only (PostgreSQL and Redis are left out even when
// TEST_DATABASE_URL or TEST_REDIS_URL are set), no build, no browser, no packing, no linters, fewer property runs,
// no 100,000-lead export (test/http/exports.test.ts skips it under QUICK). It is not the check a change must pass:
// `npm test` is (CI runs it with PostgreSQL and Redis).
import { configDefaults, defineConfig } from 'vitest/config';

/** What the quick loop leaves to `npm test`, and why. */
export const SLOW_TESTS = [
  'test/e2e/**', // Chromium
  'test/client/**', // `npm pack` and an install of the tarball; the built client in dist/
  'test/cli/**', // the built CLI (dist/) in child processes
  'test/integration/**', // real server processes (dist/), PostgreSQL and Redis
  'test/http/openapi-lint.test.ts', // the Spectral and Redocly CLIs
  'test/rate-limit/redis.test.ts', // Redis only
  'test/faults/process/**', // `npm run test:faults`
];

if (process.env.CI === 'true' || process.env.CI === '1') {
  console.warn('test:quick runs SQLite only whatever CI says; the run CI needs is `npm test`.');
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...SLOW_TESTS],
    // No globalSetup: it rebuilds dist/ (nothing here uses it) and prepares PostgreSQL (not used either).
    // TEST_QUICK tells test/helpers.ts: SQLite only, no Redis, CI=true asks for neither; and property tests to
    // run fewer cases (test/quick.ts).
    env: { TEST_QUICK: '1' },
    pool: 'forks',
    // Test files share a worker's modules instead of each loading the app afresh, which takes about a third of the
    // CPU time (test/dashboard: 31 s instead of 88 s). `npm test` keeps each file isolated, so a test that leaks
    // state into the next still fails there.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
