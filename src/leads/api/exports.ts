// GET /v1/exports/leads.csv and /v1/exports/work-items.csv: every item a list's filters match, as one CSV file.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { sendCsv } from '../../platform/http/csv-export.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { principalOf } from '../../platform/http/plugins/auth.js';
import { scopedRoute } from '../../platform/http/route.js';
import { type LeadGroup, leadFieldsWhere, readNameOf } from '../fields.js';
import { exportLeads } from '../index.js';
import { LEAD_EXPORT_SHAPE, WORK_ITEM_EXPORT_SHAPE } from '../shape.js';
import { listQueryFrom } from './list-query.js';
import { LeadListQuerySchema, WorkItemListQuerySchema } from './schemas.js';

/**
 * A list's query parameters without its paging (an export has every matching item: limit= and cursor= are a 422
 * like any unknown parameter), plus `bom`. Built from the list schema, so a filter the list gains the export has.
 */
function exportQuery<T extends TObject>(list: T) {
  const { limit: _limit, cursor: _cursor, ...filters } = list.properties as Record<string, TSchema>;
  return Type.Object(
    {
      ...(filters as Omit<T['properties'], 'limit' | 'cursor'>),
      bom: Type.Optional(
        Type.Boolean({
          default: false,
          description:
            'true: start the file with a UTF-8 byte order mark, which Excel needs to read UTF-8 when the file is opened with a double click. Off by default, as CSV readers in code mostly take it for part of the first column name.',
        }),
      ),
    },
    { additionalProperties: false },
  );
}

const LeadExportQuerySchema = exportQuery(LeadListQuerySchema);
const WorkItemExportQuerySchema = exportQuery(WorkItemListQuerySchema);

const csvResponse = (what: string) =>
  ({
    description: `${what} as RFC 4180 CSV (UTF-8, CRLF line ends, a header row of column names), sent as a download (Content-Disposition: attachment).`,
    content: { 'text/csv': { schema: { type: 'string' } } },
  }) as unknown as TSchema;

/** The exported fields of a group that the list item does not have, by their read names, in code quotes. */
const exportedOnly = (group: LeadGroup) =>
  leadFieldsWhere({ group, listed: false, exported: true }).map((name) => `\`${readNameOf(name)}\``);
const inWords = (items: string[]) =>
  items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
const EXPORTED_ONLY = [
  ...(exportedOnly('customer').length ? [`the customer’s ${inWords(exportedOnly('customer'))}`] : []),
  ...(exportedOnly('address').length ? [`the address’s ${inWords(exportedOnly('address'))}`] : []),
  ...(exportedOnly('job').length ? [`then ${exportedOnly('job').join(', ')}`] : []),
].join(', ');

/** The columns work items have beyond a lead's, in code quotes. */
const WORK_ITEM_ONLY = WORK_ITEM_EXPORT_SHAPE.columns
  .slice(LEAD_EXPORT_SHAPE.columns.length)
  .map((column) => `\`${column}\``)
  .join(', ');

const DESCRIPTION =
  'Streams every item the filters match, in the order asked for, as one CSV file: the same parameters as the list, without `limit` and `cursor` (either is a 422). Counts as one read against the rate limit.\n\n' +
  `Columns, in this order: the list item’s fields with nested ones named with a dot (\`customer.email\`, \`address.postalCode\`), ${EXPORTED_ONLY}; work items add their own fields at the end (${WORK_ITEM_ONLY}: the visit's planning, the assignee as its id and name). Times are ISO 8601 UTC; phones E.164; an empty cell is null.\n\n` +
  "A cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a `'` in front, so a spreadsheet shows it as text instead of running it as a formula; a phone number in E.164 (`+` and digits only) is left as it is. " +
  'Errors found before the file starts (a bad filter, the database unreachable) are problem+json; an error after that cuts the connection, so the download is incomplete rather than silently short.';

export default async function exportRoutes(instance: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  const exportOf = (query: Static<typeof LeadExportQuerySchema>) => {
    const { bom, ...filters } = query;
    const { limit: _limit, cursor: _cursor, ...rest } = listQueryFrom(filters);
    return { bom: bom === true, query: rest };
  };

  app.get(
    '/v1/exports/leads.csv',
    scopedRoute({
      scope: 'leads:read',
      errors: [422],
      schema: {
        operationId: 'exportLeads',
        tags: ['Leads'],
        summary: 'Export leads as CSV',
        description: DESCRIPTION,
        querystring: LeadExportQuerySchema,
        response: { 200: csvResponse('The leads') },
      },
    }),
    async (request, reply) => {
      const brandId = principalOf(request).brandId;
      const { bom, query } = exportOf(request.query);
      const data = await exportLeads(deps.database, brandId, 'lead', query);
      return sendCsv(request, reply, data, { name: 'leads', bom });
    },
  );

  app.get(
    '/v1/exports/work-items.csv',
    scopedRoute({
      scope: 'work-items:read',
      errors: [422],
      schema: {
        operationId: 'exportWorkItems',
        tags: ['Work items'],
        summary: 'Export work items as CSV',
        description: DESCRIPTION,
        querystring: WorkItemExportQuerySchema,
        response: { 200: csvResponse('The work items') },
      },
    }),
    async (request, reply) => {
      const brandId = principalOf(request).brandId;
      const { bom, query } = exportOf(request.query);
      const data = await exportLeads(deps.database, brandId, 'work', query);
      return sendCsv(request, reply, data, { name: 'work-items', bom });
    },
  );
}
