// Every lead or work item matching a list's filters, as flat rows for a spreadsheet, read a page at a time.
import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { Store } from '../platform/db/store.js';
import { zonedFormat } from '../shared/i18n/index.js';
import { type LeadListQuery, type ListStage, listLeads } from './read.js';
import { type ExportShape, LEAD_EXPORT_SHAPE, WORK_ITEM_EXPORT_SHAPE } from './shape.js';

/** Rows per database page: large enough that paging costs little, small enough to keep memory flat. */
export const EXPORT_PAGE_SIZE = 1000;

/** A list query without paging: an export has every matching item. */
export type ExportQuery = Omit<LeadListQuery, 'limit' | 'cursor'>;

export interface LeadExport {
  /**
   * Column names, in order: the API's field names, nested ones with a dot (`customer.email`), the assignee's as
   * `assigneeId` and `assigneeName`.
   */
  columns: readonly string[];
  /**
   * The rows, one array of cell values per item in `columns` order, a database page at a time. Pages are read
   * only as the consumer asks for them; stopping the iteration (return()) stops the reading.
   */
  pages: AsyncGenerator<unknown[][], void, undefined>;
}

function valueAt(item: Record<string, unknown>, path: readonly string[]): unknown {
  let value: unknown = item;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return null;
    value = (value as Record<string, unknown>)[key];
  }
  return value ?? null;
}

/**
 * Starts an export of the brand's leads or work items. The first page is read before this resolves, so a bad
 * filter (a customerId of another brand, a state the list does not serve) fails here, before anything is sent.
 */
export async function exportLeads(
  store: Store,
  brandId: string,
  stage: ListStage,
  query: ExportQuery,
  pageSize = EXPORT_PAGE_SIZE,
): Promise<LeadExport> {
  // Cancelled and 'all' items may have been scheduled: they export as work items do (with scheduledAt).
  const shape: ExportShape = stage === 'lead' ? LEAD_EXPORT_SHAPE : WORK_ITEM_EXPORT_SHAPE;
  const { paths } = shape;
  const read = (cursor: string | undefined) =>
    listLeads(store, brandId, stage, { ...query, limit: pageSize, cursor }, shape.projection);
  const first = await read(undefined);
  async function* pages(): AsyncGenerator<unknown[][], void, undefined> {
    let page = first;
    for (;;) {
      yield page.data.map((item) => paths.map((path) => valueAt(item, path)));
      if (!page.nextCursor) return;
      page = await read(page.nextCursor);
    }
  }
  return { columns: shape.columns, pages: pages() };
}

/** How the cells of an export read for people: times in the brand's zone, phones as dialled in its country. */
export interface ExportStyle {
  /** The brand's IANA time zone: a time cell is "2026-11-24 09:30" there. */
  timeZone: string;
  /** The brand's country: its phones in national format ("06 12345678"), others as dialled from it ("00 32 …"). */
  country: string;
}

/** A time column: the read shapes' moments (`receivedAt`, `customer.createdAt`, `scheduledFor`, …). */
const TIME_COLUMN = /(?:^|\.)(?:[a-z][A-Za-z]*At|scheduledFor)$/;
const PHONE_COLUMN = /(?:^|\.)phone$/;
const ISO_MOMENT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;

const LOCAL_TIME: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
};

/** "2026-11-24 09:30:00" in the zone: a date and time every spreadsheet reads, whatever its language. */
function localTime(iso: string, zone: string): string {
  const format = zonedFormat('en-CA', zone, LOCAL_TIME);
  const parts = Object.fromEntries(format.formatToParts(new Date(iso)).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}

/**
 * A phone as people in the country dial it: "06 12345678" for one of the country, "00 32 470 12 34 56" for
 * another's. Starting with 0 and holding spaces, a spreadsheet keeps it as text (no lost 0, no formula).
 */
function dialledPhone(e164: string, country: string): string {
  const parsed = parsePhoneNumberFromString(e164);
  if (!parsed) return e164;
  return parsed.country === country.toUpperCase()
    ? parsed.formatNational()
    : parsed.format('IDD', { fromCountry: country.toUpperCase() as CountryCode }) ||
        parsed.formatInternational();
}

/**
 * The export with its time and phone cells as the brand's people read them (the dashboard's export, in either
 * language); the columns and every other cell as they are. The API's export never uses this.
 */
export function styledExport(data: LeadExport, style: ExportStyle): LeadExport {
  const kinds = data.columns.map((column) =>
    TIME_COLUMN.test(column) ? 'time' : PHONE_COLUMN.test(column) ? 'phone' : undefined,
  );
  const cell = (value: unknown, i: number): unknown => {
    if (typeof value !== 'string') return value;
    if (kinds[i] === 'time' && ISO_MOMENT.test(value)) return localTime(value, style.timeZone);
    if (kinds[i] === 'phone' && value.startsWith('+')) return dialledPhone(value, style.country);
    return value;
  };
  const source = data.pages;
  async function* pages(): AsyncGenerator<unknown[][], void, undefined> {
    try {
      for await (const rows of source) yield rows.map((row) => row.map(cell));
    } finally {
      await source.return(undefined);
    }
  }
  return { columns: data.columns, pages: pages() };
}
