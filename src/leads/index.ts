// Leads and work items: one record that moves through the states in ../states.ts.

export {
  addLeadAttachments,
  assertLeadExists,
  deleteLeadAttachment,
  listLeadAttachments,
} from './attachments.js';
export { createLead, type LeadSource } from './create.js';
export {
  type Actor,
  type CustomerLead,
  type LeadActivity,
  listCustomerLeads,
  listLeadActivity,
  submittedDifferences,
  useSubmittedDetails,
} from './customer-details.js';
export { type ExportQuery, exportLeads, type LeadExport } from './export.js';
export { moveLeadsToCustomer } from './move.js';
export {
  addNote,
  getNote,
  listNotes,
  MAX_NOTE_LENGTH,
  type Note,
  NoteSchema,
  parseNoteBody,
  parseNoteText,
} from './notes.js';
export {
  customerLeadsForExport,
  type ExportedLead,
  ExportedLeadSchema,
  LeadActivitySchema,
} from './personal-data.js';
export {
  type LeadPatch,
  listVisits,
  MAX_DURATION_MINUTES,
  MIN_DURATION_MINUTES,
  NotPlannableError,
  type OverlappingVisit,
  PLAN_FIELDS,
  PLANNABLE_STATUSES,
  type PlanningWarning,
  parseLeadPatch,
  parseVisitPlan,
  patchLead,
  planningWarnings,
  type Visit,
  type VisitPlan,
} from './planning.js';
export {
  countLeads,
  firstFormLead,
  getLead,
  type LeadCount,
  type LeadListQuery,
  type ListProjection,
  type ListStage,
  listLeads,
  parseStatusFilter,
} from './read.js';
export {
  ActorSchema,
  type AnyListItem,
  CREATED_FIELDS,
  type CreatedLead,
  CreatedLeadSchema,
  type LeadDetail,
  LeadDetailSchema,
  type LeadListItem,
  LeadListItemSchema,
  type WorkItemListItem,
  WorkItemListItemSchema,
} from './shape.js';
export {
  changeLeadStatus,
  MAX_REASON_LENGTH,
  parseReason,
  parseStatusChange,
} from './status-change.js';
export {
  EDITABLE_FIELDS,
  type EditableField,
  type LeadChanges,
  parseLeadChanges,
  updateLead,
} from './update.js';
