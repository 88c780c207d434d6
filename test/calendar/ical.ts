// Feeds and invitations read back with ical.js, a real iCalendar parser (RFC 5545): what a calendar app sees.
import ICAL from 'ical.js';

export interface ParsedEvent {
  uid: string;
  sequence: number;
  start: Date;
  end: Date;
  summary: string;
  location: string;
  description: string;
  status: string | null;
}

export interface ParsedCalendar {
  method: string | null;
  refreshInterval: string | null;
  publishedTtl: string | null;
  name: string | null;
  events: ParsedEvent[];
}

export function parseCalendar(text: string): ParsedCalendar {
  const root = new ICAL.Component(ICAL.parse(text));
  const events = root.getAllSubcomponents('vevent').map((vevent) => {
    const event = new ICAL.Event(vevent);
    return {
      uid: event.uid,
      sequence: event.sequence,
      start: event.startDate.toJSDate(),
      end: event.endDate.toJSDate(),
      summary: event.summary,
      location: event.location,
      description: event.description,
      status: (vevent.getFirstPropertyValue('status') as string | null) ?? null,
    };
  });
  const value = (name: string) => {
    const v = root.getFirstPropertyValue(name);
    return v === null || v === undefined ? null : String(v);
  };
  return {
    method: value('method'),
    refreshInterval: value('refresh-interval'),
    publishedTtl: value('x-published-ttl'),
    name: value('x-wr-calname'),
    events,
  };
}

/** The next daylight-saving change in Europe (the last Sunday of March) after `now`, as a UTC date (day). */
export function nextSpringForward(now = new Date()): Date {
  for (let year = now.getUTCFullYear(); ; year++) {
    const lastOfMarch = new Date(Date.UTC(year, 2, 31));
    const sunday = new Date(Date.UTC(year, 2, 31 - lastOfMarch.getUTCDay()));
    if (sunday.getTime() > now.getTime() + 2 * 24 * 60 * 60 * 1000) return sunday;
  }
}

/** The wall-clock time of an instant in a zone, "HH:MM". */
export function wallClock(at: Date, zone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(at);
}
