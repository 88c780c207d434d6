// How many receipts (a form's auto-reply) one address may get: anyone can type anyone's address into a form, so
// the count per brand, address and UTC day is kept in the database (receipt_counts, the address hashed) and every
// instance shares it.
import { createHash } from 'node:crypto';
import type { Tx } from '../platform/db/store.js';
import { countReceipt } from './queries.js';

/** Receipts one brand sends one address in a UTC day, at most; further posts with that address get none. */
export const RECEIPTS_PER_RECIPIENT_PER_DAY = 3;
const DAY_MS = 24 * 60 * 60 * 1000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Whether the brand may send this address another receipt today, counting this one: anyone can type anyone's
 * address into a form, so a receipt must not become a way to mail a stranger over and over from the brand's
 * sender. Counted in the database (receipt_counts, the address hashed), so every instance shares the count. Spam
 * (a filled honeypot) never gets here: it queues no mail at all.
 */
export async function receiptAllowed(tx: Tx, brandId: string, email: string, now: number): Promise<boolean> {
  const count = await countReceipt(tx, {
    brandId,
    recipientHash: createHash('sha256').update(email.trim().toLowerCase()).digest('hex'),
    day: dayOf(now),
    pruneBefore: dayOf(now - DAY_MS),
  });
  return count <= RECEIPTS_PER_RECIPIENT_PER_DAY;
}
