// The lists' `q`: what it means, and the condition on leads it becomes on each database. The index itself (one
// document per lead, kept in step by triggers) is made by the migration 2026112320_search.
//
// A query is a substring search, accent- and case-insensitive, over the lead's document (title, description,
// customer name, company, email, phone, street with number, postal code, city, and the contact as submitted).
// It matches when any of these readings of it is found:
//   - its words, each somewhere in the document (AND: "Bakker Keizersgracht" finds Bakker Vastgoed's lead at the
//     Keizersgracht). The indexes are by trigram, so a word needs 3 characters: a shorter word is searched
//     together with the next one (or the one before) as one phrase, so "Jan de Vries" is "Jan" and "de Vries";
//   - the query without its spaces, when it has any ("1015 CJ" finds 1015CJ, "5555 1234" a phone);
//   - when it is written like a phone (digits, spaces, + - . / and parentheses only): its digits as written, and
//     as the international number it is in the brand's country (06 1234 5678 and 0612 3 in NL are 316123…; the
//     index holds phones as E.164 digits, which contain the national significant number too).
// A query of fewer than 3 characters (spaces aside) finds nothing: no trigram index can answer it, and a scan of
// every lead is what this replaces.

import { type RawBuilder, sql } from 'kysely';
import { AsYouType } from 'libphonenumber-js/max';
import { type Runner, type SqlBuilder, statement } from './sql.js';
import type { Dialect } from './store.js';

/** Trigram indexes need this many characters in a term. */
export const MIN_TERM = 3;

/** Alternatives (OR) of terms (AND), each a substring to find; empty when the query can find nothing. */
export type SearchPlan = string[][];

const PHONE_LIKE = /^[+0-9\s\-./()]+$/;

/** True when the query may be a phone number, so the brand's country is needed to read it. */
export function looksLikePhone(query: string): boolean {
  const text = query.trim();
  return PHONE_LIKE.test(text) && text.replace(/\D/g, '').length >= MIN_TERM;
}

/** The readings of a query (see above). `country`: the brand's, for national phone numbers. */
export function searchPlan(query: string, country: string | undefined): SearchPlan {
  const text = query.trim().replace(/\s+/g, ' ');
  const plan: SearchPlan = [];
  const add = (terms: string[]) => {
    if (terms.length && terms.every((t) => [...t].length >= MIN_TERM)) {
      const key = terms.join('\n');
      if (!plan.some((p) => p.join('\n') === key)) plan.push(terms);
    }
  };
  add(words(text));
  if (text.includes(' ')) add([text.replace(/ /g, '')]);
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
  for (const word of text.split(' ').filter(Boolean)) {
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

/**
 * `select <lead id> …` of every lead (of any brand: the caller keeps to its own) whose document matches the plan:
 * an FTS5 MATCH on SQLite, trigram-indexed LIKEs on PostgreSQL. Nothing when the plan is empty.
 */
function matchingLeadIds(dialect: Dialect, plan: SearchPlan): Part[] {
  if (!plan.length) return ['select null where 1 = 0'];
  if (dialect === 'sqlite') {
    // FTS5 query syntax: each term a quoted phrase (a quote doubled), which the trigram tokenizer matches as a
    // substring; the document's and the query's diacritics and case are folded by the same tokenizer.
    const match = plan
      .map((terms) => `(${terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' AND ')})`)
      .join(' OR ');
    return [
      'select r.lead_id from lead_search s join lead_search_rows r on r.id = s.rowid where lead_search match ',
      { value: match },
    ];
  }
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
  return parts;
}

/** Appends ` and <the lead l matches the plan>` to a list or count query (the other filters stay outside). */
export function appendSearch(q: SqlBuilder, dialect: Dialect, plan: SearchPlan): void {
  q.sql(' and l.id in (');
  for (const part of matchingLeadIds(dialect, plan)) {
    if (typeof part === 'string') q.sql(part);
    else q.value(part.value);
  }
  q.sql(')');
}

/** The same lead-id subquery for Kysely queries (the customers list). */
export function searchedLeadIds(dialect: Dialect, plan: SearchPlan): RawBuilder<unknown> {
  return sql.join(
    matchingLeadIds(dialect, plan).map((part) =>
      typeof part === 'string' ? sql.raw(part) : sql`${part.value}`,
    ),
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
