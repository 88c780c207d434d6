import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Process-level fault tests take minutes: they run in `npm run test:faults` (vitest.faults.config.ts).
    exclude: [...configDefaults.exclude, 'test/faults/process/**'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
