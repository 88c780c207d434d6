// The WAL's fsync on a thread of its own, beside SQLite's write thread (issue 33).
//
// At synchronous=FULL SQLite syncs the WAL inside every COMMIT, with the write lock held: the write thread (which
// does nothing but run groups of writes) spent about a third of its time waiting for the disk, and the next group
// could not start until the last one was on disk. Here the writing connection commits at synchronous=NORMAL (its
// COMMIT writes the group's frames to the WAL and returns) and tells this thread the group's number; this thread
// syncs the WAL file and tells the event loop which groups are on disk. The event loop answers a write only then,
// so a 201 still means the lead is on disk, as at FULL; meanwhile the write thread runs the next group. Syncs
// coalesce: one fsync covers every group committed before it began.
//
// What differs from FULL: another connection can read a group a few milliseconds before it is on disk (SQLite at
// FULL makes a group visible only after its sync). If the machine loses power in that window, the group is gone,
// and none of its writes was acknowledged. What leaves the process waits for the disk anyway: the webhook and mail
// workers take their rows with a write (a lease), which is answered after a sync that began after those rows
// were committed, and so is an idempotent replay (its key is claimed with a write). The database stays consistent
// whatever happens (SQLite's own promise for WAL at NORMAL; checkpoints still sync the WAL before they copy it).
//
// A failed fsync stops the writes until the service restarts: after a failed fsync Linux may report the next one
// as a success while the pages it failed to write are lost, so nothing after it could be acknowledged honestly
// (PostgreSQL stops for the same reason).
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { wal, port } = workerData;
let fd;
let wanted = 0;
let scheduled = false;
let paused = false;
let broken = false;
const syncWal = () => {
  if (fd === undefined) fd = fs.openSync(wal, 'r');
  fs.fsyncSync(fd);
  // Deleted: every connection closed the database (SQLite copies the WAL into the file, syncs it and removes the
  // WAL). A WAL made anew since is the one to sync from now on.
  if (fs.fstatSync(fd).nlink === 0) {
    fs.closeSync(fd);
    fd = undefined;
    if (fs.existsSync(wal)) {
      fd = fs.openSync(wal, 'r');
      fs.fsyncSync(fd);
    }
  }
};
const run = () => {
  scheduled = false;
  if (broken || paused) return;
  // Every group committed before this fsync begins is on disk once it returns.
  const target = wanted;
  try {
    syncWal();
  } catch (error) {
    broken = true;
    parentPort.postMessage({ t: 'failed', message: String((error && error.message) || error), code: error && error.code });
    return;
  }
  parentPort.postMessage({ t: 'synced', group: target });
};
const schedule = () => {
  if (scheduled) return;
  scheduled = true;
  // After the messages already queued: one fsync for all of them.
  setImmediate(run);
};
port.on('message', (group) => {
  if (group > wanted) wanted = group;
  schedule();
});
parentPort.on('message', (message) => {
  if (message === 'pause') paused = true;
  else if (message === 'resume') {
    paused = false;
    schedule();
  } else if (message === 'close') {
    if (fd !== undefined) fs.closeSync(fd);
    port.close();
    parentPort.close();
  }
});
`;

type FromSync = { t: 'synced'; group: number } | { t: 'failed'; message: string; code?: string };

/** The sync thread of one SQLite database file in WAL mode. */
export class WalSyncThread {
  private readonly worker: Worker;
  /** For the write thread: it posts each group's number here once its COMMIT has returned. */
  readonly port: MessagePort;
  /** The last group known to be on disk. */
  synced = 0;

  constructor(
    file: string,
    /** A group and every one before it is on disk. */
    onSynced: (group: number) => void,
    /** The WAL could not be synced: nothing after it can be acknowledged. */
    onFailed: (error: Error) => void,
  ) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(WORKER, {
      eval: true,
      workerData: { wal: `${file}-wal`, port: port2 },
      transferList: [port2],
    });
    this.worker.unref();
    this.worker.on('message', (message: FromSync) => {
      if (message.t === 'synced') {
        if (message.group > this.synced) this.synced = message.group;
        onSynced(this.synced);
        return;
      }
      const error = new Error(
        `The SQLite WAL could not be synced to disk (${message.code ?? message.message}); writes stop until the service restarts.`,
      );
      (error as { code?: string }).code = 'SQLITE_IOERR_FSYNC';
      onFailed(error);
    });
    this.worker.on('error', (error) => onFailed(error));
    // Stopped other than by close(): no write after it could be answered.
    this.worker.on('exit', () => {
      if (!this.closing) onFailed(new Error('The SQLite WAL sync thread has stopped.'));
    });
  }

  private closing = false;

  /** Holds every sync until resume() (tests: a write seen committed but not yet answered). */
  pause(): void {
    this.worker.postMessage('pause');
  }

  resume(): void {
    this.worker.postMessage('resume');
  }

  async close(): Promise<void> {
    this.closing = true;
    this.worker.postMessage('close');
    await this.worker.terminate();
  }
}
