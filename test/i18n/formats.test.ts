// Dates, times and numbers as each language writes them (translator(locale).dateTime/date/time/number, Intl for
// nl-NL and en-GB), in the brand's time zone across the daylight-saving changes of Europe/Amsterdam; and phones as
// the brand's country writes them (shared/phone.ts formatPhone; platform/web/format.ts phoneText).
import { describe, expect, it } from 'vitest';
import { phoneText } from '../../src/platform/web/format.js';
import { translator } from '../../src/shared/i18n/index.js';
import { formatPhone } from '../../src/shared/phone.js';

const ZONE = 'Europe/Amsterdam';
const nl = translator('nl');
const en = translator('en');

describe('dates and times around the daylight-saving changes in Europe/Amsterdam', () => {
  /** Dutch and English both show the local clock at `before` and at `at` as given. */
  const expectClock = (before: string, beforeShown: string, at: string, atShown: string) => {
    for (const format of [nl, en]) {
      expect(format.time(before, ZONE)).toBe(beforeShown);
      expect(format.time(at, ZONE)).toBe(atShown);
    }
  };

  // 2026-03-29 01:00 UTC: the clocks go from 02:00 (CET) to 03:00 (CEST); 02:xx never happens that night.
  it('spring: the local clock jumps from 01:59 to 03:00', () => {
    const before = '2026-03-29T00:59:00Z';
    const at = '2026-03-29T01:00:00Z';
    const after = '2026-03-29T01:30:00Z';
    expectClock(before, '01:59', at, '03:00');
    expect(nl.dateTime(after, ZONE)).toBe('zo 29 mrt 2026, 03:30');
    expect(en.dateTime(after, ZONE)).toBe('Sun, 29 Mar 2026, 03:30');
    expect(nl.dateTime(before, ZONE)).toBe('zo 29 mrt 2026, 01:59');
    expect(en.dateTime(before, ZONE)).toBe('Sun, 29 Mar 2026, 01:59');
    expect(nl.date(at, ZONE)).toBe('zo 29 mrt 2026');
    expect(en.date(at, ZONE)).toBe('Sun, 29 Mar 2026');
    // A minute of real time apart, an hour and a minute apart on the clock.
    expect(Date.parse(at) - Date.parse(before)).toBe(60_000);
  });

  // 2026-10-25 01:00 UTC: the clocks go from 03:00 (CEST) back to 02:00 (CET); 02:xx happens twice.
  it('autumn: the local clock goes back from 02:59 to 02:00, and 02:30 happens twice', () => {
    const before = '2026-10-25T00:59:00Z';
    const at = '2026-10-25T01:00:00Z';
    expectClock(before, '02:59', at, '02:00');
    for (const twice of ['2026-10-25T00:30:00Z', '2026-10-25T01:30:00Z']) {
      expect(nl.dateTime(twice, ZONE)).toBe('zo 25 okt 2026, 02:30');
      expect(en.dateTime(twice, ZONE)).toBe('Sun, 25 Oct 2026, 02:30');
    }
    expect(nl.date(at, ZONE)).toBe('zo 25 okt 2026');
    expect(en.date(at, ZONE)).toBe('Sun, 25 Oct 2026');
  });

  it('the same moment in another zone is written in that zone', () => {
    expect(nl.dateTime('2026-03-29T01:30:00Z', 'UTC')).toBe('zo 29 mrt 2026, 01:30');
    expect(en.dateTime('2026-10-25T01:30:00Z', 'UTC')).toBe('Sun, 25 Oct 2026, 01:30');
    // Dates, numbers and ISO strings are the same moment.
    const ms = Date.parse('2026-11-24T08:00:00Z');
    expect(nl.dateTime(ms, ZONE)).toBe(nl.dateTime(new Date(ms), ZONE));
    expect(nl.dateTime(ms, ZONE)).toBe('di 24 nov 2026, 09:00');
    expect(en.dateTime(ms, ZONE)).toBe('Tue, 24 Nov 2026, 09:00');
  });
});

describe('numbers', () => {
  it('use each language’s separators', () => {
    expect(nl.number(1234.5)).toBe('1.234,5');
    expect(en.number(1234.5)).toBe('1,234.5');
    expect(nl.number(1234567)).toBe('1.234.567');
    expect(en.number(1234567)).toBe('1,234,567');
    expect(nl.number(0.25)).toBe('0,25');
    expect(en.number(0.25)).toBe('0.25');
  });

  it('in messages too (ICU {n, number} and plurals)', () => {
    expect(nl.t('validation.tooLong', { field: 'Naam', max: 1000 })).toContain('1.000');
    expect(en.t('validation.tooLong', { field: 'Name', max: 1000 })).toContain('1,000');
    expect(nl.t('mail.passwordReset.validity', { minutes: 1 })).toContain('1 minuut');
    expect(nl.t('mail.passwordReset.validity', { minutes: 90 })).toContain('90 minuten');
    expect(en.t('mail.passwordReset.validity', { minutes: 1 })).toContain('1 minute.');
  });
});

describe('phones, as the brand’s country writes them', () => {
  it('a number of the brand’s country nationally: +31612345678 is "06 12345678" for a Dutch brand', () => {
    expect(formatPhone('+31612345678', 'NL')).toBe('06 12345678');
    expect(formatPhone('+31612345678', 'nl')).toBe('06 12345678');
    expect(phoneText('+31612345678', 'NL')).toBe('06 12345678');
    expect(formatPhone('+31201234567', 'NL')).toBe('020 123 4567');
    expect(formatPhone('+32470123456', 'BE')).toBe('0470 12 34 56');
  });

  it('a number of another country, or without a country, internationally with spaces', () => {
    expect(formatPhone('+31612345678', 'BE')).toBe('+31 6 12345678');
    expect(phoneText('+31612345678', 'BE')).toBe('+31 6 12345678');
    expect(formatPhone('+32470123456', 'NL')).toBe('+32 470 12 34 56');
    expect(formatPhone('+4915123456789', 'NL')).toBe('+49 1512 3456789');
    expect(formatPhone('+31612345678')).toBe('+31 6 12345678');
  });

  it('a value libphonenumber cannot read stays as it is', () => {
    expect(formatPhone('12345', 'NL')).toBe('12345');
  });
});
