// A customer's leads and work items as a personal-data export shows them: every one, in any state and spam too,
// each as the single read (GET /v1/leads/{id}) has it, with its internal notes (`internalNotes`: the read's
// `notes` is the lead's own field) and its activity added.
import { type Static, Type } from '@sinclair/typebox';
import type { Store } from '../platform/db/store.js';
import { Timestamp } from '../shared/json-schema.js';
import { type LeadActivity, listLeadActivity } from './customer-details.js';
import { allNotesOf, NoteSchema } from './notes.js';
import { selectAllCustomerLeadIds } from './queries.js';
import { getLead } from './read.js';
import { ActorSchema, type LeadDetail, LeadDetailSchema } from './shape.js';

export const LeadActivitySchema = Type.Object(
  {
    id: Type.String(),
    at: Timestamp(),
    kind: Type.String({
      description: 'What was done besides a state change, e.g. `edited`, `customer_details_applied`.',
    }),
    actor: Type.Union([ActorSchema, Type.Null()], { description: 'Who did it; null when unknown.' }),
    detail: Type.Record(Type.String(), Type.Unknown(), { description: 'What changed, by kind.' }),
  },
  { additionalProperties: false, title: 'LeadActivity' },
);

export const ExportedLeadSchema = Type.Object(
  {
    ...LeadDetailSchema.properties,
    spam: Type.Boolean({
      description: 'Caught as spam (a website form’s honeypot): kept for 30 days, in no list and no read.',
    }),
    internalNotes: Type.Array(NoteSchema, {
      description:
        'The internal notes on it, oldest first (as GET /v1/leads/{id}/notes lists them; `notes` is the lead’s own notes field).',
    }),
    activity: Type.Array(LeadActivitySchema, {
      description: 'What was done to it besides its state changes (statusHistory), oldest first.',
    }),
  },
  { additionalProperties: false, title: 'ExportedLead' },
);
export type ExportedLead = LeadDetail & {
  spam: boolean;
  internalNotes: Static<typeof NoteSchema>[];
  activity: LeadActivity[];
};

/** Every lead and work item of the brand's customer, spam too, oldest first, each with its notes and activity. */
export async function customerLeadsForExport(
  store: Store,
  brandId: string,
  customerId: string,
): Promise<ExportedLead[]> {
  const leads: ExportedLead[] = [];
  for (const { id, spam } of await selectAllCustomerLeadIds(store, brandId, customerId)) {
    const lead = await getLead(store, brandId, id, { withSpam: true });
    const [internalNotes, activity] = await Promise.all([
      allNotesOf(store, brandId, id),
      listLeadActivity(store, brandId, id),
    ]);
    leads.push({ ...lead, spam: Number(spam) === 1, internalNotes, activity });
  }
  return leads;
}
