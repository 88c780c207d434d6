// The dashboard's lead pages, one plugin per page group: the lists and their CSV exports, one lead's page, its
// state changes, visit, notes and files, typed-in and edited leads, spam, and planning.
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../platform/http/deps.js';
import attachmentRoutes from './attachment-routes.js';
import leadEntryRoutes from './entry-routes.js';
import exportRoutes from './export-routes.js';
import leadPageRoutes from './lead-routes.js';
import listRoutes from './list-routes.js';
import noteRoutes from './note-routes.js';
import planningRoutes from './planning-routes.js';
import spamRoutes from './spam-routes.js';
import statusRoutes from './status-routes.js';
import visitRoutes from './visit-routes.js';

export default async function leadRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  for (const routes of [
    listRoutes,
    exportRoutes,
    leadPageRoutes,
    statusRoutes,
    visitRoutes,
    noteRoutes,
    leadEntryRoutes,
    spamRoutes,
    planningRoutes,
    attachmentRoutes,
  ]) {
    await app.register(routes, { deps });
  }
}
