// "Export CSV" on the leads and work-items lists.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { userOf } from '../../accounts/dashboard/session.js';
import { sendCsv } from '../../platform/http/csv-export.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { errorPage } from '../../platform/web/error-pages.js';
import { sendPage } from '../../platform/web/http.js';
import { ValidationError } from '../../shared/errors.js';
import { exportLeads, type LeadExport } from '../index.js';
import { filtersOf, queryOf } from './list-filters.js';

const hidden = { hide: true };
const userPage = { page: 'user' as const };

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
  if (!data) {
    const message = `Nothing was exported: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}.`;
    return sendPage(reply, errorPage('Cannot export these filters', message, user), 422);
  }
  // With the byte order mark: people open the file in Excel, which needs it to read UTF-8.
  return sendCsv(request, reply, data, { name: stage === 'work' ? 'work-items' : 'leads', bom: true });
}

export default async function exportRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  app.get('/leads/export.csv', { schema: hidden, config: userPage }, (request, reply) =>
    exportList(deps, 'lead', request, reply),
  );
  app.get('/work-items/export.csv', { schema: hidden, config: userPage }, (request, reply) =>
    exportList(deps, 'work', request, reply),
  );
}
