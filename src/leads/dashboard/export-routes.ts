// "Export CSV" on the leads and work-items lists.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hidden, userOf, userPage } from '../../accounts/dashboard/session.js';
import { sendCsv } from '../../platform/http/csv-export.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { errorText } from '../../platform/web/components.js';
import { errorPage } from '../../platform/web/error-pages.js';
import { sendPage } from '../../platform/web/http.js';
import { ValidationError } from '../../shared/errors.js';
import { translator } from '../../shared/i18n/index.js';
import { styledExport } from '../export.js';
import { exportLeads, type LeadExport } from '../index.js';
import { filtersOf, queryOf } from './list-filters.js';
import { filterLabels } from './views/leads.js';

/** Every item the list's filters match (not just this page), as the API exports them. */
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
  // With the byte order mark: people open the file in Excel, which needs it to read UTF-8. A Dutch reader's Excel
  // splits cells at `;` and reads local times and national phones; the column names stay the API's field names.
  const name = stage === 'work' ? 'work-items' : 'leads';
  if (tr.locale === 'nl') {
    const styled = styledExport(data, { timeZone: user.timeZone, country: user.brandCountry });
    return sendCsv(request, reply, styled, { name, bom: true, delimiter: ';' });
  }
  return sendCsv(request, reply, data, { name, bom: true });
}

export default async function exportRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  app.get('/leads/export.csv', { schema: hidden, config: userPage }, (request, reply) =>
    exportList(deps, 'lead', request, reply),
  );
  app.get('/work-items/export.csv', { schema: hidden, config: userPage }, (request, reply) =>
    exportList(deps, 'work', request, reply),
  );
}
