// Time zones by IANA name, with nothing but Intl: checking a name, the wall clock of an instant in a zone, and the
// instant of a wall-clock time in a zone (DST-aware). Calendar days are 'YYYY-MM-DD' strings throughout.
import { zonedFormat } from './i18n/intl-cache.js';

const MINUTE_MS = 60 * 1000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** The zone a brand gets when nobody chose one: the Netherlands' for Dutch brands, UTC for the others. */
export function defaultTimeZone(country: string): string {
  return country.toUpperCase() === 'NL' ? 'Europe/Amsterdam' : 'UTC';
}

/** The canonical spelling of an IANA time zone name ("europe/amsterdam" → "Europe/Amsterdam"), or null. */
export function canonicalTimeZone(name: unknown): string | null {
  if (typeof name !== 'string') return null;
  const trimmed = name.trim();
  // Offsets like "+01:00" are accepted by Intl but are no place: a brand's clocks change with DST.
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(trimmed) || trimmed.length > 64) return null;
  try {
    return new Intl.DateTimeFormat('en-GB', { timeZone: trimmed }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** Every zone name this runtime knows, for a select. */
export function timeZoneNames(): string[] {
  const names = Intl.supportedValuesOf('timeZone');
  return names.includes('UTC') ? names : ['UTC', ...names];
}

const PARTS: Intl.DateTimeFormatOptions = {
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
};
const partsFormat = (zone: string) => zonedFormat('en-US', zone, PARTS);

export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

/** What a clock in `zone` shows at `instant` (to the minute). */
export function wallClock(zone: string, instant: number): WallClock & { second: number } {
  const parts: Record<string, number> = {};
  for (const p of partsFormat(zone).formatToParts(new Date(instant))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return {
    year: parts.year!,
    month: parts.month!,
    day: parts.day!,
    hour: parts.hour! % 24,
    minute: parts.minute!,
    second: parts.second!,
  };
}

/** How far `zone` is ahead of UTC at `instant`, in milliseconds (3,600,000 in Amsterdam in winter). */
export function offsetAt(zone: string, instant: number): number {
  const c = wallClock(zone, instant);
  const asUtc = Date.UTC(c.year, c.month - 1, c.day, c.hour, c.minute, c.second);
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant a clock in `zone` shows `clock`. A time that happens twice (clocks going back) is its first
 * occurrence; a time that never happens (clocks going forward) is taken with the offset before the change, which
 * lands as far after the gap as it was into it (02:30 on a spring-forward night of Amsterdam → 03:30).
 */
export function zonedTimeToUtc(zone: string, clock: WallClock): number {
  const local = Date.UTC(clock.year, clock.month - 1, clock.day, clock.hour, clock.minute);
  const before = offsetAt(zone, local - DAY_MS);
  const after = offsetAt(zone, local + DAY_MS);
  const candidates = [...new Set([local - before, local - after])].sort((a, b) => a - b);
  for (const candidate of candidates) {
    if (candidate + offsetAt(zone, candidate) === local) return candidate;
  }
  return local - before;
}

/** The calendar day in `zone` at `instant`: 'YYYY-MM-DD'. */
export function dayIn(zone: string, instant: number): string {
  const c = wallClock(zone, instant);
  return `${String(c.year).padStart(4, '0')}-${pad(c.month)}-${pad(c.day)}`;
}

/** 'HH:MM' in `zone` at `instant`. */
export function timeIn(zone: string, instant: number): string {
  const c = wallClock(zone, instant);
  return `${pad(c.hour)}:${pad(c.minute)}`;
}

/** The instant a day starts in `zone` (midnight, or the first moment after it when DST skips midnight). */
export function startOfDay(zone: string, day: string): number {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return zonedTimeToUtc(zone, { year, month, day: date, hour: 0, minute: 0 });
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar day written 'YYYY-MM-DD'. */
export function isDay(value: string): boolean {
  const m = DAY.exec(value);
  if (!m) return false;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return date.getUTCFullYear() === Number(m[1]) && date.getUTCDate() === Number(m[3]);
}

/** `day` plus `n` calendar days. */
export function addDays(day: string, n: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

/** 1 (Monday) to 7 (Sunday). */
export function isoWeekday(day: string): number {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d)).getUTCDay() || 7;
}

/** The Monday of the week `day` is in. */
export function mondayOf(day: string): string {
  return addDays(day, 1 - isoWeekday(day));
}

/** The ISO week of a day: '2026-W48'. */
export function isoWeek(day: string): string {
  const thursday = addDays(day, 4 - isoWeekday(day));
  const year = Number(thursday.slice(0, 4));
  const firstThursday = addDays(`${year}-01-04`, 4 - isoWeekday(`${year}-01-04`));
  const week = 1 + Math.round((Date.parse(thursday) - Date.parse(firstThursday)) / (7 * DAY_MS));
  return `${year}-W${pad(week)}`;
}

/** The Monday of an ISO week written '2026-W48', or null when there is no such week. */
export function mondayOfIsoWeek(value: string): string | null {
  const m = /^(\d{4})-W(\d{2})$/.exec(value);
  if (!m) return null;
  const year = Number(m[1]);
  const week = Number(m[2]);
  const monday = addDays(mondayOf(`${year}-01-04`), (week - 1) * 7);
  return week >= 1 && isoWeek(monday) === value ? monday : null;
}
