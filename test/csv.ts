// Reads CSV the way RFC 4180 writes it (quoted fields, doubled quotes, CRLF records), for checking exports; with
// `;` between cells too, as a spreadsheet set to Dutch reads the dashboard's export.

/** What separates cells: `,` (RFC 4180) or `;`. */
export type CsvSeparator = ',' | ';';

/**
 * Records of fields. Fails on anything RFC 4180 does not allow, such as a bare LF ending a record, a quote inside
 * an unquoted field, or (with `;`) nothing but a `;` between cells.
 */
export function parseCsv(text: string, separator: CsvSeparator = ','): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    let value = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        const quote = text.indexOf('"', i);
        if (quote < 0) throw new Error('unterminated quoted field');
        value += text.slice(i, quote);
        if (text[quote + 1] === '"') {
          value += '"';
          i = quote + 2;
        } else {
          i = quote + 1;
          break;
        }
      }
    } else {
      let end = i;
      while (
        end < n &&
        text[end] !== separator &&
        text[end] !== '\r' &&
        text[end] !== '\n' &&
        text[end] !== '"'
      )
        end++;
      if (text[end] === '"') throw new Error(`a quote inside an unquoted field at ${end}`);
      value = text.slice(i, end);
      i = end;
    }
    record.push(value);
    if (text[i] === separator) {
      i++;
    } else if (text.startsWith('\r\n', i)) {
      records.push(record);
      record = [];
      i += 2;
    } else {
      throw new Error(
        `expected ${JSON.stringify(separator)} or CRLF at ${i}, got ${JSON.stringify(text.slice(i, i + 10))}`,
      );
    }
  }
  if (record.length) throw new Error('the last record has no CRLF');
  return records;
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
