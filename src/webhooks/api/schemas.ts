import { Type } from '@sinclair/typebox';
import { ListQuery, listEnvelope, NullableString, Timestamp } from '../../platform/http/schemas.js';
import { EVENT_TYPES } from '../events.js';

const EventTypes = Type.Array(Type.String({ enum: [...EVENT_TYPES] }), {
  minItems: 1,
  maxItems: EVENT_TYPES.length,
  description: `Event types to send: any of ${EVENT_TYPES.join(', ')}.`,
});

const Url = Type.String({
  maxLength: 2048,
  description:
    'Where deliveries are POSTed. Must be https (http only for 127.0.0.1/localhost/[::1] with WEBHOOKS_ALLOW_HTTP=1) and resolve to public addresses.',
  examples: ['https://example.com/hooks/lead-intake'],
});

const Description = NullableString({
  description: 'Free text to recognise the endpoint by (at most 500 characters).',
});

export const WebhookEndpointSchema = Type.Object(
  {
    id: Type.String({ description: 'whk_… identifier.' }),
    url: Type.String(),
    description: Description,
    events: Type.Array(Type.String({ enum: [...EVENT_TYPES] })),
    enabled: Type.Boolean({ description: 'False when disabled by hand or after failing for 24 hours.' }),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
    disabledAt: NullableString({
      format: 'date-time',
      description: 'When deliveries were stopped because every one failed for 24 hours.',
    }),
    disabledReason: NullableString({ description: 'Why the endpoint was disabled automatically.' }),
  },
  { additionalProperties: false, title: 'WebhookEndpoint' },
);

export const WebhookEndpointWithSecretSchema = Type.Object(
  {
    ...WebhookEndpointSchema.properties,
    secret: Type.String({
      description:
        'whsec_… signing secret (whsec_ + base64 of 32 bytes). Shown only here (and on rotation): store it to verify Lead-Intake-Signature or the Standard Webhooks webhook-signature.',
    }),
  },
  { additionalProperties: false, title: 'WebhookEndpointCreated' },
);

export const WebhookEndpointCreateBody = Type.Object(
  {
    url: Url,
    events: Type.Optional(EventTypes),
    description: Type.Optional(Description),
  },
  { additionalProperties: false, required: ['url'], title: 'WebhookEndpointCreate' },
);

export const WebhookEndpointUpdateBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(EventTypes),
    description: Type.Optional(Description),
    enabled: Type.Optional(
      Type.Boolean({
        description: 'false stops deliveries; true resumes them (and clears an automatic disable).',
      }),
    ),
  },
  { additionalProperties: false, title: 'WebhookEndpointUpdate' },
);

export const WebhookEndpointListQuery = Type.Object({ ...ListQuery }, { additionalProperties: false });
export const WebhookEndpointListResponse = listEnvelope(WebhookEndpointSchema, 'WebhookEndpointList');

export const RotatedSecretSchema = Type.Object(
  {
    secret: Type.String({ description: 'The new whsec_… secret, shown only now.' }),
    previousSecretExpiresAt: Timestamp(
      'Until then deliveries carry a second v1 signature made with the previous secret.',
    ),
  },
  { additionalProperties: false, title: 'RotatedSecret' },
);

export const WebhookDeliverySchema = Type.Object(
  {
    id: Type.String({ description: 'whd_… identifier.' }),
    eventId: Type.String(),
    eventType: Type.String({ enum: [...EVENT_TYPES] }),
    attempt: Type.Integer({ description: 'Attempts made so far.' }),
    status: Type.String({ enum: ['pending', 'succeeded', 'failed'] }),
    responseStatus: Type.Union([Type.Integer(), Type.Null()], {
      description: 'HTTP status of the last attempt; null before the first or when nothing answered.',
    }),
    durationMs: Type.Union([Type.Integer(), Type.Null()], { description: 'Duration of the last attempt.' }),
    error: NullableString({ description: 'Why the last attempt failed.' }),
    createdAt: Timestamp(),
    lastAttemptAt: NullableString({ format: 'date-time' }),
    nextAttemptAt: NullableString({
      format: 'date-time',
      description: 'When the next attempt is due; null once succeeded or failed for good.',
    }),
  },
  { additionalProperties: false, title: 'Delivery' },
);

export const WebhookDeliveryListResponse = listEnvelope(WebhookDeliverySchema, 'DeliveryList');

export const DeliveryParams = Type.Object(
  { id: Type.String({ maxLength: 100 }), deliveryId: Type.String({ maxLength: 100 }) },
  { additionalProperties: false },
);
