// Settings > Brand (admins): the time zone the dashboard shows and takes times in, the brand's language, and the
// service's backups.
import type { FastifyInstance } from 'fastify';
import { retentionPreview } from '../../personal-data/retention.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { notice } from '../../platform/web/components.js';
import { seeOther, sendPage, text } from '../../platform/web/http.js';
import { type FieldError, ValidationError } from '../../shared/errors.js';
import { isLocale, type Locale, translator } from '../../shared/i18n/index.js';
import { findBrand, setBrandLanguage, setBrandRetention, setBrandTimeZone } from '../brands.js';
import { visitNoticesOn } from '../calendar-feeds.js';
import { adminPage, hidden, userOf } from './session.js';
import { brandSettingsPage } from './views/brand-settings.js';

/** Settings' retention card: the brand's period (or what was just sent) and what the next run would erase. */
async function retentionView(deps: RouteDeps, brandId: string, sent?: number | null) {
  const preview = await retentionPreview(deps.database, brandId);
  const next = preview.months === null ? null : { cutoff: preview.cutoff, leads: preview.leads };
  return { months: sent === undefined ? preview.months : sent, next };
}

export default async function brandRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const brandLanguage = async (brandId: string): Promise<Locale> =>
    (await findBrand(deps.database, brandId))?.language ?? 'en';

  app.get('/settings/brand', { schema: hidden, config: adminPage }, async (request, reply) => {
    const user = userOf(request);
    const message =
      text(request.query, 'done') === 'saved'
        ? notice(translator(user.locale).t('brand.notice.saved'))
        : undefined;
    const language = await brandLanguage(user.brandId);
    const backups = await deps.backups.status();
    const retention = await retentionView(deps, user.brandId);
    const view = { user, timeZone: user.timeZone, language, errors: [], message, backups, retention };
    const visitNotices = await visitNoticesOn(deps.database, user.brandId);
    return sendPage(reply, brandSettingsPage({ ...view, visitNotices }));
  });

  // Each section's form sends its own field; what is not sent stays as it is.
  app.post('/settings/brand', { schema: hidden, config: adminPage }, async (request, reply) => {
    const user = userOf(request);
    const body = request.body as Record<string, unknown> | undefined;
    const sent = (name: string) => body !== undefined && body !== null && name in body;
    const timeZone = sent('timeZone') ? text(body, 'timeZone') : undefined;
    const language = sent('language') ? text(body, 'language') : undefined;
    const retentionMonths = sent('retentionMonths') ? text(body, 'retentionMonths') : undefined;
    const errors: FieldError[] = [];
    for (const [value, save] of [
      [timeZone, () => setBrandTimeZone(deps.database, user.brandId, timeZone)],
      [language, () => setBrandLanguage(deps.database, user.brandId, language)],
      [retentionMonths, () => setBrandRetention(deps.database, user.brandId, retentionMonths)],
    ] as const) {
      if (value === undefined) continue;
      try {
        await save();
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        errors.push(...error.errors);
      }
    }
    if (errors.length) {
      const page = brandSettingsPage({
        user,
        timeZone: timeZone ?? user.timeZone,
        language: isLocale(language) ? language : await brandLanguage(user.brandId),
        errors,
        backups: await deps.backups.status(),
        retention: await retentionView(deps, user.brandId),
      });
      return sendPage(reply, page, 422);
    }
    request.log.info(
      { userId: user.userId, timeZone, language, retentionMonths },
      'brand settings changed in the dashboard',
    );
    return seeOther(reply, '/dashboard/settings/brand?done=saved');
  });
}
