// Zone arithmetic with Intl only: wall-clock times in a zone to instants and back, across DST changes.
import { describe, expect, it } from 'vitest';
import {
  addDays,
  canonicalTimeZone,
  dayIn,
  defaultTimeZone,
  isDay,
  isoWeek,
  mondayOf,
  mondayOfIsoWeek,
  offsetAt,
  startOfDay,
  timeIn,
  zonedTimeToUtc,
} from '../../src/shared/time-zones.js';

const at = (zone: string, y: number, mo: number, d: number, h: number, mi = 0) =>
  new Date(zonedTimeToUtc(zone, { year: y, month: mo, day: d, hour: h, minute: mi })).toISOString();

describe('time zones', () => {
  it('09:00 in Amsterdam is 08:00 UTC in winter and 07:00 UTC in summer', () => {
    expect(at('Europe/Amsterdam', 2026, 11, 24, 9)).toBe('2026-11-24T08:00:00.000Z');
    expect(at('Europe/Amsterdam', 2026, 7, 1, 9)).toBe('2026-07-01T07:00:00.000Z');
    expect(at('UTC', 2026, 7, 1, 9)).toBe('2026-07-01T09:00:00.000Z');
    expect(at('America/New_York', 2026, 11, 24, 9)).toBe('2026-11-24T14:00:00.000Z');
    expect(at('Asia/Kathmandu', 2026, 11, 24, 9)).toBe('2026-11-24T03:15:00.000Z');
  });

  it('the day clocks go forward (2026-03-29 in Amsterdam): before and after the change, and inside the gap', () => {
    expect(at('Europe/Amsterdam', 2026, 3, 29, 1, 30)).toBe('2026-03-29T00:30:00.000Z');
    expect(at('Europe/Amsterdam', 2026, 3, 29, 9)).toBe('2026-03-29T07:00:00.000Z');
    // 02:30 never happens that night: it is taken as 03:30 CEST.
    expect(at('Europe/Amsterdam', 2026, 3, 29, 2, 30)).toBe('2026-03-29T01:30:00.000Z');
    expect(timeIn('Europe/Amsterdam', Date.parse('2026-03-29T01:30:00Z'))).toBe('03:30');
  });

  it('the day clocks go back (2026-10-25 in Amsterdam): 02:30 happens twice and is its first occurrence', () => {
    expect(at('Europe/Amsterdam', 2026, 10, 25, 2, 30)).toBe('2026-10-25T00:30:00.000Z');
    expect(at('Europe/Amsterdam', 2026, 10, 25, 9)).toBe('2026-10-25T08:00:00.000Z');
    expect(at('Europe/Amsterdam', 2026, 10, 24, 9)).toBe('2026-10-24T07:00:00.000Z');
    // That day is 25 hours long.
    expect(startOfDay('Europe/Amsterdam', '2026-10-26') - startOfDay('Europe/Amsterdam', '2026-10-25')).toBe(
      25 * 3600_000,
    );
  });

  it('days and times of an instant in a zone', () => {
    const late = Date.parse('2026-11-23T23:30:00Z');
    expect(dayIn('UTC', late)).toBe('2026-11-23');
    expect(dayIn('Europe/Amsterdam', late)).toBe('2026-11-24');
    expect(timeIn('Europe/Amsterdam', late)).toBe('00:30');
    expect(offsetAt('Europe/Amsterdam', late)).toBe(3600_000);
    expect(startOfDay('Europe/Amsterdam', '2026-11-24')).toBe(Date.parse('2026-11-23T23:00:00Z'));
  });

  it('names: canonical spelling, unknown names and offsets refused, defaults by country', () => {
    expect(canonicalTimeZone('Europe/Amsterdam')).toBe('Europe/Amsterdam');
    expect(canonicalTimeZone('europe/amsterdam')).toBe('Europe/Amsterdam');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('Mars/Olympus_Mons')).toBeNull();
    expect(canonicalTimeZone('+01:00')).toBeNull();
    expect(canonicalTimeZone('')).toBeNull();
    expect(canonicalTimeZone(42)).toBeNull();
    expect(defaultTimeZone('NL')).toBe('Europe/Amsterdam');
    expect(defaultTimeZone('BE')).toBe('UTC');
  });

  it('calendar days and ISO weeks', () => {
    expect(isDay('2026-02-28')).toBe(true);
    expect(isDay('2026-02-30')).toBe(false);
    expect(addDays('2026-12-28', 7)).toBe('2027-01-04');
    expect(mondayOf('2026-11-29')).toBe('2026-11-23');
    expect(mondayOf('2026-11-23')).toBe('2026-11-23');
    expect(isoWeek('2026-11-23')).toBe('2026-W48');
    expect(isoWeek('2027-01-01')).toBe('2026-W53');
    expect(isoWeek('2024-12-30')).toBe('2025-W01');
    expect(mondayOfIsoWeek('2026-W48')).toBe('2026-11-23');
    expect(mondayOfIsoWeek('2025-W01')).toBe('2024-12-30');
    expect(mondayOfIsoWeek('2026-W53')).toBe('2026-12-28');
    expect(mondayOfIsoWeek('2025-W53')).toBeNull();
    expect(mondayOfIsoWeek('2026-W00')).toBeNull();
    expect(mondayOfIsoWeek('soon')).toBeNull();
  });
});
