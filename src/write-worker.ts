// The SQLite write thread's entry (src/platform/db/write-thread.ts): the writes it runs whole, by name. A create is
// the write the service makes most; every other write runs its callback on the event loop.
import { createLeadIn, type LeadSource } from './leads/create.js';
import type { LeadInput } from './leads/input.js';
import { serveWrites } from './platform/db/write-thread-worker.js';

serveWrites({
  createLead: (tx, args: { origin: LeadSource; input: LeadInput }) =>
    createLeadIn(tx, args.origin, args.input),
});
