// "Export CSV" on the leads and work-items lists.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hidden, userOf, userPage } from '../../accounts/dashboard/session.js';
import { type CsvDelimiter, sendCsv } from '../../platform/http/csv-export.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { errorText } from '../../platform/web/components.js';
import { errorPage } from '../../platform/web/error-pages.js';
import { sendPage } from '../../platform/web/http.js';
import { ValidationError } from '../../shared/errors.js';
import { type Locale, translator } from '../../shared/i18n/index.js';
import { styledExport } from '../export.js';
import { exportLeads, type LeadExport } from '../index.js';
import { filtersOf, queryOf } from './list-filters.js';
import { filterLabels } from './views/leads.js';

/** Every item the list's filters match (not just this page), with the API export's columns. */
async function exportList(
  deps: RouteDeps,
  stage: 'lead' | 'work',
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const user = userOf(request);
  const { filters, errors, listStage } = filtersOf(request, stage);
  let data: LeadExport | undefined;
  if (!errors.length) {
    try {
      data = await exportLeads(deps.database, user.brandId, listStage, queryOf(filters));
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      errors.push(...error.errors);
    }
  }
  const tr = translator(user.locale);
  if (!data) {
    const labels = filterLabels(tr);
    const problems = errors.map((e) => errorText(tr, e, labels[e.field] ?? e.field)).join(' ');
    const page = errorPage(
      { title: 'leads.export.error.title', message: 'leads.export.error.message', values: { problems } },
      user,
      user.locale,
    );
    return sendPage(reply, page, 422);
  }
  // Made for the reader's spreadsheet: times in the brand's zone and phones as dialled there ("06 12345678", which
  // a spreadsheet keeps as text, with its 0), as the dashboard shows them in either language; cells split at `;`
  // for a Dutch reader (a Dutch Excel opens a `,` file as one column), at `,` for an English one. With the byte
  // order mark: Excel needs it to read UTF-8 (accents) when a file is opened. The column names stay the API's.
  const name = stage === 'work' ? 'work-items' : 'leads';
  const styled = styledExport(data, { timeZone: user.timeZone, country: user.brandCountry });
  return sendCsv(request, reply, styled, { name, bom: true, delimiter: CSV_DELIMITER[tr.locale] });
}

/** What separates cells in the dashboard's export, by the reader's language (their spreadsheet's list separator). */
const CSV_DELIMITER: Record<Locale, CsvDelimiter> = { nl: ';', en: ',' };

export default async function exportRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  app.get('/leads/export.csv', { schema: hidden, config: userPage }, (request, reply) =>
    exportList(deps, 'lead', request, reply),
  );
  app.get('/work-items/export.csv', { schema: hidden, config: userPage }, (request, reply) =>
    exportList(deps, 'work', request, reply),
  );
}
