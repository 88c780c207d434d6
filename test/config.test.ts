// Settings read from the environment: defaults, bounds and clear errors.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('RESPONSE_CACHE_MB', () => {
  it('defaults to 32 MiB and takes whole megabytes, 0 turning response reuse off', () => {
    expect(loadConfig({}).responseCacheBytes).toBe(32 * 1024 * 1024);
    expect(loadConfig({ RESPONSE_CACHE_MB: '8' }).responseCacheBytes).toBe(8 * 1024 * 1024);
    expect(loadConfig({ RESPONSE_CACHE_MB: '0' }).responseCacheBytes).toBe(0);
  });

  it.each(['-1', '1.5', 'lots', '5000'])('refuses %s with an error naming the setting', (value) => {
    expect(() => loadConfig({ RESPONSE_CACHE_MB: value })).toThrow(ConfigError);
    expect(() => loadConfig({ RESPONSE_CACHE_MB: value })).toThrow(/RESPONSE_CACHE_MB/);
  });
});
