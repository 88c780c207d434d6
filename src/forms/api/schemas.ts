import { Type } from '@sinclair/typebox';
import { PRIORITIES } from '../../leads/states.js';
import { ListQuery, listEnvelope, NullableString, Timestamp } from '../../platform/http/schemas.js';
import { LOCALES } from '../../shared/i18n/index.js';
import {
  ALWAYS_REQUIRED,
  DEFAULT_FIELDS,
  MAX_KEY,
  MAX_LABEL,
  MAX_OPTION,
  MAX_OPTIONS,
  MAX_QUESTIONS,
  QUESTION_TYPES,
  SHOWABLE_FIELDS,
} from '../form-fields.js';
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

// Names and keys are checked by the forms' own rules (form-fields.ts), so a wrong one is a 422 naming
// `fields[i].name` or `questions[i].key`; the document lists the names in the description.
const FieldItem = Type.Object(
  {
    name: Type.String({
      description: `A lead field: ${SHOWABLE_FIELDS.join(', ')}.`,
    }),
    required: Type.Optional(Type.Boolean({ description: 'Default false.' })),
  },
  { additionalProperties: false },
);
const FIELDS_DESCRIPTION = `The lead fields the hosted page and the snippet show, in this order, each optional or required. ${ALWAYS_REQUIRED.join(', ')} are always on the form and required: left out, they are added where the field table puts them; sent as optional, they are required anyway. When the form shows both email and phone and requires neither, a post must carry at least one of them. Default for a new form: ${DEFAULT_FIELDS.map((f) => f.name).join(', ')}. A post may still carry a field the form does not show; the lead rules apply to it.`;
const QUESTIONS_DESCRIPTION = `The form’s own questions (at most ${MAX_QUESTIONS}), shown after the job’s fields; answers are kept in the lead’s \`extraFields\` under their key (a ticked checkbox as "yes"). Keys are letters, digits and "_" (at most ${MAX_KEY}), not a lead field’s name nor a field the endpoint reads itself (consent, utm_*, referrer, landingPage, captcha tokens, the honeypot), and different from each other. A select needs 1 to ${MAX_OPTIONS} different options; a post’s answer must be one of them.`;
const QuestionType = Type.String({ enum: [...QUESTION_TYPES] });
const QuestionItem = Type.Object(
  {
    key: Type.String({ description: `At most ${MAX_KEY} characters.`, examples: ['boilerType'] }),
    label: Type.String({ description: `The question as people read it; at most ${MAX_LABEL} characters.` }),
    type: Type.String({ description: `One of ${QUESTION_TYPES.join(', ')}.` }),
    options: Type.Optional(
      Type.Union([Type.Array(Type.String()), Type.Null()], {
        description: `For select only: the choices, in order (1 to ${MAX_OPTIONS}, each at most ${MAX_OPTION} characters).`,
      }),
    ),
    required: Type.Optional(Type.Boolean({ description: 'Default false.' })),
  },
  { additionalProperties: false },
);

const fields = {
  fields: Type.Array(FieldItem, { maxItems: 50, description: FIELDS_DESCRIPTION }),
  questions: Type.Array(QuestionItem, { maxItems: 100, description: QUESTIONS_DESCRIPTION }),
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

/** What a form is created with: a name and the allowed origins, the rest optional. */
const formSettings = {
  name: fields.name,
  allowedOrigins: fields.allowedOrigins,
  redirectUrl: Type.Optional(fields.redirectUrl),
  honeypotField: Type.Optional(fields.honeypotField),
  captcha: Type.Optional(fields.captcha),
  consentText: Type.Optional(fields.consentText),
  autoReply: Type.Optional(fields.autoReply),
  defaults: Type.Optional(fields.defaults),
  language: Type.Optional(fields.language),
  fields: Type.Optional(fields.fields),
  questions: Type.Optional(fields.questions),
};

export const FormCreateBody = Type.Object(formSettings, { additionalProperties: false, title: 'FormCreate' });

/** Any of the settings, and whether the form is enabled. */
export const FormUpdateBody = Type.Object(
  {
    ...Type.Partial(Type.Object(formSettings)).properties,
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
    fields: Type.Array(
      Type.Object(
        { name: Type.String({ enum: [...SHOWABLE_FIELDS] }), required: Type.Boolean() },
        { additionalProperties: false },
      ),
      { description: 'The lead fields the form shows, in order; the always-required ones included.' },
    ),
    questions: Type.Array(
      Type.Object(
        {
          key: Type.String(),
          label: Type.String(),
          type: QuestionType,
          options: Type.Union([Type.Array(Type.String()), Type.Null()]),
          required: Type.Boolean(),
        },
        { additionalProperties: false },
      ),
      { description: 'The form’s own questions, in order.' },
    ),
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
