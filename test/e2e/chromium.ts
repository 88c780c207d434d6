// Debian's Chromium (apt-get install -y chromium) for the end-to-end tests, through playwright-core (which
// downloads no browser). Without it the tests skip on a developer's machine and fail under CI=true.
import { existsSync } from 'node:fs';
import { type Browser, chromium, type LaunchOptions, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];
const ci = process.env.CI === 'true' || process.env.CI === '1';
const haveChromium = existsSync(CHROMIUM);

/** Whether a file's Chromium tests run: always under CI (where a missing browser is a failure), else if installed. */
export function chromiumRuns(what: string): boolean {
  if (!haveChromium && !ci) {
    console.warn(
      `Skipping ${what}: ${CHROMIUM} is missing. Install it with "apt-get install -y chromium". Under CI=true this is a failure.`,
    );
  }
  return haveChromium || ci;
}

/** Fails at once (before anything is set up) when the browser is missing. */
export function requireChromium(): void {
  if (!haveChromium) {
    throw new Error(`CI=true but ${CHROMIUM} is missing: install it with "apt-get install -y chromium".`);
  }
}

/** A headless Chromium; `extraArgs` are added to the usual flags. */
export function launchChromium(extraArgs: string[] = [], options: LaunchOptions = {}): Promise<Browser> {
  requireChromium();
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [...ARGS, ...extraArgs],
    headless: true,
    ...options,
  });
}

/**
 * Waits until an element matching `selector` shows `text`. The wait is generous (a loaded CI machine can be slow to
 * paint); on a timeout the error names the page's URL, its heading and what the matching elements did show, so a
 * failure says what the page was instead of only that the wait ran out.
 */
export async function waitForText(
  page: Page,
  selector: string,
  text: string,
  timeout = 20_000,
): Promise<void> {
  try {
    await page.locator(selector, { hasText: text }).first().waitFor({ timeout });
  } catch (error) {
    const shown = await page
      .locator(selector)
      .allTextContents()
      .catch(() => [] as string[]);
    const heading = await page
      .locator('h1')
      .first()
      .textContent({ timeout: 1000 })
      .catch(() => null);
    throw new Error(
      `waited ${timeout} ms for ${selector} showing ${JSON.stringify(text)} on ${page.url()} (h1: ${JSON.stringify(heading)}); ` +
        `the ${selector} elements showed ${JSON.stringify(shown)}: ${(error as Error).message}`,
    );
  }
}
