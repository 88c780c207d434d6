// Settings: API keys (admins only), users (everyone sees the people and switches their own new-lead emails;
// admins add, invite, change roles and remove) and the brand (admins), one plugin each.
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../platform/http/deps.js';
import { isAdmin } from '../users.js';
import apiKeyRoutes from './api-key-routes.js';
import brandRoutes from './brand-routes.js';
import { hidden, userOf, userPage } from './session.js';
import userRoutes from './user-routes.js';
import visitNoticeRoutes from './visit-notice-routes.js';

export default async function settingsRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  // Admins start at API keys; members at Users, the one settings page they use (their new-lead emails).
  app.get('/settings', { schema: hidden, config: userPage }, async (request, reply) =>
    reply.redirect(isAdmin(userOf(request)) ? '/dashboard/settings/api-keys' : '/dashboard/settings/users'),
  );
  await app.register(apiKeyRoutes, { deps });
  await app.register(userRoutes, { deps });
  await app.register(brandRoutes, { deps });
  await app.register(visitNoticeRoutes, { deps });
}
