// Photos and files of a lead: upload (multipart, streamed to storage), list, metadata, content, delete.
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { pagingFrom } from '../../leads/api/list-query.js';
import {
  addLeadAttachments,
  assertLeadExists,
  deleteLeadAttachment,
  listLeadAttachments,
} from '../../leads/index.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { principalOf } from '../../platform/http/plugins/auth.js';
import { type ApiApp, type RequestFor, scopedRoute } from '../../platform/http/route.js';
import { errorResponses, IdParams } from '../../platform/http/schemas.js';
import { ValidationError } from '../../shared/errors.js';
import { getAttachment } from '../attachments.js';
import { multipartOptions, sendContent } from '../serve.js';
import { FIELD, MalformedUploadError, Upload } from '../upload.js';
import {
  AttachmentListQuery,
  AttachmentListResponse,
  AttachmentParams,
  AttachmentSchema,
  AttachmentsCreated,
  binaryResponse,
  ContentQuery,
} from './schemas.js';

const TAGS = ['Attachments'];

const uploadSchema = {
  operationId: 'addLeadAttachments',
  tags: TAGS,
  summary: 'Add photos and files to a lead',
  description:
    'A `multipart/form-data` post of one or more files (any field name; fields that are not files are ignored), streamed to storage as they arrive. Accepted: JPEG, PNG, WebP, GIF, HEIC/HEIF and PDF, decided from the bytes (never the name or declared type); anything else is a 422 naming `attachments` and the file. At most `ATTACHMENT_MAX_BYTES` a file (default 10 MiB) and 10 files a post (422 beyond), `ATTACHMENTS_MAX_TOTAL_BYTES` a post (default 25 MiB; 413 beyond), 50 files a lead (422). A file name with a path separator or control character, or over 255 characters, is a 422. An image with more than about 268 megapixels is a 422. On any refusal nothing of the post is stored. Fires `attachment.created` for each file.',
  params: IdParams,
  consumes: ['multipart/form-data'],
  response: {
    201: {
      ...AttachmentsCreated,
      description: 'The files were stored. Location points at the lead’s attachments.',
    },
    413: {
      ...errorResponses([413])[413],
      description:
        'The files together are over ATTACHMENTS_MAX_TOTAL_BYTES (default 25 MiB); nothing was stored.',
    },
  },
};

type UploadRequest = RequestFor<typeof uploadSchema>;

/** The post's file parts, streamed into an Upload; a broken multipart body is a 400, another type a 415. */
async function receive(request: UploadRequest, upload: Upload): Promise<void> {
  if (!request.isMultipart()) {
    throw Object.assign(new Error('The body must be multipart/form-data with one or more files.'), {
      statusCode: 415,
    });
  }
  let parts: AsyncIterator<import('@fastify/multipart').Multipart>;
  try {
    parts = request.parts()[Symbol.asyncIterator]();
  } catch (error) {
    throw new MalformedUploadError(error);
  }
  for (;;) {
    let step: IteratorResult<import('@fastify/multipart').Multipart>;
    try {
      step = await parts.next();
    } catch (error) {
      if (typeof (error as { statusCode?: unknown }).statusCode === 'number') throw error;
      throw new MalformedUploadError(error);
    }
    if (step.done) break;
    if (step.value.type === 'file') await upload.add(step.value.filename, step.value.file);
  }
  if (!upload.files.length) {
    throw new ValidationError([
      { field: FIELD, message: 'send one or more files (multipart/form-data file parts)' },
    ]);
  }
}

async function uploadHandler(deps: RouteDeps, request: UploadRequest, reply: FastifyReply) {
  const brandId = principalOf(request).brandId;
  const { id } = request.params;
  // Before any byte is stored: a lead that is not the brand's is a 404 at once.
  await assertLeadExists(deps.database, brandId, id);
  const limits = deps.config.attachments;
  const upload = new Upload(deps.storage, limits);
  try {
    await receive(request, upload);
  } catch (error) {
    await upload.discard();
    throw error;
  }
  const data = await addLeadAttachments(
    deps.database,
    upload,
    { brandId, leadId: id },
    { source: 'api', maxPerLead: limits.maxFilesPerLead },
  );
  return reply.code(201).header('Location', `/v1/leads/${id}/attachments`).send({ data });
}

function uploadRoute(app: ApiApp, deps: RouteDeps) {
  app.post(
    '/v1/leads/:id/attachments',
    scopedRoute({ scope: 'leads:write', errors: [400, 404, 413, 415, 422], schema: uploadSchema }),
    (request, reply) => uploadHandler(deps, request, reply),
  );
}

function listRoute(app: ApiApp, deps: RouteDeps) {
  app.get(
    '/v1/leads/:id/attachments',
    scopedRoute({
      scope: 'leads:read',
      errors: [404, 422],
      schema: {
        operationId: 'listLeadAttachments',
        tags: TAGS,
        summary: "List a lead's photos and files",
        description:
          'The attachments of a lead or work item, newest first by (createdAt, id); `order=asc` for oldest first (the order of the lead’s `attachments`). Follow `nextCursor` to page.',
        params: IdParams,
        querystring: AttachmentListQuery,
        response: { 200: AttachmentListResponse },
      },
    }),
    async (request, reply) => {
      const brandId = principalOf(request).brandId;
      const query = pagingFrom(request.query);
      return deps.responses.send(reply, `attachments|${brandId}|${request.url}`, () =>
        listLeadAttachments(deps.database, brandId, request.params.id, query),
      );
    },
  );
}

function getRoute(app: ApiApp, deps: RouteDeps) {
  app.get(
    '/v1/attachments/:id',
    scopedRoute({
      scope: 'leads:read',
      errors: [404],
      schema: {
        operationId: 'getAttachment',
        tags: TAGS,
        summary: 'Read a photo’s or file’s metadata',
        description: 'The attachment’s metadata; its bytes are at /v1/attachments/{id}/content.',
        params: AttachmentParams,
        response: { 200: AttachmentSchema },
      },
    }),
    async (request, reply) => {
      const brandId = principalOf(request).brandId;
      const { id } = request.params;
      return deps.responses.send(reply, `attachment|${brandId}|${id}`, () =>
        getAttachment(deps.database, brandId, id),
      );
    },
  );
}

const contentSchema = {
  operationId: 'getAttachmentContent',
  tags: TAGS,
  summary: 'Download a photo or file',
  description:
    'The original bytes, unchanged, as a download; with `?variant=preview` or `?variant=thumbnail` an image’s JPEG variant, turned upright and without any EXIF or other metadata. A file without variants (a PDF, an image the server cannot decode) is a 404 for a variant.',
  params: AttachmentParams,
  querystring: ContentQuery,
  response: { 200: binaryResponse },
};

async function contentHandler(
  deps: RouteDeps,
  request: RequestFor<typeof contentSchema>,
  reply: FastifyReply,
) {
  // Bytes a browser opens from the API never run as a page of this origin.
  reply.header('Content-Security-Policy', 'sandbox');
  return sendContent(deps, request, reply, {
    brandId: principalOf(request).brandId,
    id: request.params.id,
    variant: request.query.variant as 'preview' | 'thumbnail' | undefined,
    variantDisposition: 'attachment',
  });
}

function contentRoute(app: ApiApp, deps: RouteDeps) {
  app.get(
    '/v1/attachments/:id/content',
    { ...scopedRoute({ scope: 'leads:read', errors: [404, 422], schema: contentSchema }), compress: false },
    (request, reply) => contentHandler(deps, request, reply),
  );
}

function deleteRoute(app: ApiApp, deps: RouteDeps) {
  app.delete(
    '/v1/attachments/:id',
    scopedRoute({
      scope: 'full',
      errors: [404],
      schema: {
        operationId: 'deleteAttachment',
        tags: TAGS,
        summary: 'Delete a photo or file',
        description:
          'Removes the attachment and its stored bytes (and variants). Fires `attachment.deleted`.',
        params: AttachmentParams,
        response: { 204: { type: 'null', description: 'Deleted.' } },
      },
    }),
    async (request, reply) => {
      const brandId = principalOf(request).brandId;
      await deleteLeadAttachment(deps.database, deps.storage, brandId, request.params.id);
      return reply.code(204).send();
    },
  );
}

export default async function attachmentRoutes(instance: FastifyInstance, { deps }: { deps: RouteDeps }) {
  await instance.register(multipart, multipartOptions(deps.config.attachments));
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  for (const route of [uploadRoute, listRoute, getRoute, contentRoute, deleteRoute]) route(app, deps);
}
