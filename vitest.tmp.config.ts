import { defineConfig } from 'vitest/config';
export default defineConfig({ test: { include: ['test/i18n/**/*.test.ts'] } });
