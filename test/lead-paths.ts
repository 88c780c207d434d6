// The state changes that bring a new lead (in request) to each state: shared by the API and domain state tests.
import type { Status } from '../src/leads/states.js';

/** Every state, written out here (not taken from src) so that a state dropped there fails the tests. */
export const STATUSES = [
  'request',
  'quoted',
  'scheduled',
  'planned',
  'in_progress',
  'completed',
  'cancelled',
] as const satisfies readonly Status[];

export const PATH_TO: Record<Status, Status[]> = {
  request: [],
  quoted: ['quoted'],
  scheduled: ['scheduled'],
  planned: ['scheduled', 'planned'],
  in_progress: ['scheduled', 'planned', 'in_progress'],
  completed: ['scheduled', 'planned', 'in_progress', 'completed'],
  cancelled: ['cancelled'],
};
