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

describe('PUBLIC_URL', () => {
  it('is explicit when set, without its trailing slash', () => {
    const config = loadConfig({ PUBLIC_URL: 'https://leads.example.com/' });
    expect(config.publicUrl).toBe('https://leads.example.com');
    expect(config.publicUrlExplicit).toBe(true);
  });

  it.each([
    [{}, 'http://127.0.0.1:3000'],
    [{ PUBLIC_URL: '' }, 'http://127.0.0.1:3000'],
    [{ HOST: '0.0.0.0', PORT: '0' }, 'http://127.0.0.1:0'],
    [{ HOST: '::1', PORT: '8080' }, 'http://[::1]:8080'],
  ])('is guessed from HOST and PORT, and says so, when unset or empty (%o)', (env, guessed) => {
    const config = loadConfig(env);
    expect(config.publicUrl).toBe(guessed);
    expect(config.publicUrlExplicit).toBe(false);
  });
});
