// One TestContext (test/helpers.ts) for the tests of one describe block, without the let/beforeAll/afterAll every
// suite wrote for itself: created before them, closed (schema dropped, files removed) after them.
import { afterAll, beforeAll } from 'vitest';
import type { Config } from '../src/platform/config.js';
import { createTestContext, type TestContext, type TestDialect } from './helpers.js';

/**
 * Call inside a describe block; the context it returns is usable from beforeAll on (a beforeAll the block
 * registers after this call sees it created).
 */
export function useTestContext(dialect: TestDialect, overrides: Partial<Config> = {}): TestContext {
  let ctx: TestContext | undefined;
  beforeAll(async () => {
    ctx = await createTestContext(dialect, overrides);
  });
  afterAll(async () => {
    await ctx?.close();
  });
  // The context is created in beforeAll: the handle forwards to it.
  return new Proxy({} as TestContext, {
    get(_, key) {
      if (!ctx) throw new Error('useTestContext: used before beforeAll ran');
      const value = Reflect.get(ctx, key);
      return typeof value === 'function' ? value.bind(ctx) : value;
    },
  });
}
