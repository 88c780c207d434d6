import { Type } from '@sinclair/typebox';
import { PRIORITIES } from '../../leads/states.js';
import { ListQuery, listEnvelope, NullableString, Timestamp } from '../../platform/http/schemas.js';
import { LOCALES } from '../../shared/i18n/index.js';
import { CAPTCHA_PROVIDERS } from '../forms.js';

const Provider = Type.String({ enum: [...CAPTCHA_PROVIDERS] });
const Defaults = Type.Object(
  {
    priority: Type.Optional(Type.Union([Type.String({ enum: [...PRIORITIES] }), Type.Null()])),
    category: Type.Optional(NullableString()),
  },
  { additionalProperties: false },
);

const Language = Type.String({
  enum: [...LOCALES],
  description:
    'What the form speaks to people: its hosted, thank-you and error pages, the snippet’s labels, the `message` of each entry in a post’s 422 and the customer’s receipt. Default: the brand’s language.',
});

const fields = {
  language: Language,
  name: Type.String({ maxLength: 200, description: 'What the brand calls the form.' }),
  allowedOrigins: Type.Array(Type.String({ maxLength: 300 }), {
    maxItems: 20,
    description:
      'Origins (scheme, host and port) whose pages may post the form and frame the hosted page: https, or http for localhost and 127.0.0.1.',
    examples: [['https://www.example.nl']],
  }),
  redirectUrl: NullableString({
    description: 'Where a browser post is sent after success (303); null: the hosted thank-you page.',
  }),
  honeypotField: Type.String({
    maxLength: 64,
    description: 'Hidden field that only bots fill (default "_gotcha").',
  }),
  captcha: Type.Union([
    Type.Object(
      {
        provider: Provider,
        siteKey: Type.String({ maxLength: 500 }),
        secret: Type.String({ maxLength: 500 }),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ]),
  consentText: NullableString({
    description: 'When set, posts must carry a non-empty `consent`; the lead keeps { text, at }.',
  }),
  autoReply: Type.Boolean({ description: 'Email the customer a receipt when they gave an email.' }),
  defaults: Type.Union([Defaults, Type.Null()]),
};

export const FormCreateBody = Type.Object(
  {
    name: fields.name,
    allowedOrigins: fields.allowedOrigins,
    redirectUrl: Type.Optional(fields.redirectUrl),
    honeypotField: Type.Optional(fields.honeypotField),
    captcha: Type.Optional(fields.captcha),
    consentText: Type.Optional(fields.consentText),
    autoReply: Type.Optional(fields.autoReply),
    defaults: Type.Optional(fields.defaults),
    language: Type.Optional(fields.language),
  },
  { additionalProperties: false, title: 'FormCreate' },
);

export const FormUpdateBody = Type.Object(
  {
    name: Type.Optional(fields.name),
    allowedOrigins: Type.Optional(fields.allowedOrigins),
    redirectUrl: Type.Optional(fields.redirectUrl),
    honeypotField: Type.Optional(fields.honeypotField),
    captcha: Type.Optional(fields.captcha),
    consentText: Type.Optional(fields.consentText),
    autoReply: Type.Optional(fields.autoReply),
    defaults: Type.Optional(fields.defaults),
    language: Type.Optional(fields.language),
    enabled: Type.Optional(Type.Boolean({ description: 'false: the public endpoint and page answer 404.' })),
  },
  { additionalProperties: false, title: 'FormUpdate' },
);

export const FormSchema = Type.Object(
  {
    id: Type.String({ description: 'frm_… identifier: public, it opens nothing else.' }),
    name: Type.String(),
    allowedOrigins: Type.Array(Type.String()),
    redirectUrl: NullableString(),
    honeypotField: Type.String(),
    captcha: Type.Union(
      [
        Type.Object({ provider: Provider, siteKey: Type.String() }, { additionalProperties: false }),
        Type.Null(),
      ],
      { description: 'The provider and site key; the secret is never returned.' },
    ),
    consentText: NullableString(),
    autoReply: Type.Boolean(),
    defaults: Type.Object(
      {
        priority: Type.Union([Type.String({ enum: [...PRIORITIES] }), Type.Null()]),
        category: NullableString(),
      },
      { additionalProperties: false },
    ),
    enabled: Type.Boolean(),
    language: Language,
    endpoint: Type.String({
      description: '<PUBLIC_URL>/f/frm_…: where the form posts; GET shows the hosted page.',
    }),
    snippet: Type.String({
      description: 'A complete HTML form to paste into a page; works with JavaScript off.',
    }),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { additionalProperties: false, title: 'Form' },
);

export const FormListQuery = Type.Object({ ...ListQuery }, { additionalProperties: false });
export const FormListResponse = listEnvelope(FormSchema, 'FormList');
