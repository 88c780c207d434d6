// The lists' `q`: what it means, and the condition on leads it becomes on each database. The index itself (one
// document per lead, kept in step by triggers) is made by the migration 2026112320_search.
//
// A query is a substring search, accent- and case-insensitive, over the lead's document (title, description,
// customer name, company, email, phone, street with number, postal code, city, and the contact as submitted).
// It matches when any of these readings of it is found:
//   - its words, each somewhere in the document (AND: "Bakker Keizersgracht" finds Bakker Vastgoed's lead at the
//     Keizersgracht). The indexes are by trigram, so a word needs 3 characters: a shorter word is searched
//     together with the next one (or the one before) as one phrase, so "Jan de Vries" is "Jan" and "de Vries";
//   - the query without its spaces, when it has any and is at most 32 characters long ("1015 CJ" finds 1015CJ,
//     "5555 1234" a phone);
//   - when it is written like a phone (digits, spaces, + - . / and parentheses only): its digits as written, and
//     as the international number it is in the brand's country (06 1234 5678 and 0612 3 in NL are 316123…; the
//     index holds phones as E.164 digits, which contain the national significant number too).
// A query of fewer than 3 characters (spaces aside) finds nothing: no trigram index can answer it, and a scan of
// every lead is what this replaces.
//
// One brand's search must not cost the others anything (issue 29: one 40-term query on SQLite held the event loop
// for 13 s). So:
//   - a query is bounded before it reaches the index: at most MAX_SEARCH_WORDS words (a repeated word counts once)
//     and no control characters, else a 422 naming `q` (its length, 200 characters, is the route schema's);
//   - on SQLite it reads only the brand's part of the FTS5 index (the brand's rowid range: migration
//     2026112901_search_brand_ranges), in windows, yielding the event loop between them, and gives up with a 422
//     once it has run longer than the database's search budget (SEARCH_BUDGET_MS, default 2 s);
//   - on PostgreSQL the statements that search run with that budget as their statement_timeout; a cancelled one
//     is the same 422.

import { setImmediate as yieldEventLoop } from 'node:timers/promises';
import { type RawBuilder, sql } from 'kysely';
import { AsYouType } from 'libphonenumber-js/max';
import { ValidationError } from '../../shared/errors.js';
import { indexPendingLeads } from './search-index.js';
import { nextWindow, SEARCH_WINDOWS, type SearchThreads } from './search-threads.js';
import { type Runner, type SqlBuilder, type StatementBudget, statement } from './sql.js';
import type { Dialect, Store } from './store.js';

/** Trigram indexes need this many characters in a term. */
export const MIN_TERM = 3;

/**
 * The query without its spaces is a reading only up to this length: it is there for postal codes, phone numbers
 * and names typed with or without spaces, and as one long phrase it is the costliest thing FTS5 can be asked.
 */
const MAX_JOINED = 32;

/** At most this many words in a query (after a repeated word is counted once). */
export const MAX_SEARCH_WORDS = 8;

/** How long one search may run, when the database does not say (SEARCH_BUDGET_MS). */
export const DEFAULT_SEARCH_BUDGET_MS = 2000;

/** Alternatives (OR) of terms (AND), each a substring to find; empty when the query can find nothing. */
export type SearchPlan = string[][];

// C0 and C1 controls (NUL included), which no name, address or phone holds; PostgreSQL cannot even take a NUL.
// biome-ignore lint/suspicious/noControlCharactersInRegex: they are what is looked for
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** The query's words as the plan takes them: a repeated word (any case) once. */
function distinctWords(text: string): string[] {
  const seen = new Set<string>();
  return text.split(' ').filter((w) => {
    const key = w.toLocaleLowerCase();
    if (!w || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Refuses a query no search should run: control characters, or more than MAX_SEARCH_WORDS words. */
export function checkSearchQuery(query: string, field = 'q'): void {
  if (CONTROL.test(query)) {
    throw new ValidationError([
      { field, message: 'must not contain control characters', text: { key: 'search.error.control' } },
    ]);
  }
  const count = distinctWords(query.trim().replace(/\s+/g, ' ')).length;
  if (count > MAX_SEARCH_WORDS) {
    throw new ValidationError([
      {
        field,
        message: `has ${count} words; a search takes at most ${MAX_SEARCH_WORDS}`,
        text: { key: 'search.error.words', values: { count, max: MAX_SEARCH_WORDS } },
      },
    ]);
  }
}

/** The search ran longer than its budget: a 422 naming the query, which the person can narrow. */
export class SearchTooSlowError extends ValidationError {
  constructor(budgetMs: number, field = 'q') {
    super([
      {
        field,
        message: `took longer than ${budgetMs / 1000} s and was stopped; add a word or a filter to narrow it`,
        text: { key: 'search.error.slow', values: { seconds: budgetMs / 1000 } },
      },
    ]);
  }
}

const PHONE_LIKE = /^[+0-9\s\-./()]+$/;

/** True when the query may be a phone number, so the brand's country is needed to read it. */
export function looksLikePhone(query: string): boolean {
  const text = query.trim();
  return PHONE_LIKE.test(text) && text.replace(/\D/g, '').length >= MIN_TERM;
}

/** The readings of a query (see above). `country`: the brand's, for national phone numbers. */
export function searchPlan(query: string, country: string | undefined): SearchPlan {
  checkSearchQuery(query);
  const text = query.trim().replace(/\s+/g, ' ');
  const plan: SearchPlan = [];
  const add = (terms: string[]) => {
    if (terms.length && terms.every((t) => [...t].length >= MIN_TERM)) {
      const key = terms.join('\n');
      if (!plan.some((p) => p.join('\n') === key)) plan.push(terms);
    }
  };
  add(words(text));
  if (text.includes(' ') && [...text].length <= MAX_JOINED) add([text.replace(/ /g, '')]);
  if (looksLikePhone(text)) {
    const digits = text.replace(/\D/g, '');
    add([digits]);
    if (!text.startsWith('+') && country) {
      const typing = new AsYouType(country as never);
      typing.input(text);
      const number = typing.getNumber()?.number;
      if (number) add([number.replace(/\D/g, '')]);
    }
  }
  return plan;
}

/** The words, a short one joined to its neighbour as a phrase. */
function words(text: string): string[] {
  const out: string[] = [];
  let pending = '';
  for (const word of distinctWords(text)) {
    const joined = pending ? `${pending} ${word}` : word;
    if ([...joined].length < MIN_TERM) pending = joined;
    else {
      out.push(joined);
      pending = '';
    }
  }
  if (pending) {
    if (out.length) out[out.length - 1] = `${out[out.length - 1]} ${pending}`;
    else out.push(pending);
  }
  return out;
}

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

const BRAND_COUNTRY = statement('select default_country from brands where id = ?');

/** The plan of a brand's query; the brand's country is read only when the query may be a national phone number. */
export async function planFor(store: Runner, brandId: string, query: string): Promise<SearchPlan> {
  const country = looksLikePhone(query)
    ? (await store.all<{ default_country: string }>(BRAND_COUNTRY, [brandId]))[0]?.default_country
    : undefined;
  return searchPlan(query, country);
}

/** SQL text and the values of its placeholders, in order. */
type Part = string | { value: unknown };

/** What searching needs of the database: its statements, its dialect and its budget (SEARCH_BUDGET_MS). */
export type SearchStore = Runner &
  Pick<Store, 'write' | 'inTransaction'> & {
    readonly dialect: Dialect;
    readonly searchBudgetMs?: number | undefined;
    /** SQLite with a database file: the threads its searches run on (search-threads.ts). */
    readonly searchThreads?: SearchThreads | undefined;
  };

/**
 * A brand's search, resolved: the lead-id subquery that lists and counts put in their WHERE (`l.id in (…)`), and
 * on PostgreSQL the budget their statement runs within. Only the brand's leads are in it (the caller's brand
 * condition stays: it is what the lists page by).
 */
export interface BrandSearch {
  readonly parts: readonly Part[];
  readonly budget?: StatementBudget;
}

const NOTHING: BrandSearch = { parts: ['select null where 1 = 0'] };

/**
 * Resolves a brand's query (see the top of this file). Throws a ValidationError (422 on `q`) for a query no
 * search runs, and SearchTooSlowError when SQLite's search runs past the budget.
 */
export async function brandSearch(store: SearchStore, brandId: string, query: string): Promise<BrandSearch> {
  const plan = await planFor(store, brandId, query);
  if (!plan.length) return NOTHING;
  const budgetMs = store.searchBudgetMs ?? DEFAULT_SEARCH_BUDGET_MS;
  if (store.dialect === 'sqlite') return { parts: await sqliteMatches(store, brandId, plan, budgetMs) };
  // The document is stored folded (f_unaccent lowers and removes accents); the pattern is folded the same way.
  const parts: Part[] = ['select lead_id from lead_search where '];
  plan.forEach((terms, i) => {
    parts.push(i ? ' or (' : '(');
    terms.forEach((t, j) => {
      parts.push(
        j ? ' and body like f_unaccent(' : 'body like f_unaccent(',
        { value: `%${escapeLike(t)}%` },
        ')',
      );
    });
    parts.push(')');
  });
  return { parts, budget: { ms: budgetMs, exceeded: () => new SearchTooSlowError(budgetMs) } };
}

// The brand's rowid range in the index: [start, last] (last null when it has no lead).
const BRAND_RANGE = statement(`select b.search_key << 32 as "start",
  (select id from lead_search_rows where id >= b.search_key << 32 and id < (b.search_key + 1) << 32
    order by id desc limit 1) as "last"
  from brands b where b.id = ?`);
// Whether any of the brand's leads waits for its search document (search-index.ts): a seek in the brand's range.
const BRAND_PENDING = statement(
  'select 1 as "pending" from lead_search_pending where id >= ? and id < ? + 4294967296 limit 1',
);
// The matches among the rowids [from, to): FTS5 takes the rowid bounds into its doclist reads (seeks, not scans).
const MATCH_WINDOW = statement(`select r.lead_id from lead_search s join lead_search_rows r on r.id = s.rowid
  where lead_search match ? and s.rowid >= ? and s.rowid < ?`);

/**
 * SQLite: the brand's matching lead ids, read window by window over the brand's rowid range (SEARCH_WINDOWS), on
 * a search thread when the database has them (a file), else here, yielding the event loop between windows. Past
 * the budget the search stops with SearchTooSlowError.
 */
async function sqliteMatches(
  store: SearchStore,
  brandId: string,
  plan: SearchPlan,
  budgetMs: number,
): Promise<Part[]> {
  const began = performance.now();
  const range = (await store.all<{ start: number; last: number | null }>(BRAND_RANGE, [brandId]))[0];
  if (!range || range.last === null) return NOTHING.parts as Part[];
  // Documents still waiting for the interval (search-index.ts) are written first, so the search finds every lead
  // committed before it began. Inside a write they go into its transaction (a search thread reads only what is
  // committed, as it always has for a write's own leads).
  if ((await store.all(BRAND_PENDING, [range.start, range.start])).length) {
    if (store.inTransaction) await indexPendingLeads(store);
    else {
      // A search must not need the database to take writes: if it cannot (its disk full, its writes stopped after
      // a failed sync), it searches what is indexed, without those last documents.
      await store.write((tx) => indexPendingLeads(tx)).catch(() => undefined);
    }
  }
  // FTS5 query syntax: each term a quoted phrase (a quote doubled), which the trigram tokenizer matches as a
  // substring; the document's and the query's diacritics and case are folded by the same tokenizer.
  const match = plan
    .map((terms) => `(${terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' AND ')})`)
    .join(' OR ');
  const found = store.searchThreads
    ? await store.searchThreads.search(brandId, match, range.start, range.last, budgetMs)
    : await inlineMatches(store, match, range.start, range.last, began + budgetMs);
  if (found === 'slow') throw new SearchTooSlowError(budgetMs);
  const ids = found;
  if (!ids.length) return NOTHING.parts as Part[];
  return ['select value from json_each(', { value: JSON.stringify(ids) }, ')'];
}

/** The windows on the event loop (an in-memory database), yielding between them; 'slow' past `deadline`. */
async function inlineMatches(
  store: Runner,
  match: string,
  start: number,
  last: number,
  deadline: number,
): Promise<string[] | 'slow'> {
  const ids: string[] = [];
  let window = SEARCH_WINDOWS.first;
  for (let from = start; from <= last; ) {
    const to = Math.min(from + window, last + 1);
    const windowBegan = performance.now();
    for (const row of await store.all<{ lead_id: string }>(MATCH_WINDOW, [match, from, to]))
      ids.push(row.lead_id);
    from = to;
    if (from > last) break;
    const now = performance.now();
    if (now > deadline) return 'slow';
    window = nextWindow(window, now - windowBegan, SEARCH_WINDOWS);
    await yieldEventLoop();
  }
  return ids;
}

/** Appends ` and <the lead l matches the search>` to a list or count query (the other filters stay outside). */
export function appendSearch(q: SqlBuilder, search: BrandSearch): void {
  q.sql(' and l.id in (');
  for (const part of search.parts) {
    if (typeof part === 'string') q.sql(part);
    else q.value(part.value);
  }
  q.sql(')');
  q.within(search.budget);
}

/** The same lead-id subquery for Kysely queries (the customers list); its budget is the caller's to apply. */
export function searchedLeadIds(search: BrandSearch): RawBuilder<unknown> {
  return sql.join(
    search.parts.map((part) => (typeof part === 'string' ? sql.raw(part) : sql`${part.value}`)),
    sql.raw(''),
  );
}

/**
 * SQLite: merges the search index's segments into one, which drops what deleted rows left in the older segments
 * (a contentless FTS5 index only marks them deleted), so an erased person's words are gone from it, and
 * secure_delete zeroes the pages they were on. It rewrites the whole index: bench/README.md "Personal data" has
 * its cost. PostgreSQL's index rows are rewritten by the triggers; nothing to do here.
 */
export async function compactSearchIndex(r: Runner & { dialect: Dialect }): Promise<void> {
  if (r.dialect === 'sqlite') await r.run(OPTIMIZE, []);
}
const OPTIMIZE = statement(`insert into lead_search (lead_search) values ('optimize')`);
