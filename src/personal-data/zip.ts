// The personal-data export as a ZIP: `personal-data.json` (the API's document), every attachment's bytes exactly
// as stored under `attachments/<lead id>/<attachment id>-<safe file name>`, and a README.txt in the brand's
// language. Streamed with yazl: each attachment is opened only when the archive reaches it, so no more than one
// file's stream is open and nothing is held in memory whole.
import { PassThrough, type Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { readContent } from '../attachments/attachments.js';
import type { Store } from '../platform/db/store.js';
import type { ObjectStorage } from '../platform/storage/storage.js';
import { translator } from '../shared/i18n/index.js';
import type { BuiltExport } from './export.js';

/** A file name safe in any unzip program and file system: ASCII letters, digits, `.`, `-`, `_`; at most 100. */
export function safeFileName(name: string): string {
  const ascii = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(-100);
  return ascii || 'file';
}

/** Where an attachment goes in the ZIP. */
export function attachmentPath(leadId: string, attachment: { id: string; fileName: string }): string {
  return `attachments/${leadId}/${attachment.id}-${safeFileName(attachment.fileName)}`;
}

function readme(built: BuiltExport): string {
  const tr = translator(built.language);
  const { document } = built;
  const files = document.leads.reduce((n, lead) => n + lead.attachments.length, 0);
  const lines = [
    tr.t('personalData.readme.title', { brand: document.brand.name }),
    '',
    tr.t('personalData.readme.made', { at: document.exportedAt, customer: document.customer.id }),
    '',
    tr.t('personalData.readme.json', { brand: document.brand.name }),
    '',
    files
      ? tr.t('personalData.readme.attachments', { count: files })
      : tr.t('personalData.readme.noAttachments'),
    '',
    tr.t('personalData.readme.keep'),
  ];
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * The ZIP of an export, as a stream. A file whose bytes cannot be read (storage unreachable, bytes missing) fails
 * the stream, so the download breaks off rather than arriving silently incomplete.
 */
export function personalDataZip(store: Store, storage: ObjectStorage, built: BuiltExport): Readable {
  const zip = new ZipFile();
  const out = new PassThrough();
  const mtime = new Date(built.document.exportedAt);
  zip.outputStream.on('error', (error: Error) => out.destroy(error));
  zip.on('error', (error: Error) => out.destroy(error));
  zip.outputStream.pipe(out);
  zip.addBuffer(Buffer.from(readme(built), 'utf8'), 'README.txt', { mtime });
  zip.addBuffer(Buffer.from(JSON.stringify(built.document, null, 2), 'utf8'), 'personal-data.json', {
    mtime,
  });
  for (const lead of built.document.leads) {
    for (const attachment of lead.attachments) {
      // Photos and PDFs are compressed already: stored as they are.
      zip.addReadStreamLazy(
        attachmentPath(lead.id, attachment),
        { mtime: new Date(attachment.createdAt), compress: false, size: attachment.size },
        (done) => {
          readContent(store, storage, built.brandId, attachment.id).then(
            (content) => done(null, content.stream),
            (error: unknown) => done(error, undefined as unknown as Readable),
          );
        },
      );
    }
  }
  zip.end();
  return out;
}
