import type { Migration } from 'kysely';
import type { Dialect } from '../database.js';
import { initial } from './2026112101_initial.js';
import { dashboard } from './2026112102_dashboard.js';
import { integrations } from './2026112201_integrations.js';

/** Every migration in order. Names are timestamps so they sort; never rename or edit one that has shipped. */
export function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '2026112101_initial': initial(dialect),
    '2026112102_dashboard': dashboard(dialect),
    '2026112201_integrations': integrations(dialect),
  };
}
