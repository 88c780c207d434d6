// Dates, times and phone numbers as people read them.

import type { Translator } from '../../shared/i18n/index.js';
import { zonedFormat } from '../../shared/i18n/index.js';
import { formatPhone } from '../../shared/phone.js';

const DATE_TIME: Intl.DateTimeFormatOptions = {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
  timeZoneName: 'short',
};
const dateTimeFormat = (zone: string) => zonedFormat('en-GB', zone, DATE_TIME);
const SHORT_DATE = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short' });

/** "21 Nov 2026, 09:30 CET": in the brand's time zone, named the way people there do ("UTC" for UTC). */
export function formatDateTime(iso: string, zone = 'UTC'): string {
  return dateTimeFormat(zone).format(new Date(iso));
}

const TIME_ELEMENT = /<time datetime="([^"]+)" data-local>[^<]*<\/time>/g;

/**
 * Every time() of a page, written in the signed-in user's brand's time zone. Views render times without knowing
 * the zone; the page shell, which knows the user, rewrites them here, so no view can forget to.
 */
export function timesInZone(markup: string, zone: string, tr?: Translator): string {
  return markup.replace(TIME_ELEMENT, (_match, iso: string) => {
    const date = new Date(iso);
    if (Number.isNaN(date.getTime())) return _match;
    const text = tr ? tr.dateTime(date, zone) : formatDateTime(iso, zone);
    return `<time datetime="${iso}" title="${zone}">${escapeText(text)}</time>`;
  });
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** "21 Nov" for a YYYY-MM-DD day. */
export function formatShortDate(day: string): string {
  return SHORT_DATE.format(new Date(`${day}T00:00:00Z`));
}

/** A stored E.164 phone as people write it: national in the brand's country ("06 12345678"), else "+32 470 12 34 56". */
export function phoneText(e164: string, brandCountry: string): string {
  return formatPhone(e164, brandCountry);
}
