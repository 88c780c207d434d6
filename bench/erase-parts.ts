// Where an erase's time goes as the database grows (bench/README.md "Personal data"): on a database seeded as
// bench/personal-data.ts seeds it (N leads, a lead.created event each), the two parts of an erase whose cost
// grows with the brand's data, each timed alone, three times:
//   - the search index's compaction (SQLite: FTS5 'optimize', which rewrites the whole index; nothing on
//     PostgreSQL), with secure_delete on as the product opens SQLite, after a lead's title changed (as an
//     erase changes its leads' documents before it compacts);
//   - the scan of the brand's events for the ids of the person (the customer and 10 leads: 11 `like`s a row).
//
//   npx tsx bench/erase-parts.ts --size 100000 --db sqlite,postgres
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { openDatabase } from '../src/platform/db/database.js';
import { mentionsAny } from '../src/platform/db/mentions.js';
import { compactSearchIndex } from '../src/platform/db/search.js';
import { cli, type Storage } from './processes.js';
import { databaseConfig, seededLeadId, seedLeads } from './seed.js';

const postgresUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
const { values: flags } = parseArgs({
  options: {
    size: { type: 'string', default: '100000' },
    db: { type: 'string', default: postgresUrl ? 'sqlite,postgres' : 'sqlite' },
  },
});
const size = Number(flags.size);
const round = (n: number) => Math.round(n * 10) / 10;

for (const dialect of flags.db.split(',') as ('sqlite' | 'postgres')[]) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-bench-erase-parts-'));
  const storage: Storage =
    dialect === 'sqlite'
      ? { dialect, dataDir }
      : { dialect, dataDir, databaseUrl: postgresUrl, schema: `bench_${randomBytes(5).toString('hex')}` };
  const database = () => openDatabase(databaseConfig(storage), 'NORMAL');
  try {
    const brand = cli(storage, ['brands', 'create', '--name', 'Bench Erase Parts']) as { id: string };
    await seedLeads(storage, brand.id, 0, size);
    const db = database();
    try {
      await db.db.connection().execute(async (c) => {
        if (dialect === 'postgres') await sql`set statement_timeout = 0`.execute(c);
        await sql`insert into events (id, brand_id, type, created_at, data)
            select 'evt_' || substr(id, 5), brand_id, 'lead.created', created_at, '{"lead":' || list_json || '}'
            from leads where brand_id = ${brand.id} and list_json is not null`.execute(c);
        if (dialect === 'postgres') await sql`vacuum (analyze) events`.execute(c);
        else await sql`pragma wal_checkpoint(TRUNCATE)`.execute(c);
      });
      const ids = [
        'cus_00000000000000000000000007',
        ...Array.from({ length: 10 }, (_, i) => seededLeadId(size - 1 - i * 97)),
      ];
      const optimize: number[] = [];
      const scan: number[] = [];
      for (let i = 0; i < 3; i++) {
        let t: number;
        // As in an erase, the index has changed since it was last compacted (here: one lead's title), so
        // 'optimize' has segments to merge; it merges them with the whole index.
        await db.write(async (tx) => {
          await tx.db
            .updateTable('leads')
            .set({ title: `Seeded job, changed ${i}` })
            .where('id', '=', seededLeadId(i + 20))
            .execute();
        });
        t = performance.now();
        await db.write((tx) => compactSearchIndex(tx));
        optimize.push(round(performance.now() - t));
        t = performance.now();
        const rows = await db.db
          .selectFrom('events')
          .select(['id', 'data'])
          .where('brand_id', '=', brand.id)
          .where(mentionsAny('data', ids))
          .execute();
        scan.push(round(performance.now() - t));
        if (!rows.length) throw new Error('the scan found none of the ids');
      }
      console.log(
        `${dialect}, ${size} leads and events: search index compaction ${optimize.join(', ')} ms; events scan for 11 ids ${scan.join(', ')} ms`,
      );
    } finally {
      if (dialect === 'postgres')
        await sql`drop schema if exists ${sql.id(storage.schema!)} cascade`.execute(db.db);
      await db.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
