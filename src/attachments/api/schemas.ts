import { Type } from '@sinclair/typebox';
import { IdParams, ListQuery, listEnvelope } from '../../platform/http/schemas.js';
import { AttachmentSchema } from '../attachments.js';
import { ACCEPTED_TYPES } from '../content.js';

export { AttachmentSchema } from '../attachments.js';

export const AttachmentListQuery = Type.Object({ ...ListQuery }, { additionalProperties: false });
export const AttachmentListResponse = listEnvelope(AttachmentSchema, 'AttachmentList');
export const AttachmentsCreated = Type.Object(
  {
    data: Type.Array(AttachmentSchema, {
      description: 'The files of the post, in the order they were sent.',
    }),
  },
  { additionalProperties: false, title: 'AttachmentsCreated' },
);

export const AttachmentParams = Type.Object(
  { id: Type.String({ ...IdParams.properties.id, description: 'The att_… identifier.' }) },
  { additionalProperties: false },
);

export const ContentQuery = Type.Object(
  {
    variant: Type.Optional(
      Type.String({
        enum: ['preview', 'thumbnail'],
        description:
          'An image’s variant instead of the original: `preview` (at most 1600 px on the long side) or `thumbnail` (at most 320 px), a JPEG turned upright without any metadata. A file without variants (a PDF, an image that cannot be decoded) is a 404.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const binaryResponse = {
  description:
    "The bytes, unchanged (or the variant asked for), with Content-Type, Content-Length, ETag, `X-Content-Type-Options: nosniff`, `Content-Disposition: attachment; filename*=UTF-8''…` and `Content-Security-Policy: sandbox`.",
  // Each accepted type, as the file has it (variants: image/jpeg).
  content: Object.fromEntries(
    Object.keys(ACCEPTED_TYPES).map((type) => [type, { schema: { type: 'string' } }]),
  ),
} as unknown as ReturnType<typeof Type.String>;
