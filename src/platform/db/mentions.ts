// Finding the rows whose text (JSON) mentions any of some values: an erasure looks for the copies of a person's
// data in stored events, idempotency records, flashes and mail by the ids and addresses they contain. A substring
// test, so it scans the rows it is given (one brand's, or one table small by its pruning); the caller checks what
// it found (a `like` may also match where the value is only part of a longer one).
import { type RawBuilder, sql } from 'kysely';

/** The pattern that finds `value` anywhere, with like's wildcards escaped by `!`. */
function containing(value: string): string {
  return `%${value.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

/** `column` (lower-cased when `folded`) contains one of `values` (give them lower case then). */
export function mentionsAny(column: string, values: readonly string[], folded = false): RawBuilder<boolean> {
  const target = folded ? sql`lower(${sql.ref(column)})` : sql.ref(column);
  if (!values.length) return sql<boolean>`1 = 0`;
  return sql<boolean>`(${sql.join(
    values.map((v) => sql`${target} like ${containing(v)} escape '!'`),
    sql` or `,
  )})`;
}
