// Value rules every capability shares: an email address, a phone number in E.164, a country code, a length
// in characters as a person counts them.
import { parseCountry } from './countries.js';

// Pragmatic address check: one @, no spaces or control characters, a dotted domain of valid labels.
const EMAIL =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export function isValidEmail(value: string): boolean {
  if (!EMAIL.test(value)) return false;
  const local = value.slice(0, value.lastIndexOf('@'));
  return local.length <= 64 && !local.startsWith('.') && !local.endsWith('.') && !local.includes('..');
}

/** Returns the E.164 form, or an error message. */
export function normalizePhone(value: string): { phone: string } | { error: string } {
  if (!value.startsWith('+')) return { error: 'must be in international format, starting with "+"' };
  const rest = value.slice(1);
  if (!/^[0-9 ().-]+$/.test(rest)) {
    return { error: 'may hold only digits, spaces, dashes, dots and parentheses after the "+"' };
  }
  const digits = rest.replace(/[^0-9]/g, '');
  if (digits.length < 8 || digits.length > 15) return { error: 'must hold 8 to 15 digits' };
  if (digits.startsWith('0')) return { error: 'country code cannot start with 0' };
  return { phone: `+${digits}` };
}

/**
 * The ISO 3166-1 alpha-2 code of a country written as a code (any case; UK is GB) or as its Dutch or English name
 * in any letter case ("Nederland" is NL); undefined for anything else, never a guess (see countries.ts).
 */
export function normalizeCountry(value: string): string | undefined {
  return parseCountry(value);
}

/** Code points, so an emoji counts as one character as a person would count it. */
export function characterLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}
