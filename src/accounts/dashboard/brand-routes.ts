// Settings > Brand (admins): the brand's name, country, mail sender name and default priority, the time zone the
// dashboard shows and takes times in, the brand's language, retention, and the service's backups.
import type { FastifyInstance } from 'fastify';
import { retentionPreview } from '../../personal-data/retention.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { notice } from '../../platform/web/components.js';
import { seeOther, sendPage, text } from '../../platform/web/http.js';
import { ValidationError } from '../../shared/errors.js';
import { translator } from '../../shared/i18n/index.js';
import { type Brand, type BrandSettingsInput, findBrand, updateBrandSettings } from '../brands.js';
import { visitNoticesOn } from '../calendar-feeds.js';
import type { SessionUser } from '../sessions.js';
import { adminPage, hidden, userOf } from './session.js';
import { type BrandValues, brandSettingsPage } from './views/brand-settings.js';

/** Settings' retention card: the brand's period (or what was just sent) and what the next run would erase. */
async function retentionView(deps: RouteDeps, brandId: string, sent?: number | null) {
  const preview = await retentionPreview(deps.database, brandId);
  const next = preview.months === null ? null : { cutoff: preview.cutoff, leads: preview.leads };
  return { months: sent === undefined ? preview.months : sent, next };
}

const FIELDS = [
  'name',
  'country',
  'timeZone',
  'language',
  'mailSenderName',
  'defaultPriority',
  'retentionMonths',
] as const;

const valuesOf = (brand: Brand): BrandValues => ({
  name: brand.name,
  country: brand.defaultCountry,
  timeZone: brand.timeZone,
  language: brand.language,
  mailSenderName: brand.mailSenderName ?? '',
  defaultPriority: brand.defaultPriority,
});

async function page(
  deps: RouteDeps,
  user: SessionUser,
  brand: Brand,
  extra: Partial<Parameters<typeof brandSettingsPage>[0]>,
) {
  return brandSettingsPage({
    user,
    values: valuesOf(brand),
    errors: [],
    backups: await deps.backups.status(),
    retention: await retentionView(deps, user.brandId),
    visitNotices: await visitNoticesOn(deps.database, user.brandId),
    ...extra,
  });
}

export default async function brandRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const brandOf = async (user: SessionUser): Promise<Brand> => {
    const brand = await findBrand(deps.database, user.brandId);
    if (!brand) throw new Error(`No brand with id ${user.brandId}`);
    return brand;
  };

  app.get('/settings/brand', { schema: hidden, config: adminPage }, async (request, reply) => {
    const user = userOf(request);
    const message =
      text(request.query, 'done') === 'saved'
        ? notice(translator(user.locale).t('brand.notice.saved'))
        : undefined;
    return sendPage(reply, await page(deps, user, await brandOf(user), { message }));
  });

  // Each card's form sends its own fields; what is not sent stays as it is. Nothing is stored unless all are right.
  app.post('/settings/brand', { schema: hidden, config: adminPage }, async (request, reply) => {
    const user = userOf(request);
    const body = (request.body ?? {}) as Record<string, unknown>;
    const input: BrandSettingsInput = {};
    for (const name of FIELDS) if (Object.hasOwn(body, name)) input[name] = text(body, name);
    try {
      await updateBrandSettings(deps.database, user.brandId, input);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const brand = await brandOf(user);
      const sent = Object.fromEntries(Object.entries(input).map(([k, v]) => [k, String(v ?? '')]));
      return sendPage(
        reply,
        await page(deps, user, brand, { values: { ...valuesOf(brand), ...sent }, errors: error.errors }),
        422,
      );
    }
    request.log.info(
      { userId: user.userId, changed: Object.keys(input) },
      'brand settings changed in the dashboard',
    );
    return seeOther(reply, '/dashboard/settings/brand?done=saved');
  });
}
