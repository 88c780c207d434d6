// Reuses the JSON of a read while the database has not changed since it was built.
//
// An integrator's sync job, a BI tool and the office's dashboard ask for the same first page of leads over and
// over, and most of the time nothing has changed in between. Reading 100 leads with their customers and
// addresses and serialising them costs far more than the HTTP exchange itself, so a response is kept together
// with the database's version token (Database.version) and served again only while that token is unchanged:
// any committed write, by this process or another, makes every entry stale. Where the token is unknown
// (PostgreSQL, or a transaction open on this SQLite connection) nothing is cached or served from the cache.
import type { FastifyReply } from 'fastify';
import type { Database } from '../db/database.js';

/** A response body as JSON, ready to send (e.g. a list envelope `{"data":[…],"limit":…,"hasMore":…,"nextCursor":…}`). */
export class ReadyJson {
  constructor(readonly json: string) {}
}

interface Entry {
  version: string;
  /** Bytes, so each hit sends them as they are (no string to encode again). */
  body: Buffer;
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  hits = 0;
  misses = 0;

  constructor(
    private readonly database: Database,
    /** Upper bound on the bytes of the bodies kept; 0 turns the cache off. */
    private readonly maxBytes: number,
  ) {}

  /**
   * Sends the cached body for `key` if the data is unchanged; otherwise runs `read`, serialises its result with
   * the route's response schema (unless it is ReadyJson), keeps it when no write committed meanwhile, and sends it.
   */
  async send<T>(reply: FastifyReply, key: string, read: () => Promise<T>): Promise<FastifyReply> {
    const before = this.maxBytes > 0 ? this.database.version() : undefined;
    if (before !== undefined) {
      const entry = this.entries.get(key);
      if (entry && entry.version === before) {
        // Most recently used last: the Map's order is the eviction order.
        this.entries.delete(key);
        this.entries.set(key, entry);
        this.hits++;
        return reply.type('application/json; charset=utf-8').send(entry.body);
      }
      if (entry) this.remove(key, entry);
    }
    const result = await read();
    // Ready JSON (the lists of leads and work items) is sent as it is: it is the schema's serialisation already.
    const serialized = result instanceof ReadyJson ? result.json : reply.serialize(result);
    const body =
      typeof serialized === 'string' ? Buffer.from(serialized) : Buffer.from(serialized as Uint8Array);
    // Kept only if nothing committed between the two readings of the version: then `result` is exactly the data
    // at that version.
    if (before !== undefined && this.database.version() === before) {
      this.misses++;
      this.put(key, { version: before, body });
    }
    return reply.type('application/json; charset=utf-8').send(body);
  }

  private put(key: string, entry: Entry) {
    const size = entry.body.length;
    if (size > this.maxBytes / 4) return;
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    this.entries.set(key, entry);
    this.bytes += size;
    for (const [oldestKey, oldest] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(oldestKey, oldest);
    }
  }

  /** Forgets every kept response (an erasure: no copy of erased data may stay in memory either). */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  private remove(key: string, entry: Entry) {
    this.entries.delete(key);
    this.bytes -= entry.body.length;
  }

  get size(): number {
    return this.entries.size;
  }
}
