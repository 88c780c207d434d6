// Messages people read, in their language: ICU MessageFormat (intl-messageformat, FormatJS's parser and
// formatter) over one catalog per language. Keys are named by meaning ("leads.list.title"); a sentence is always
// one message with its placeholders, plurals and selects, never put together from pieces in code.
import { IntlMessageFormat, type PrimitiveType } from 'intl-messageformat';
import en from './catalogs/en.json' with { type: 'json' };
import nl from './catalogs/nl.json' with { type: 'json' };
import { zonedFormat } from './intl-cache.js';
import { INTL_LOCALE, type Locale } from './locales.js';

/** Every message, by key; the English catalog is the list of keys, the test holds Dutch to it. */
export type MessageKey = keyof typeof en;

export const CATALOGS: Record<Locale, Record<MessageKey, string>> = { en, nl };

/** A placeholder's value; a rich-text tag's value is a function of its contents (see platform/web/messages). */
export type MessageValue = PrimitiveType | object | ((chunks: unknown[]) => unknown);
export type MessageValues = Record<string, MessageValue>;

export interface Translator {
  readonly locale: Locale;
  /** The message as text (no markup tags in it). */
  t(key: MessageKey, values?: Record<string, PrimitiveType>): string;
  /** The message as parts: text, and whatever the values and tag functions gave (for markup, see richText). */
  parts(key: MessageKey, values?: MessageValues): unknown[];
  /** "di 24 nov 2026, 09:00" / "Tue, 24 Nov 2026, 09:00" in the zone. */
  dateTime(at: string | number | Date, zone: string): string;
  /** "di 24 nov 2026" for a day. */
  date(at: string | number | Date, zone: string): string;
  /** "09:00". */
  time(at: string | number | Date, zone: string): string;
  /** "1.234,5" / "1,234.5". */
  number(value: number): string;
}

const compiled = new Map<string, IntlMessageFormat>();

function message(locale: Locale, key: MessageKey): IntlMessageFormat {
  const id = `${locale}\u0000${key}`;
  let format = compiled.get(id);
  if (!format) {
    const text = CATALOGS[locale][key];
    if (text === undefined) throw new Error(`No message "${key}" in the ${locale} catalog`);
    format = new IntlMessageFormat(text, INTL_LOCALE[locale]);
    compiled.set(id, format);
  }
  return format;
}

type DateStyle = 'dateTime' | 'date' | 'time';
const DATE_OPTIONS: Record<DateStyle, Intl.DateTimeFormatOptions> = {
  dateTime: {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  },
  date: { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' },
  time: { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' },
};
function formatDate(locale: Locale, style: DateStyle, at: string | number | Date, zone: string): string {
  return zonedFormat(INTL_LOCALE[locale], zone, DATE_OPTIONS[style]).format(
    at instanceof Date ? at : new Date(at),
  );
}

function create(locale: Locale): Translator {
  const numbers = new Intl.NumberFormat(INTL_LOCALE[locale]);
  return {
    locale,
    t: (key, values) => String(message(locale, key).format(values)),
    parts: (key, values) => {
      const out = message(locale, key).format<unknown>(values as Record<string, PrimitiveType>);
      return Array.isArray(out) ? out : [out];
    },
    dateTime: (at, zone) => formatDate(locale, 'dateTime', at, zone),
    date: (at, zone) => formatDate(locale, 'date', at, zone),
    time: (at, zone) => formatDate(locale, 'time', at, zone),
    number: (value) => numbers.format(value),
  };
}

const translators: Record<Locale, Translator> = { en: create('en'), nl: create('nl') };

export function translator(locale: Locale): Translator {
  return translators[locale];
}
