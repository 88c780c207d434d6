// Which driver errors (better-sqlite3, node-postgres) mean an outage: one rule for the API and the dashboard.
const DB_UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EPIPE',
  'EHOSTUNREACH',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57014', // query_canceled (statement timeout)
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
]);

/** True for errors that mean "the database cannot answer right now" rather than a bug. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && DB_UNAVAILABLE_CODES.has(code)) return true;
  const message = (error as { message?: unknown }).message;
  return (
    typeof message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED|Client has encountered a connection error|database ping timed out|the database system is (starting up|shutting down)/i.test(
      message,
    )
  );
}
