// SQLite's checkpoints on a thread of their own (issue 33). A checkpoint copies the pages the WAL holds back into
// the database file and syncs it. Left to SQLite it runs inside a COMMIT, on the connection that committed, once
// the WAL holds 1,000 pages: with the write thread (write-thread.ts) busy all the time, every ninth group or so
// paid a checkpoint of 4 MB of random writes and a sync, 40% of all COMMIT time (bench/README.md, "Speed, round
// three, continued").
//
// Here a worker thread with a connection of its own runs PASSIVE checkpoints beside the writer: they copy what
// every reader is done with and wait for no one, and a writer goes on while one runs (SQLite's WAL: the
// checkpoint takes the checkpoint lock, not the write lock). The writing connection keeps a checkpoint of its own
// at WRITER_AUTOCHECKPOINT pages, far above what this thread leaves behind, as a bound on the WAL: once the WAL
// is wholly copied a later write starts it again from the beginning, and the writer's own checkpoint is what gets
// it there under a load that never pauses. Durability is unchanged: no write is answered before its WAL frames
// are synced (wal-sync-thread.ts), and a checkpoint syncs the WAL before it copies and the database file after.
import { Worker } from 'node:worker_threads';

/** The writing connection's own wal_autocheckpoint while this thread runs (pages; 32 MiB of 4 KiB pages). */
export const WRITER_AUTOCHECKPOINT = 8000;

/** How often the thread looks: soon again while there were pages to copy, backing off to `idleMs` when none. */
export interface CheckpointPace {
  busyMs: number;
  idleMs: number;
}

export const CHECKPOINT_PACE: CheckpointPace = { busyMs: 20, idleMs: 250 };

/** What the thread has done: checkpoints run, pages copied into the database file, runs a reader held back. */
export interface CheckpointStats {
  runs: number;
  pages: number;
  held: number;
  errors: number;
}

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const SQLite = createRequire(workerData.from)('better-sqlite3');
const db = new SQLite(workerData.file, { fileMustExist: true });
// Never waits on a lock: a PASSIVE checkpoint that finds one taken tries again at the next look.
db.pragma('busy_timeout = 0');
db.pragma('synchronous = ' + workerData.synchronous);
db.pragma('wal_autocheckpoint = 0');
const stats = { runs: 0, pages: 0, held: 0, errors: 0 };
const { busyMs, idleMs } = workerData.pace;
let copiedBefore = 0;
let logBefore = 0;
let delay = busyMs;
let timer;
let closed = false;
const look = () => {
  timer = undefined;
  let again = false;
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    stats.runs++;
    // A WAL started again from the beginning counts from zero.
    const restarted = r.log < logBefore || r.checkpointed < copiedBefore;
    const copied = r.checkpointed - (restarted ? 0 : copiedBefore);
    if (copied > 0) stats.pages += copied;
    if (r.busy || r.checkpointed < r.log) stats.held++;
    again = copied > 0 || r.busy === 1 || r.checkpointed < r.log;
    copiedBefore = Math.max(r.checkpointed, 0);
    logBefore = Math.max(r.log, 0);
  } catch (error) {
    // SQLITE_BUSY or SQLITE_LOCKED: another checkpoint (an erasure's TRUNCATE) or a restart holds the lock.
    stats.errors++;
    again = true;
  }
  delay = again ? busyMs : Math.min(delay * 2, idleMs);
  if (!closed) timer = setTimeout(look, delay);
};
timer = setTimeout(look, busyMs);
parentPort.on('message', (message) => {
  if (message === 'stats') return parentPort.postMessage({ stats });
  if (message === 'close') {
    closed = true;
    if (timer) clearTimeout(timer);
    db.close();
    parentPort.postMessage({ stats, closed: true });
    parentPort.close();
  }
});
`;

/** The checkpoint thread of one SQLite database file (WAL mode, the file already made). */
export class CheckpointThread {
  private readonly worker: Worker;
  private readonly waiting: ((stats: CheckpointStats) => void)[] = [];
  private stopped: Promise<CheckpointStats> | undefined;
  /** The thread's last stats, and whether it is gone (failed, or stopped): then no message is answered. */
  private last: CheckpointStats = { runs: 0, pages: 0, held: 0, errors: 0 };
  private exited = false;

  constructor(file: string, synchronous: 'FULL' | 'NORMAL', pace: CheckpointPace = CHECKPOINT_PACE) {
    this.worker = new Worker(WORKER, {
      eval: true,
      workerData: { file, synchronous, pace, from: import.meta.url },
    });
    // It never keeps the process alive: close() stops it, and a process that exits without closing leaves a WAL
    // that the next open reads as it always did.
    this.worker.unref();
    this.worker.on('message', (message: { stats: CheckpointStats }) => {
      this.last = message.stats;
      for (const settle of this.waiting.splice(0)) settle(message.stats);
    });
    // A thread that fails or stops leaves the writer's own checkpoint (WRITER_AUTOCHECKPOINT) to bound the WAL.
    // Whoever waits, or asks later, gets its last stats at once (a failure counted as an error).
    this.worker.on('error', () => {
      this.last = { ...this.last, errors: this.last.errors + 1 };
    });
    this.worker.on('exit', () => {
      this.exited = true;
      for (const settle of this.waiting.splice(0)) settle(this.last);
    });
  }

  /** What the thread has done so far. */
  stats(): Promise<CheckpointStats> {
    if (this.stopped) return this.stopped;
    if (this.exited) return Promise.resolve(this.last);
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.worker.postMessage('stats');
    });
  }

  /** Stops the thread after the checkpoint it is running, and closes its connection. */
  close(): Promise<CheckpointStats> {
    if (this.exited) this.stopped ??= Promise.resolve(this.last);
    this.stopped ??= new Promise<CheckpointStats>((resolve) => {
      this.waiting.push(resolve);
      this.worker.postMessage('close');
    }).then(async (stats) => {
      await this.worker.terminate();
      return stats;
    });
    return this.stopped;
  }
}
