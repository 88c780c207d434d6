// Keyset paging on a Kysely query: the SQL step of the lists' paging (the cursors and limits are shared/paging.ts).
import { type SelectQueryBuilder, sql } from 'kysely';
import { decodeCursor, type PageQuery } from '../../shared/paging.js';

/**
 * Keyset paging on a Kysely query: ordered by (time, id) in the requested order, limit+1 rows (toPage turns the
 * extra row into hasMore), and after the cursor's position when one is given.
 */
export function keysetPage<DB, TB extends keyof DB, O>(
  q: SelectQueryBuilder<DB, TB, O>,
  columns: { time: string; id: string },
  query: PageQuery,
): SelectQueryBuilder<DB, TB, O> {
  const after = query.cursor ? decodeCursor(query.cursor) : undefined;
  const time = sql.ref(columns.time);
  const id = sql.ref(columns.id);
  const paged = q
    .orderBy(time, query.order)
    .orderBy(id, query.order)
    .limit(query.limit + 1);
  if (!after) return paged;
  const op = sql.raw(query.order === 'asc' ? '>' : '<');
  return paged.where(sql<boolean>`(${time}, ${id}) ${op} (${after.time}, ${after.id})`);
}
