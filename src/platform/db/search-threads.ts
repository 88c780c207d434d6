// SQLite's full-text search on threads of its own (issue 29). FTS5 answers a query synchronously, and one lead can
// cost it a long time: 5,000 characters of one letter against a phrase of 60 trigrams takes it about 0.9 s, and
// no statement can be interrupted (better-sqlite3 12 has neither a progress handler nor sqlite3_interrupt). On the
// event loop that is every other brand's wait. Here each search reads the brand's rowid range in windows on a
// worker thread with its own read-only connection (WAL: it sees every committed write, never an uncommitted one),
// so the event loop only waits for the answer, and the budget is kept by a timer:
//   - a search not answered within its budget is refused (SearchTooSlowError) whatever the thread is doing; the
//     thread stops at its next window and is free again;
//   - at most THREADS threads; a brand has at most one search running at a time, so one brand can hold at most
//     one thread and the others' searches go on; a search that waits past its budget is refused too.
// An in-memory database (tests of a single connection) cannot be opened twice: search.ts searches it inline.
import { Worker } from 'node:worker_threads';

const THREADS = 2;

/** How a search reads the brand's range: rows per window to start with, its bounds, and the work per window. */
export interface Windows {
  first: number;
  min: number;
  max: number;
  targetMs: number;
}

/**
 * Windows start at eight rows and may shrink to one: one planted lead (5,000 characters of one letter) against
 * a long phrase costs FTS5 up to a second, so a window of many such rows would run for minutes before the budget
 * could be looked at. Growing up to fourfold while under the target (nextWindow), a cheap search over 20,000 leads
 * still takes only a handful of statements.
 */
export const SEARCH_WINDOWS: Windows = { first: 8, min: 1, max: 1 << 20, targetMs: 20 };

/**
 * The next window's rows after one of `window` rows took `took` ms: up to fourfold while under the target (a
 * statement costs FTS5 a few milliseconds however few rows it reads, so growth goes by the time, not by a fixed
 * step), shrunk in proportion when over twice the target. The worker thread runs this same function.
 */
export function nextWindow(window: number, took: number, windows: Windows): number {
  if (took < windows.targetMs) {
    return Math.min(Math.ceil(window * Math.min(4, windows.targetMs / Math.max(took, 0.001))), windows.max);
  }
  if (took > windows.targetMs * 2)
    return Math.max(Math.floor((window * windows.targetMs) / took), windows.min);
  return window;
}

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const SQLite = createRequire(workerData.from)('better-sqlite3');
const db = new SQLite(workerData.file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
const match = db.prepare(\`select r.lead_id from lead_search s join lead_search_rows r on r.id = s.rowid
  where lead_search match ? and s.rowid >= ? and s.rowid < ?\`).pluck();
const nextWindow = ${nextWindow.toString()};
parentPort.on('message', ({ id, query, start, last, deadline }) => {
  try {
    const ids = [];
    let window = workerData.windows.first;
    for (let from = start; from <= last; ) {
      const to = Math.min(from + window, last + 1);
      const began = performance.now();
      for (const leadId of match.all(query, from, to)) ids.push(leadId);
      from = to;
      if (from > last) break;
      if (Date.now() > deadline) return parentPort.postMessage({ id, slow: true });
      window = nextWindow(window, performance.now() - began, workerData.windows);
    }
    parentPort.postMessage({ id, ids });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
`;

interface Job {
  id: number;
  brandId: string;
  query: string;
  start: number;
  last: number;
  deadline: number;
  settle: (answer: Answer) => void;
}

type Answer = { ids: string[] } | { slow: true } | { error: string };

interface Thread {
  worker: Worker;
  job: Job | undefined;
}

/** The search threads of one SQLite database file. */
export class SearchThreads {
  private readonly threads: Thread[] = [];
  private readonly waiting: Job[] = [];
  private nextId = 1;
  private closed = false;
  /** Searches answered by a thread so far. */
  searches = 0;

  constructor(
    private readonly file: string,
    private readonly windows: Windows = SEARCH_WINDOWS,
  ) {}

  /**
   * The brand's lead ids whose document matches `query` (FTS5 syntax) among the rowids [start, last]; 'slow'
   * when that takes longer than `budgetMs`, counted from now (waiting for a thread included).
   */
  search(
    brandId: string,
    query: string,
    start: number,
    last: number,
    budgetMs: number,
  ): Promise<string[] | 'slow'> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    const deadline = Date.now() + budgetMs;
    return new Promise((resolve, reject) => {
      let done = false;
      const timer = setTimeout(() => finish({ slow: true }), budgetMs);
      const finish = (answer: Answer) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        const at = this.waiting.indexOf(job);
        if (at >= 0) this.waiting.splice(at, 1);
        if ('ids' in answer) resolve(answer.ids);
        else if ('slow' in answer) resolve('slow');
        else reject(new Error(answer.error));
      };
      const job: Job = { id: this.nextId++, brandId, query, start, last, deadline, settle: finish };
      this.waiting.push(job);
      this.dispatch();
    });
  }

  /** Gives waiting jobs to free threads: the oldest job of a brand that has none running. */
  private dispatch(): void {
    for (;;) {
      const running = new Set(this.threads.flatMap((t) => (t.job ? [t.job.brandId] : [])));
      const at = this.waiting.findIndex((j) => !running.has(j.brandId));
      if (at < 0) return;
      const thread = this.freeThread();
      if (!thread) return;
      const [job] = this.waiting.splice(at, 1) as [Job];
      thread.job = job;
      thread.worker.postMessage({
        id: job.id,
        query: job.query,
        start: job.start,
        last: job.last,
        deadline: job.deadline,
      });
    }
  }

  private freeThread(): Thread | undefined {
    const free = this.threads.find((t) => !t.job);
    if (free || this.threads.length >= THREADS) return free;
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { file: this.file, windows: this.windows, from: import.meta.url },
    });
    // Idle threads do not keep the process alive.
    worker.unref();
    const thread: Thread = { worker, job: undefined };
    worker.on('message', (answer: Answer & { id: number }) => {
      const job = thread.job;
      thread.job = undefined;
      this.searches++;
      if (job && job.id === answer.id) job.settle(answer);
      this.dispatch();
    });
    const fail = (error: unknown) => {
      const at = this.threads.indexOf(thread);
      if (at >= 0) this.threads.splice(at, 1);
      thread.job?.settle({ error: `the search thread stopped: ${String(error)}` });
      thread.job = undefined;
      this.dispatch();
    };
    worker.once('error', fail);
    worker.once('exit', (code) => fail(`exit code ${code}`));
    this.threads.push(thread);
    return thread;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.waiting.splice(0)) job.settle({ error: 'the database is closed' });
    await Promise.all(this.threads.splice(0).map((t) => t.worker.terminate()));
  }
}
