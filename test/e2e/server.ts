// A real server for an end-to-end test: a temporary data folder (SQLite), a free port on 127.0.0.1, silent logs.
// `close()` (in afterAll) stops it and removes the folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { type App, type BuildOptions, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';
import { PASSWORD } from '../dashboard/helpers.js';
import { freePort } from '../helpers.js';

export interface E2eServer {
  app: App;
  /** http://host:port, as the browser reaches it. */
  base: string;
  close(): Promise<void>;
}

export interface E2eServerOptions {
  /** More settings, or other values for the usual ones (LOG_LEVEL, say). */
  env?: Record<string, string>;
  /** The host name in `base` (default 127.0.0.1; another one needs Chromium's resolver rules). */
  host?: string;
  /** Whether PUBLIC_URL is `base` (default true); false leaves the setting out. */
  publicUrl?: boolean;
  /** Given to buildApp over { logger: false, defaultMetrics: false }. */
  build?: BuildOptions;
  /** Called with the app after it is built, before it listens. */
  beforeListen?(app: App): void;
}

/** Starts the app; `name` names the temporary folder (lead-intake-<name>-…). */
export async function startServer(name: string, options: E2eServerOptions = {}): Promise<E2eServer> {
  const dir = mkdtempSync(path.join(tmpdir(), `lead-intake-${name}-`));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  let app: App | undefined;
  try {
    const port = await freePort();
    const base = `http://${options.host ?? '127.0.0.1'}:${port}`;
    const config = loadConfig({
      DATA_DIR: dir,
      HOST: '127.0.0.1',
      PORT: String(port),
      ...(options.publicUrl === false ? {} : { PUBLIC_URL: base }),
      LOG_LEVEL: 'silent',
      // Load shedding off: on a loaded CI machine the event loop's measured delay passed 500 ms and pages were
      // answered 503 mid-test (the setup page, a phone's form post). Shedding is tested in test/faults.
      MAX_EVENT_LOOP_DELAY_MS: '0',
      ...options.env,
    });
    app = await buildApp(config, { logger: false, defaultMetrics: false, ...options.build });
    options.beforeListen?.(app);
    await app.listen({ host: '127.0.0.1', port });
    const started = app;
    return {
      app: started,
      base,
      async close() {
        try {
          await started.close();
        } finally {
          removeDir();
        }
      },
    };
  } catch (error) {
    await app?.close();
    removeDir();
    throw error;
  }
}

/** Signs `email` in on `page` (with PASSWORD unless another is given) and waits for the leads list. */
export async function signIn(page: Page, base: string, email: string, password = PASSWORD): Promise<void> {
  await page.goto(`${base}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/dashboard/leads`);
}

/** Collects `page`'s console messages about the Content Security Policy into `violations`. */
export function collectPolicyViolations(page: Page, violations: string[]): void {
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
}
