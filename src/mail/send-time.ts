// Mails written when they are sent. A mail that carries a one-time link (a password reset, an invitation) is queued
// without its text: the outbox row names the row it is made from (send_time_ref) and the worker asks that mail's
// renderer for it just before sending. The renderer makes the link's token then, stores only its hash and puts the
// token in the mail, so no usable link is ever at rest in the database, queued or sent. No key is needed to do so:
// nothing for several instances to share, nothing a restart loses (the next attempt makes a new token, replacing the
// last). Why not a token derived from, or encrypted with, a server key: docs/dashboard.md, "One-time links".
import type { Store, Tx } from '../platform/db/store.js';
import type { EmailJob } from './outbox.js';
import { deleteClaimedEmail, holdsEmail } from './queries.js';
import type { RenderedMail } from './templates/layout.js';

/**
 * Writes a mail from the row `ref` names, in the worker's write, at `now`; null when it is no longer needed (the
 * link was used, replaced, withdrawn or has expired), and the mail is then dropped unsent. It may write (the hash of
 * the token it puts in the link) and must be cheap: the mail is sent once this write commits.
 */
export type SendTimeRenderer = (tx: Tx, ref: string, now: number) => Promise<RenderedMail | null>;

/** The renderers by the `kind` of the mails they write; the composition gives them to the mail worker. */
export type SendTimeRenderers = Readonly<Record<string, SendTimeRenderer>>;

/**
 * The mail of a claimed job with a send_time_ref, written now under the lease: 'dropped' when the renderer says it
 * is no longer needed (the row is deleted), 'lease_lost' when another worker has it. Throws when no renderer writes
 * this kind (an older instance during an upgrade): the attempt fails and is retried.
 */
export async function renderAtSendTime(
  store: Store,
  owner: string,
  job: EmailJob & { sendTimeRef: string },
  renderers: SendTimeRenderers,
  now: number,
): Promise<RenderedMail | 'dropped' | 'lease_lost'> {
  const render = Object.hasOwn(renderers, job.kind) ? renderers[job.kind] : undefined;
  if (!render) throw new Error(`this instance has no renderer for mails of kind ${job.kind}`);
  return store.write(async (tx) => {
    if (!(await holdsEmail(tx, owner, job.id))) return 'lease_lost';
    const mail = await render(tx, job.sendTimeRef, now);
    if (mail) return mail;
    return (await deleteClaimedEmail(tx, owner, job.id)) ? 'dropped' : 'lease_lost';
  });
}
