// The state changes that bring a new lead (in request) to each state: shared by the API and domain state tests.
import type { Status } from '../src/leads/states.js';

export const PATH_TO: Record<Status, Status[]> = {
  request: [],
  quoted: ['quoted'],
  scheduled: ['scheduled'],
  planned: ['scheduled', 'planned'],
  in_progress: ['scheduled', 'planned', 'in_progress'],
  completed: ['scheduled', 'planned', 'in_progress', 'completed'],
  cancelled: ['cancelled'],
};
