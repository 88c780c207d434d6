// Spam: the brand's spam leads (honeypot filled), "Not spam" to release one as a normal lead, and Delete.
import type { FastifyInstance } from 'fastify';
import { hidden, userOf, userPage } from '../../accounts/dashboard/session.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { notice } from '../../platform/web/components.js';
import { html } from '../../platform/web/html.js';
import { pathParam, seeOther, sendPage, text, withQuery } from '../../platform/web/http.js';
import { richText } from '../../platform/web/messages.js';
import { NotFoundError } from '../../shared/errors.js';
import { type Translator, translator } from '../../shared/i18n/index.js';
import { isCursor } from '../../shared/paging.js';
import { getLead } from '../index.js';
import { deleteSpam, listSpamLeads, releaseSpam } from '../spam.js';
import { SPAM_PATH, spamPage } from './views/spam.js';

const PER_PAGE = 50;

/** What the page says after an action: which lead "Not spam" released (with a link), or that spam was deleted. */
async function spamNotice(
  database: RouteDeps['database'],
  brandId: string,
  tr: Translator,
  query: unknown,
): Promise<ReturnType<typeof notice> | undefined> {
  let message: ReturnType<typeof notice> | undefined;
  const released = text(query, 'released');
  if (released) {
    // The lead as it is now: gone from here, in the lead list (or moved on, or gone: then no link).
    const lead = await getLead(database, brandId, released).catch(() => undefined);
    if (lead) {
      message = notice(
        richText(tr, 'spam.notice.released', {
          title: lead.title,
          link: (inner) => html`<a href="/dashboard/leads/${lead.id}">${inner}</a>`,
        }),
      );
    }
  } else if (text(query, 'done') === 'deleted') {
    message = notice(tr.t('spam.notice.deleted'));
  }
  return message;
}

export default async function spamRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const { database, storage } = deps;

  app.get('/spam', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const tr = translator(user.locale);
    const cursor = text(request.query, 'cursor');
    const page = await listSpamLeads(database, user.brandId, {
      limit: PER_PAGE,
      order: 'desc',
      ...(isCursor(cursor) ? { cursor } : {}),
    });
    const message = await spamNotice(database, user.brandId, tr, request.query);
    return sendPage(
      reply,
      spamPage({
        user,
        leads: page.data,
        first: !isCursor(cursor),
        olderHref: page.nextCursor ? withQuery(SPAM_PATH, { cursor: page.nextCursor }) : undefined,
        message,
      }),
    );
  });

  app.post('/spam/:id/release', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const id = pathParam(request, 'id');
    try {
      await releaseSpam(database, user.brandId, id);
    } catch (error) {
      // Pressed twice, or by two people: the second finds a lead, not spam, and is told what the first did.
      if (!(error instanceof NotFoundError)) throw error;
      await getLead(database, user.brandId, id);
      return seeOther(reply, withQuery(SPAM_PATH, { released: id }));
    }
    request.log.info({ leadId: id, userId: user.userId }, 'spam released ("Not spam") in the dashboard');
    return seeOther(reply, withQuery(SPAM_PATH, { released: id }));
  });

  app.post('/spam/:id/delete', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const id = pathParam(request, 'id');
    await deleteSpam(database, user.brandId, id, storage);
    request.log.info({ leadId: id, userId: user.userId }, 'spam deleted in the dashboard');
    return seeOther(reply, `${SPAM_PATH}?done=deleted`);
  });
}
