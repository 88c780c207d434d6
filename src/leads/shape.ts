// The lead's read shapes. Each field names its SQL expression and its TypeBox schema; from that come the SELECT
// lists, the row-to-object mapping, the INSERT of fields taken from the input, the API's response schemas and, as
// their Static types, the domain types. The fields of a lead's body (the job's, its customer's, its address's)
// come from the field table (fields.ts), each where the table says (listed, exported); the lead's own fields
// (ids, state, times, where it came from) are declared here.
import { type Static, type TNull, type TSchema, type TUnion, Type } from '@sinclair/typebox';
import { AttachmentSchema } from '../attachments/attachments.js';
import { NullableString, Timestamp } from '../shared/json-schema.js';
import {
  LEAD_FIELD_TABLE,
  type LeadFieldName,
  type LeadFieldSpec,
  type LeadFieldsWhere,
  leadFieldsWhere,
  type ReadSchemaOf,
  readNameOf,
  readSchemaOf,
} from './fields.js';
import { type LeadInput, SUBMITTED_FIELDS } from './input.js';
import { ALL_STATUSES, type Status } from './states.js';

interface Field<S extends TSchema = TSchema> {
  /** SQL over the aliases l (leads), c (customers), a (addresses), asg (the assigned user, left joined). */
  sql: string;
  schema: S;
  /** Stored as epoch milliseconds, read as ISO 8601. */
  time?: boolean;
  /** Stored as JSON text, read as the value it holds. */
  json?: boolean;
  /** Stored on create from this input field, into the leads column named by `sql` (without `l.`). */
  input?: keyof LeadInput;
}

/** A nested object that is null as a whole when its first field is null (a left join that found nothing). */
interface NullableGroup<F extends { [k: string]: Field } = { [k: string]: Field }> {
  nullable: F;
  description: string;
}

type Shape = Record<string, Field | { [k: string]: Field } | NullableGroup>;

const field = <S extends TSchema>(sql: string, schema: S, options: Omit<Field, 'sql' | 'schema'> = {}) => ({
  sql,
  schema,
  ...options,
});
const time = (sql: string, description?: string) => field(sql, Timestamp(description), { time: true });
const nullableTime = (sql: string, description?: string) =>
  field(sql, NullableString({ format: 'date-time', ...(description ? { description } : {}) }), {
    time: true,
  });

// One `enum` keyword rather than a union of literals: what the document has always said, and fast to serialise.
const SubmittedSchema = Type.Object(
  Object.fromEntries(SUBMITTED_FIELDS.map((f) => [f, NullableString()])) as {
    [K in (typeof SUBMITTED_FIELDS)[number]]: ReturnType<typeof NullableString>;
  },
  {
    additionalProperties: false,
    title: 'Submitted',
    description:
      'The contact and address exactly as submitted with this lead (trimmed; phone in E.164, country upper case), null where absent. The linked customer and address may differ: linking fills only their empty fields.',
  },
);

const nullableObject = <S extends TSchema>(schema: S, description: string) =>
  Type.Union([schema, Type.Null()], { description });
const ExtraFieldsSchema = nullableObject(
  Type.Record(Type.String(), Type.String()),
  'Fields a website form sent that are not lead fields, name -> value (at most 20); null when none.',
);
const AttributionSchema = nullableObject(
  Type.Object(
    {
      utm_source: Type.Optional(Type.String()),
      utm_medium: Type.Optional(Type.String()),
      utm_campaign: Type.Optional(Type.String()),
      utm_term: Type.Optional(Type.String()),
      utm_content: Type.Optional(Type.String()),
      referrer: Type.Optional(Type.String()),
      landingPage: Type.Optional(Type.String()),
    },
    { additionalProperties: false },
  ),
  'Campaign attribution a website form sent (utm_*, referrer, landingPage); null when none.',
);
const ConsentSchema = nullableObject(
  Type.Object({ text: Type.String(), at: Timestamp() }, { additionalProperties: false }),
  'The consent text the person agreed to on a website form, and when; null when none was asked.',
);

const StatusSchema = Type.Unsafe<Status>({ type: 'string', enum: [...ALL_STATUSES] });

type Table = typeof LEAD_FIELD_TABLE;
/** A field's name where it is read (customerName is the customer's `name`). */
type ReadName<K extends LeadFieldName> = Table[K] extends { of: infer O extends string } ? O : K;
/** The read fields of the table's fields that have every property of M, by read name. */
type ReadFields<M> = {
  [K in LeadFieldsWhere<M> as ReadName<K>]: Field<ReadSchemaOf<Table[K]>>;
};

/**
 * The table's fields with every property of `match` (fields.ts), as read fields over `alias` (l, c or a), in the
 * table's order. A job field is stored on create from the input field of its name.
 */
function readFields<const M extends Partial<LeadFieldSpec>>(alias: 'l' | 'c' | 'a', match: M): ReadFields<M> {
  return Object.fromEntries(
    leadFieldsWhere(match).map((name) => {
      const f: LeadFieldSpec = LEAD_FIELD_TABLE[name];
      const input = f.group === 'job' ? { input: name } : {};
      return [readNameOf(name), field(`${alias}.${f.column}`, readSchemaOf(f), input)];
    }),
  ) as ReadFields<M>;
}

// The job's fields; title, description and priority where the contract (spec 2.2) puts them, the rest after.
const { title, description, priority, ...moreJob } = readFields('l', { group: 'job' });

/** The single-lead read (GET /v1/leads/{id}), apart from its status history. */
const DETAIL = {
  id: field('l.id', Type.String({ description: 'wrk_… identifier; keep it to read the lead later.' })),
  brandId: field('l.brand_id', Type.String()),
  customerId: field('l.customer_id', Type.String()),
  addressId: field('l.address_id', Type.String()),
  title,
  description,
  status: field('l.status', StatusSchema),
  priority,
  source: field(
    'l.source',
    Type.String({
      description:
        '"website" for leads created through the API, "form" for website forms, "phone" or "dashboard" for leads typed in the dashboard.',
    }),
  ),
  receivedAt: time('l.received_at'),
  createdAt: time('l.created_at'),
  ...moreJob,
  sourceKeyName: field(
    'l.source_key_name',
    NullableString({ description: 'Name of the API key the lead came in with.' }),
  ),
  updatedAt: time('l.updated_at'),
  scheduledAt: nullableTime('l.scheduled_at'),
  scheduledFor: nullableTime(
    'l.scheduled_for',
    'When the visit is planned (work items); null until planned. Set with PATCH /v1/leads/{id}.',
  ),
  durationMinutes: field(
    'l.duration_minutes',
    Type.Unsafe<number | null>({
      type: ['integer', 'null'],
      minimum: 15,
      maximum: 1440,
      description: 'How long the visit takes, in minutes (15–1440); null until planned.',
    }),
  ),
  assignee: {
    nullable: {
      id: field('asg.id', Type.String({ description: 'usr_… of the brand.' })),
      name: field(
        'coalesce(asg.name, asg.email)',
        Type.String({ description: 'Their display name, or their email when they have none.' }),
      ),
    },
    description: 'Who does the visit; null: nobody yet.',
  },
  submitted: field('l.submitted', SubmittedSchema, { json: true }),
  sourceFormId: field(
    'l.source_form_id',
    NullableString({ description: 'frm_… of the website form the lead came in through (source "form").' }),
  ),
  sourceFormName: field('l.source_form_name', NullableString({ description: 'That form’s name then.' })),
  sourceUserId: field(
    'l.source_user_id',
    NullableString({
      description: 'usr_… who typed the lead in the dashboard (source "phone" or "dashboard").',
    }),
  ),
  sourceUserName: field('l.source_user_name', NullableString({ description: 'That user’s name then.' })),
  extraFields: field('l.extra_fields', ExtraFieldsSchema, { json: true }),
  attribution: field('l.attribution', AttributionSchema, { json: true }),
  consent: field('l.consent', ConsentSchema, { json: true }),
  customer: {
    id: field('c.id', Type.String()),
    type: field(
      'c.type',
      Type.Unsafe<'person' | 'business'>({ type: 'string', enum: ['person', 'business'] }),
    ),
    ...readFields('c', { group: 'customer' }),
  },
  address: {
    id: field('a.id', Type.String()),
    ...readFields('a', { group: 'address' }),
  },
} satisfies Shape;

const {
  title: listedTitle,
  priority: listedPriority,
  ...moreListedJob
} = readFields('l', {
  group: 'job',
  listed: true,
});

/** A lead in a list (spec 2.3, plus updatedAt), with the table's listed fields. */
const LIST_ITEM = {
  id: DETAIL.id,
  title: listedTitle,
  status: DETAIL.status,
  priority: listedPriority,
  receivedAt: DETAIL.receivedAt,
  updatedAt: DETAIL.updatedAt,
  source: DETAIL.source,
  sourceFormName: DETAIL.sourceFormName,
  ...moreListedJob,
  customer: { id: DETAIL.customer.id, ...readFields('c', { group: 'customer', listed: true }) },
  address: { id: DETAIL.address.id, ...readFields('a', { group: 'address', listed: true }) },
  attachmentCount: field(
    'l.attachment_count',
    Type.Integer({
      minimum: 0,
      description: 'How many photos and files the lead has (GET /v1/leads/{id}/attachments).',
    }),
  ),
} satisfies Shape;

const WORK_ITEM = {
  ...LIST_ITEM,
  scheduledAt: nullableTime('l.scheduled_at', 'When the item was scheduled.'),
  scheduledFor: DETAIL.scheduledFor,
  durationMinutes: DETAIL.durationMinutes,
  assignee: DETAIL.assignee,
} satisfies Shape;

/** The fields of POST /v1/leads's answer (spec 2.2), all known without reading the lead back. */
export const CREATED_FIELDS = [
  'id',
  'brandId',
  'customerId',
  'addressId',
  'title',
  'description',
  'status',
  'priority',
  'source',
  'receivedAt',
  'createdAt',
] as const;

type SchemaOf<S extends Shape> = {
  [K in keyof S]: S[K] extends Field<infer T>
    ? T
    : S[K] extends NullableGroup<infer F>
      ? TUnion<[ReturnType<typeof objectOf<F>>, TNull]>
      : S[K] extends { [k: string]: Field }
        ? ReturnType<typeof objectOf<S[K]>>
        : never;
};

const isNullableGroup = (f: Shape[string]): f is NullableGroup => 'nullable' in f && 'description' in f;

function objectOf<S extends { [k: string]: Field }>(shape: S, options: { title?: string } = {}) {
  const properties = {} as { [K in keyof S]: S[K]['schema'] };
  for (const [name, f] of Object.entries(shape)) (properties as Record<string, TSchema>)[name] = f.schema;
  return Type.Object(properties, { additionalProperties: false, ...options });
}

function schemaOf<S extends Shape>(shape: S, options: { title: string }) {
  const properties: Record<string, TSchema> = {};
  for (const [name, f] of Object.entries(shape)) {
    properties[name] =
      'sql' in f
        ? (f as Field).schema
        : isNullableGroup(f)
          ? Type.Union([objectOf(f.nullable), Type.Null()], { description: f.description })
          : objectOf(f as { [k: string]: Field });
  }
  return Type.Object(properties as SchemaOf<S>, { additionalProperties: false, ...options });
}

/** Who did something: an API key, a signed-in dashboard user or a website form (see Actor). */
export const ActorSchema = Type.Object(
  {
    type: Type.Unsafe<'key' | 'user' | 'form'>({ type: 'string', enum: ['key', 'user', 'form'] }),
    id: Type.String({ description: 'key_…, usr_… or frm_…' }),
    name: Type.String({
      description:
        "The key's or form's name, or the user's name (their email while they have none), as it was then.",
    }),
  },
  { additionalProperties: false, title: 'Actor' },
);

const StatusHistory = Type.Array(
  Type.Object(
    {
      status: StatusSchema,
      at: Timestamp(),
      actor: Type.Union([ActorSchema, Type.Null()], {
        description:
          'Who made the change. null only for entries written before actors were recorded whose key, user or form could not be found any more.',
      }),
      reason: NullableString({
        description: 'Why the lead was cancelled, when a reason was given; null on every other entry.',
      }),
    },
    { additionalProperties: false },
  ),
  { description: 'Every state the lead has been in, oldest first, with who moved it there.' },
);

export const LeadDetailSchema = Type.Object(
  {
    ...schemaOf(DETAIL, { title: 'Lead' }).properties,
    statusHistory: StatusHistory,
    attachments: Type.Array(AttachmentSchema, {
      description:
        'Its photos and files, oldest first (metadata; the bytes: GET /v1/attachments/{id}/content).',
    }),
  },
  { additionalProperties: false, title: 'Lead' },
);
export const LeadListItemSchema = schemaOf(LIST_ITEM, { title: 'LeadListItem' });
export const WorkItemListItemSchema = schemaOf(WORK_ITEM, { title: 'WorkItemListItem' });
export const CreatedLeadSchema = Type.Pick(LeadDetailSchema, CREATED_FIELDS, {
  additionalProperties: false,
  title: 'CreatedLead',
});

export type LeadDetail = Static<typeof LeadDetailSchema>;
export type LeadListItem = Static<typeof LeadListItemSchema>;
export type WorkItemListItem = Static<typeof WorkItemListItemSchema>;
export type CreatedLead = Static<typeof CreatedLeadSchema>;
/** An item of either list: work items also carry scheduledAt and the visit's planning. */
export type AnyListItem = LeadListItem &
  Partial<Pick<WorkItemListItem, 'scheduledAt' | 'scheduledFor' | 'durationMinutes' | 'assignee'>>;

/** A SELECT list and a mapper from its rows to objects of the shape. */
export interface Projection<T> {
  /** `expr as "alias", …` */
  readonly columns: string;
  map(row: Record<string, unknown>): T;
  /**
   * The same object from values already as the API shows them (times in ISO 8601, JSON as its value), by the
   * same aliases: a lead a create assembles from what it wrote, which no read gave.
   */
  build(values: Record<string, unknown>): T;
}

function projection<T>(shape: Shape): Projection<T> {
  // Each column of the SELECT list: where its value goes (a top-level field, or `key` of the nested `group`), and
  // how it is read. Flat and precomputed, so mapping a row allocates only the objects it returns.
  const parts: {
    alias: string;
    sql: string;
    group: string | undefined;
    key: string;
    time: boolean;
    json: boolean;
  }[] = [];
  const nullableGroups: { name: string; first: string }[] = [];
  for (const [name, f] of Object.entries(shape)) {
    const nested =
      'sql' in f ? { [name]: f as Field } : isNullableGroup(f) ? f.nullable : (f as { [k: string]: Field });
    if (isNullableGroup(f)) nullableGroups.push({ name, first: Object.keys(f.nullable)[0]! });
    for (const [inner, g] of Object.entries(nested)) {
      const top = 'sql' in f;
      parts.push({
        alias: top ? name : `${name}.${inner}`,
        sql: g.sql,
        group: top ? undefined : name,
        key: top ? name : inner,
        time: g.time === true,
        json: g.json === true,
      });
    }
  }
  // Keys in the shape's order, nested objects where their first field is: the order of the response schemas, so
  // JSON.stringify of an item gives the bytes their serialiser gives (the lists' ready JSON relies on it).
  const assemble = (row: Record<string, unknown>, read: boolean): T => {
    const out: Record<string, unknown> = {};
    for (const p of parts) {
      let value = row[p.alias];
      if (read) {
        // PostgreSQL's int8 parser gives numbers too (database.ts); SQLite gives numbers.
        if (p.time) {
          if (value !== null) value = new Date(value as number).toISOString();
        } else if (p.json) value = JSON.parse(value as string);
      }
      if (p.group === undefined) out[p.key] = value;
      else {
        let group = out[p.group] as Record<string, unknown> | undefined;
        if (group === undefined) {
          group = {};
          out[p.group] = group;
        }
        group[p.key] = value;
      }
    }
    for (const g of nullableGroups) {
      if ((out[g.name] as Record<string, unknown>)[g.first] === null) out[g.name] = null;
    }
    return out as T;
  };
  return {
    columns: parts.map((p) => `${p.sql} as "${p.alias}"`).join(', '),
    map: (row) => assemble(row, true),
    build: (values) => assemble(values, false),
  };
}

export const DETAIL_PROJECTION = projection<Omit<LeadDetail, 'statusHistory' | 'attachments'>>(DETAIL);
export const LIST_PROJECTION = projection<LeadListItem>(LIST_ITEM);
export const WORK_ITEM_PROJECTION = projection<WorkItemListItem>(WORK_ITEM);

/** What a work item's list item holds beyond the lead's, in its order: appended to a lead's ready JSON. */
export const WORK_ITEM_EXTRA_PROJECTION = projection<Record<string, unknown>>(
  Object.fromEntries(Object.entries(WORK_ITEM as Shape).filter(([name]) => !(name in LIST_ITEM))),
);

/**
 * An export row (the CSV exports): every field of the list item in the list's order, its customer and address
 * with every exported field of theirs, then the job's exported fields the list does not have (description,
 * category, budget). Work items add, at the end, every field their list item has beyond the lead's (scheduledAt,
 * the visit's planning with the assignee as assigneeId and assigneeName, and whatever the list gains later). Every listed field is exported (test/domain/fields.test.ts).
 */
// The count of attachments is the list's, not the export's (whose columns stay the field table's).
const { attachmentCount: _count, ...LISTED_FOR_EXPORT } = LIST_ITEM;
const LEAD_EXPORT = {
  ...LISTED_FOR_EXPORT,
  customer: { id: DETAIL.customer.id, ...readFields('c', { group: 'customer', exported: true }) },
  address: { id: DETAIL.address.id, ...readFields('a', { group: 'address', exported: true }) },
  ...readFields('l', { group: 'job', listed: false, exported: true }),
} satisfies Shape;
const WORK_ITEM_EXPORT: Shape = {
  ...LEAD_EXPORT,
  ...Object.fromEntries(Object.entries(WORK_ITEM as Shape).filter(([name]) => !(name in LIST_ITEM))),
};

/** A column of a flat table of a shape: its name in the header, and where its value is in a mapped row. */
interface FlatColumn {
  name: string;
  path: readonly [string] | readonly [string, string];
}

/**
 * The columns of a flat table of the shape, in its order: `title`, `customer.email`, …; a nullable group's fields
 * as one column each named group + Field (`assigneeId`, `assigneeName`, as the contract's Export names them), empty
 * when the group is null. A nullable group is walked through its `nullable` fields, never its own keys: those gave
 * the columns `assignee.nullable` and `assignee.description`, empty on every row (issue 30).
 */
function flatColumnsOf(shape: Shape): FlatColumn[] {
  return Object.entries(shape).flatMap(([name, f]): FlatColumn[] => {
    if ('sql' in f) return [{ name, path: [name] }];
    if (isNullableGroup(f)) {
      return Object.keys(f.nullable).map((inner) => ({
        name: `${name}${inner.charAt(0).toUpperCase()}${inner.slice(1)}`,
        path: [name, inner],
      }));
    }
    return Object.keys(f).map((inner) => ({ name: `${name}.${inner}`, path: [name, inner] }));
  });
}

/** An export's SELECT list and row mapper, its column names, and each column's path into a mapped row. */
export interface ExportShape {
  projection: Projection<Record<string, unknown>>;
  columns: readonly string[];
  paths: readonly (readonly string[])[];
}

function exportShape(shape: Shape): ExportShape {
  const columns = flatColumnsOf(shape);
  return {
    projection: projection(shape),
    columns: columns.map((c) => c.name),
    paths: columns.map((c) => c.path),
  };
}

export const LEAD_EXPORT_SHAPE: ExportShape = exportShape(LEAD_EXPORT);
export const WORK_ITEM_EXPORT_SHAPE: ExportShape = exportShape(WORK_ITEM_EXPORT);

/**
 * The aliases a create assembles its lead's row under (create.ts; see Projection.build): each job field it takes
 * from the input, with the input field; and each field of the customer and of the address (`customer.name`, …),
 * by its name there.
 */
export const CREATE_ROW_ALIASES: {
  readonly input: readonly { alias: string; input: keyof LeadInput }[];
  readonly customer: readonly (readonly [name: string, alias: string])[];
  readonly address: readonly (readonly [name: string, alias: string])[];
} = {
  input: Object.entries(DETAIL as Shape).flatMap(([name, f]) =>
    'sql' in f && (f as Field).input ? [{ alias: name, input: (f as Field).input! }] : [],
  ),
  customer: Object.keys(DETAIL.customer).map((name) => [name, `customer.${name}`] as const),
  address: Object.keys(DETAIL.address).map((name) => [name, `address.${name}`] as const),
};

/** The leads columns a create fills straight from the input, with the input field each comes from. */
export const INPUT_COLUMNS: readonly { column: string; input: keyof LeadInput }[] = (
  Object.values(DETAIL as Shape).filter((f) => 'sql' in f) as Field[]
).flatMap((f) => (f.input ? [{ column: f.sql.replace(/^l\./, ''), input: f.input }] : []));

/** The FROM clause every lead read shares. */
export const LEAD_FROM =
  'from leads l join customers c on c.id = l.customer_id join addresses a on a.id = l.address_id left join users asg on asg.id = l.assignee_id';
