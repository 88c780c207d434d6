// `npm run test:faults`: the fault tests that drive real server processes (crash, database gone, overload,
// shutdown). They load the machine, so files run one after another.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/faults/process/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
