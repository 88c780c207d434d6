import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * The customer `c` (its row before the update) is not strictly first among those sharing its phone: the latest
 * of the others is at least as late. Asked as the first entry of customers_brand_phone after c's own, whatever
 * the number sharing the phone (an EXISTS over a range of it would be planned by PostgreSQL as a hash join over
 * the whole crowd). Exported for the plan test.
 */
export const NOT_FIRST = `c.phone is not null and (select o.last_lead_at from customers o
    where o.brand_id = c.brand_id and o.phone = c.phone and o.id <> c.id
    order by o.last_lead_at desc, o.created_at desc limit 1) >= c.last_lead_at`;

/**
 * A new lead moves its customer's `last_lead_at` (2026112902) only when the phone rule could otherwise rank that
 * customer wrongly (issue 33).
 *
 * `last_lead_at` is read by the phone rule alone: of the customers sharing a phone, the one with the latest lead.
 * Only its order within a phone matters. So a lead for the customer already ranked first for its phone, strictly
 * ahead of everyone sharing it (or with a phone nobody shares, or none), leaves the row alone. Every other customer
 * sharing the phone keeps its exact time, and a lead for any of them, later than every lead before it (`received_at`
 * is the time the create ran), moves it ahead of the first. Only the first may lag behind its own latest lead, and
 * it stays first for as long as it does. Where a customer joins another phone's ranking (its phone changes: an
 * edit, a fill, an erasure), its time is made exact again; leads that move or go make both customers' exact, as
 * before. The partial index for customers without an email ranks a subset of the same customers: the first of the
 * whole phone is first of any subset it is in, and every other one is exact.
 *
 * Why: every create for a repeat customer updated that customer's row, and `last_lead_at` is indexed, so on
 * PostgreSQL each was a second version of the row with new entries in all its indexes. And a crowd (many leads
 * with a switchboard's number and no email, all linked to the one customer ranked first) took turns on that row:
 * each create waited for the commit of the one before, one WAL flush after another, at 0.78 of the rate of creates
 * with their own phones (bench/results/issue-33/round-5).
 *
 * On PostgreSQL, two creates in transactions that overlap, one for the customer ranked first and one for another
 * sharing its phone, may leave the other ranked first although the first's lead came a moment later: the first's
 * create did not see the other's. Either was the latest lead within the time the two took; the next lead for the
 * first puts it back.
 */
export function migration(dialect: Dialect) {
  const latest = (id: string) =>
    `coalesce((select max(l.received_at) from leads l where l.customer_id = ${id}), 0)`;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const exec = (text: string) => sql.raw(text).execute(db);
      if (dialect === 'sqlite') {
        await exec('drop trigger customers_last_lead_insert');
        // SQLite: the updated table takes no alias; `c` is a one-row view of it through its id.
        await exec(`create trigger customers_last_lead_insert after insert on leads begin
          update customers set last_lead_at = new.received_at
            where id = new.customer_id and last_lead_at < new.received_at
              and exists (select 1 from customers c where c.id = new.customer_id and ${NOT_FIRST});
        end`);
        await exec(`create trigger customers_last_lead_phone after update of phone on customers
          when new.phone is not old.phone begin
          update customers set last_lead_at = ${latest('customers.id')} where id = new.id;
        end`);
        return;
      }
      // Which customers to move is read whole before any is moved: an UPDATE asking NOT_FIRST row by row would
      // walk, for each customer of a bulk insert's crowd, the versions it had already written in the same index
      // range (invisible to its own snapshot): quadratic in the crowd (100,000 customers sharing a phone, each
      // with a lead, did not finish in 14 minutes). A create's lead reads one row and, mostly, writes none.
      await exec(`create or replace function customers_last_lead_insert() returns trigger language plpgsql as $$
        declare ids text[]; times bigint[];
        begin
          select array_agg(c.id), array_agg(n.latest) into ids, times
            from (select customer_id, max(received_at) as latest from new_leads group by customer_id) n
            join customers c on c.id = n.customer_id
            where c.last_lead_at < n.latest and ${NOT_FIRST};
          if ids is not null then
            update customers c set last_lead_at = u.latest from unnest(ids, times) as u(id, latest)
              where c.id = u.id and c.last_lead_at < u.latest;
          end if;
          return null;
        end $$`);
      await exec(`create function customers_last_lead_phone() returns trigger language plpgsql as $$ begin
        new.last_lead_at := ${latest('new.id')};
        return new; end $$`);
      await exec(`create trigger customers_last_lead_phone before update of phone on customers for each row
        when (new.phone is distinct from old.phone) execute function customers_last_lead_phone()`);
    },
  };
}
