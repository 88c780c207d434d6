// Leads and work items: one record that moves through the states in ../states.ts.
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
export {
  type LeadPatch,
  listVisits,
  MAX_DURATION_MINUTES,
  MIN_DURATION_MINUTES,
  NotPlannableError,
  PLANNABLE_STATUSES,
  parseLeadPatch,
  parseVisitPlan,
  updateLead,
  type Visit,
  type VisitPlan,
} from './planning.js';
export { getLead, type LeadListQuery, listLeads, parseStatusFilter } from './read.js';
export {
  type AnyListItem,
  type CreatedLead,
  CreatedLeadSchema,
  type LeadDetail,
  LeadDetailSchema,
  type LeadListItem,
  LeadListItemSchema,
  type WorkItemListItem,
  WorkItemListItemSchema,
} from './shape.js';
export { changeLeadStatus, parseStatusChange } from './status-change.js';
