// Every lead or work item matching a list's filters, as flat rows for a spreadsheet, read a page at a time.
import type { Store } from '../platform/db/store.js';
import { type LeadListQuery, type ListStage, listLeads } from './read.js';
import { type ExportShape, LEAD_EXPORT_SHAPE, WORK_ITEM_EXPORT_SHAPE } from './shape.js';

/** Rows per database page: large enough that paging costs little, small enough to keep memory flat. */
export const EXPORT_PAGE_SIZE = 1000;

/** A list query without paging: an export has every matching item. */
export type ExportQuery = Omit<LeadListQuery, 'limit' | 'cursor'>;

export interface LeadExport {
  /** Column names, in order: the API's field names, nested ones with a dot (`customer.email`). */
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
  const paths = shape.columns.map((column) => column.split('.'));
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
