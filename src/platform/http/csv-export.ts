// CSV exports as a download: RFC 4180 text, guarded against formula injection, streamed and compressed as it goes.
//
// Shared by the API (GET /v1/exports/*.csv) and the dashboard's "Export CSV". Rows are produced a database page
// at a time and only as fast as the client reads (Readable.from pulls the next page when the socket drains), so
// memory stays flat however many items match. A client that goes away destroys the stream, which ends the
// generator: no further page is read.
import { pipeline, Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** What separates cells: `,` (RFC 4180), or `;`, which spreadsheets set to a Dutch (or German, …) locale expect. */
export type CsvDelimiter = ',' | ';';

const NEEDS_QUOTES: Record<CsvDelimiter, RegExp> = { ',': /[",\r\n]/, ';': /[";\r\n]/ };
/** What a spreadsheet reads as the start of a formula (OWASP CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** An E.164 phone number: `+` and digits only. At worst a spreadsheet reads it as a number, never a formula. */
const E164 = /^\+\d+$/;

/** One cell as text: null is empty, times are already ISO strings, objects are JSON. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** A cell as RFC 4180 has it: a formula-like start neutralised with `'`, quoted when it must be. */
export function csvCell(value: unknown, delimiter: CsvDelimiter = ','): string {
  let text = cellText(value);
  if (FORMULA_START.test(text) && !E164.test(text)) text = `'${text}`;
  return NEEDS_QUOTES[delimiter].test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record with its CRLF line end. */
export function csvLine(cells: readonly unknown[], delimiter: CsvDelimiter = ','): string {
  return `${cells.map((cell) => csvCell(cell, delimiter)).join(delimiter)}\r\n`;
}

/** A table to send as CSV: its header and its rows, a page at a time, read only as the download asks. */
export interface CsvTable {
  /** Column names, in order. */
  columns: readonly string[];
  /** The rows, one array of cell values per item in `columns` order; stopping the iteration stops the reading. */
  pages: AsyncGenerator<unknown[][], void, undefined>;
}

const BOM = '\ufeff';

async function* csvText(data: CsvTable, bom: boolean, delimiter: CsvDelimiter): AsyncGenerator<string> {
  yield `${bom ? BOM : ''}${csvLine(data.columns, delimiter)}`;
  for await (const rows of data.pages) {
    let chunk = '';
    for (const row of rows) chunk += csvLine(row, delimiter);
    yield chunk;
  }
}

/** The encoding to compress with, from Accept-Encoding: br, else gzip, else none (q=0 refuses one). */
export function negotiateEncoding(header: string | undefined): 'br' | 'gzip' | undefined {
  if (!header) return undefined;
  const accepted = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    accepted.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  const weight = (name: string) => accepted.get(name) ?? accepted.get('*') ?? 0;
  if (weight('br') > 0 && weight('br') >= weight('gzip')) return 'br';
  if (weight('gzip') > 0) return 'gzip';
  return undefined;
}

export interface CsvDownload {
  /** The file name without date and extension: `leads` gives `leads-2026-11-23.csv`. */
  name: string;
  /** Starts the file with a UTF-8 byte order mark, which Excel needs to read UTF-8 when a file is opened. */
  bom: boolean;
  /** Between cells: `,` unless given (the dashboard's export for Dutch readers: `;`). */
  delimiter?: CsvDelimiter;
}

/**
 * Sends an export as a CSV download. Call it once the export has started (its first page read), so that errors
 * up to then are ordinary error responses. Once bytes are on their way an error can no longer become a status:
 * it is logged with the request id and the connection is cut, so the client sees an incomplete transfer (no
 * final chunk) rather than a file that looks complete.
 */
export function sendCsv(
  request: FastifyRequest,
  reply: FastifyReply,
  data: CsvTable,
  download: CsvDownload,
): FastifyReply {
  const day = new Date().toISOString().slice(0, 10);
  const source = Readable.from(csvText(data, download.bom, download.delimiter ?? ','), {
    objectMode: false,
  });
  source.on('error', (error) => request.log.error({ err: error }, 'CSV export aborted after it had started'));
  reply
    .type('text/csv; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="${download.name}-${day}.csv"`)
    // Customer data in a file: never kept by a cache. No ETag: the body is not known until it has been sent.
    .header('Cache-Control', 'no-store')
    .header('Vary', 'Accept-Encoding');
  const encoding = negotiateEncoding(request.headers['accept-encoding']);
  if (!encoding) return reply.send(source);
  // Brotli's default quality (11) is meant for static files; 4 compresses a CSV about as well as gzip, faster.
  const compressor =
    encoding === 'br'
      ? zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } })
      : zlib.createGzip();
  // pipeline destroys the source when the compressor is destroyed (client gone), so reading stops too.
  pipeline(source, compressor, () => {});
  return reply.header('Content-Encoding', encoding).send(compressor);
}
