// The customer page's "Download personal data": a ZIP with the export's JSON and the attachments' bytes, for admins
// (like a GDPR export in other CRMs: it hands over everything about a person at once). A member gets the
// admin-only page (403) from the access hook before anything is read.
import type { FastifyInstance } from 'fastify';
import { adminPage, hidden, userOf } from '../../accounts/dashboard/session.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { pathParam } from '../../platform/web/http.js';
import { exportFileName, exportPersonalData } from '../export.js';
import { personalDataZip } from '../zip.js';

export default async function personalDataRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  app.get(
    '/customers/:id/personal-data.zip',
    { schema: hidden, config: adminPage },
    async function downloadPersonalData(request, reply) {
      const user = userOf(request);
      const id = pathParam(request, 'id');
      const actor = { type: 'user' as const, id: user.userId, name: user.name || user.email };
      const built = await exportPersonalData(deps.database, user.brandId, id, actor, request.log);
      const zip = personalDataZip(deps.database, deps.storage, built);
      zip.on('error', (error) =>
        request.log.error({ err: error, customerId: id }, 'personal data ZIP broke off'),
      );
      return reply
        .type('application/zip')
        .header('Content-Disposition', `attachment; filename="${exportFileName(id, 'zip')}"`)
        .header('Cache-Control', 'no-store')
        .send(zip);
    },
  );
}
