// Assertions on a page's or a text's content, many at once: one expect per part, in the order given, so a list of
// what a page must say reads as a list (and a failure still names the part that is missing).
import { expect } from 'vitest';

/** Expects `text` to contain each of `parts`. */
export function expectToContain(text: string, parts: readonly string[]): void {
  for (const part of parts) expect(text).toContain(part);
}

/** Expects `body` to show each field's error paragraph, `<p class="error" id="field-{field}-error">{message}</p>`. */
export function expectFieldErrors(body: string, errors: Record<string, string>): void {
  for (const [field, message] of Object.entries(errors)) {
    expect(body).toContain(`<p class="error" id="field-${field}-error">${message}</p>`);
  }
}
