// Photos and files on a lead's page: the office adds them (a multipart form; phones offer the camera), sees them
// (thumbnails, previews and downloads served here to signed-in users of the lead's brand only) and deletes them.
import multipart, { type Multipart } from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hidden, userOf, userPage } from '../../accounts/dashboard/session.js';
import { getAttachment } from '../../attachments/attachments.js';
import { multipartOptions, sendContent } from '../../attachments/serve.js';
import {
  bytesText,
  FIELD,
  MalformedUploadError,
  Upload,
  UploadTooLargeError,
} from '../../attachments/upload.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { pathParam, seeOther, text } from '../../platform/web/http.js';
import { type FieldError, ValidationError } from '../../shared/errors.js';
import { addLeadAttachments, assertLeadExists, deleteLeadAttachment } from '../index.js';
import { showLead } from './lead-page.js';

// The bytes of the brand's attachment: an image's thumbnail or preview shown in the page (inline), or the
// original as a download. Another brand's, or a variant a file does not have, is the not-found page.
async function content(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const asked = text(request.query, 'variant');
  const variant = asked === 'thumbnail' || asked === 'preview' ? asked : undefined;
  if (asked && !variant) return reply.callNotFound();
  return sendContent(deps, request, reply, {
    brandId: userOf(request).brandId,
    id: pathParam(request, 'id'),
    variant,
    variantDisposition: 'inline',
  });
}

/** The form's file parts, streamed into the Upload; a broken body is a MalformedUploadError (400). */
async function receive(request: FastifyRequest, upload: Upload): Promise<void> {
  if (!request.isMultipart()) throw new MalformedUploadError('not multipart/form-data');
  let parts: AsyncIterableIterator<Multipart>;
  try {
    parts = request.parts();
  } catch (error) {
    throw new MalformedUploadError(error);
  }
  try {
    for await (const part of parts) {
      // An empty file input still sends a part without a name: nothing was chosen.
      if (part.type === 'file' && part.filename) await upload.add(part.filename, part.file);
      else if (part.type === 'file') part.file.resume();
    }
  } catch (error) {
    if (
      error instanceof ValidationError ||
      typeof (error as { statusCode?: unknown }).statusCode === 'number'
    )
      throw error;
    throw new MalformedUploadError(error);
  }
  if (!upload.files.length) {
    throw new ValidationError([
      { field: FIELD, message: 'no file chosen', text: { key: 'lead.files.error.none', values: {} } },
    ]);
  }
}

/** What the page says about a refused upload: the upload's own errors, or the post's total being too large. */
function refusalOf(
  error: unknown,
  maxTotalBytes: number,
): { errors: FieldError[]; status: number } | undefined {
  if (error instanceof ValidationError) return { errors: [...error.errors], status: 422 };
  if (error instanceof UploadTooLargeError) {
    const max = bytesText(maxTotalBytes);
    const text = { key: 'lead.files.error.tooLargeTotal', values: { max } } as const;
    return { errors: [{ field: FIELD, message: error.message, text }], status: 413 };
  }
  return undefined;
}

// Adds the chosen files to the lead (attachment.created each), source dashboard; a refusal stores nothing and
// shows the lead's page again with why, in the user's language.
async function add(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const id = pathParam(request, 'id');
  await assertLeadExists(deps.database, user.brandId, id);
  const limits = deps.config.attachments;
  const upload = new Upload(deps.storage, limits);
  try {
    await receive(request, upload);
    await addLeadAttachments(
      deps.database,
      upload,
      { brandId: user.brandId, leadId: id },
      { source: 'dashboard', maxPerLead: limits.maxFilesPerLead },
    );
  } catch (error) {
    await upload.discard();
    const refused = refusalOf(error, limits.maxTotalBytes);
    if (!refused) throw error;
    return showLead(deps, reply, user, id, undefined, refused.status, { fileErrors: refused.errors });
  }
  return seeOther(reply, `/dashboard/leads/${id}?files=added#files`);
}

// Removes the attachment and its bytes (attachment.deleted), back on its lead's page.
async function remove(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const id = pathParam(request, 'id');
  const { leadId } = await getAttachment(deps.database, user.brandId, id);
  await deleteLeadAttachment(deps.database, deps.storage, user.brandId, id);
  return seeOther(reply, `/dashboard/leads/${leadId}?files=deleted#files`);
}

export default async function attachmentRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  // As the API's upload: streamed, never buffered.
  await app.register(multipart, multipartOptions(deps.config.attachments));
  app.get(
    '/attachments/:id/content',
    { schema: hidden, config: userPage, compress: false },
    (request, reply) => content(deps, request, reply),
  );
  app.post(
    '/leads/:id/attachments',
    { schema: hidden, config: { ...userPage, multipart: true } },
    (request, reply) => add(deps, request, reply),
  );
  app.post('/attachments/:id/delete', { schema: hidden, config: userPage }, (request, reply) =>
    remove(deps, request, reply),
  );
}
