// Reads CSV exports back with csv-parse held to RFC 4180 (quoted fields, doubled quotes, CRLF records); with
// `;` between cells too, as a spreadsheet set to Dutch reads the dashboard's export.
import { parse } from 'csv-parse/sync';

/** What separates cells: `,` (RFC 4180) or `;`. */
export type CsvSeparator = ',' | ';';

/**
 * Records of fields, read by csv-parse (the Node CSV project's parser) held to RFC 4180: every record ends with
 * CRLF, quotes only around whole fields, every record as long as the first. Fails on anything else, such as a bare
 * LF ending a record, a quote inside an unquoted field, or (with `;`) a `,`-separated file read as one column.
 */
export function parseCsv(text: string, separator: CsvSeparator = ','): string[][] {
  if (text.length && !text.endsWith('\r\n')) throw new Error('the last record has no CRLF');
  return parse(text, {
    delimiter: separator,
    record_delimiter: '\r\n',
    quote: '"',
    escape: '"',
    relax_quotes: false,
    relax_column_count: true,
    skip_empty_lines: false,
    bom: false,
  }) as string[][];
}

/** The records after the header as objects keyed by the header's names. */
export function csvObjects(
  text: string,
  separator: CsvSeparator = ',',
): { header: string[]; rows: Record<string, string>[] } {
  const [header = [], ...records] = parseCsv(text, separator);
  for (const record of records) {
    if (record.length !== header.length)
      throw new Error(`a record of ${record.length} fields, not ${header.length}`);
  }
  return {
    header,
    rows: records.map((record) => Object.fromEntries(header.map((name, k) => [name, record[k]!]))),
  };
}
