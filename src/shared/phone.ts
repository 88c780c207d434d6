// Phone numbers as people type them: in the national format of a country (06 1234 5678 in NL) or international.
// Website forms and leads typed in the dashboard accept both; the API keeps the spec's international format.
import { getExampleNumber, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import mobileExamples from 'libphonenumber-js/mobile/examples';
import type { FieldErrorText } from './errors.js';
import { normalizePhone } from './values.js';

/**
 * A phone written without "+" is read in the national format of the given country (06 1234 5678 in NL); the
 * result is E.164, or the value unchanged for parseLeadInput to judge when it is no number of that country.
 */
export function nationalToE164(value: string, country: string): string {
  const trimmed = value.trim();
  if (trimmed === '' || trimmed.startsWith('+')) return value;
  const parsed = parsePhoneNumberFromString(trimmed, country as never);
  return parsed?.isValid() ? parsed.number : value;
}

/** The message for a phone that is neither a number of the country nor international, with examples of both. */
export function phoneHint(country: string): string {
  const example = getExampleNumber(country as never, mobileExamples);
  return example
    ? `must be a phone number, such as ${example.formatNational()} or ${example.formatInternational()}`
    : 'must be a phone number in international format, starting with "+"';
}

/** What a phone error says to people: the examples of the country (or: start with "+"). */
export function phoneErrorText(country: string): FieldErrorText {
  const example = phoneExample(country);
  return example
    ? {
        key: 'validation.phone',
        values: { national: example.national, international: example.international },
      }
    : { key: 'validation.phoneInternational' };
}

/**
 * A phone as a person typed it, national (in `country`) or international, in E.164 exactly as a lead typed in
 * would store it; or the message a lead would get.
 */
export function typedPhone(value: string, country: string): { phone: string } | { error: string } {
  const trimmed = value.trim();
  const result = normalizePhone(nationalToE164(trimmed, country).trim());
  if ('error' in result && !trimmed.startsWith('+')) return { error: phoneHint(country) };
  return result;
}

/** A mobile number of the country written both ways, for hints ("06 12345678", "+31 6 12345678"); null if unknown. */
export function phoneExample(country: string): { national: string; international: string } | null {
  const example = getExampleNumber(country as never, mobileExamples);
  return example
    ? { national: example.formatNational(), international: example.formatInternational() }
    : null;
}

/**
 * A stored E.164 phone as people write it: national when the number is of `country` ("06 12345678" for a Dutch
 * number in a Dutch brand), else international with spaces ("+32 470 12 34 56"). Without `country`: international.
 * A value libphonenumber cannot read is returned unchanged.
 */
export function formatPhone(e164: string, country?: string | null): string {
  const parsed = parsePhoneNumberFromString(e164);
  if (!parsed) return e164;
  if (country && parsed.country === country.toUpperCase()) return parsed.formatNational();
  return parsed.formatInternational();
}
