// Copies of a person's data in stored JSON (events, idempotent responses): every object that is one of the erased
// records, found by its id wherever it is nested, loses the fields that hold what the person gave, as the
// records themselves do (the same shape, so receivers and clients parse it as before).

/** The records an erasure covers, by id. */
export interface ErasedRecords {
  customers: ReadonlySet<string>;
  leads: ReadonlySet<string>;
  addresses: ReadonlySet<string>;
  notes: ReadonlySet<string>;
  attachments: ReadonlySet<string>;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Rule = (o: { [key: string]: Json }) => void;

const blank = (o: { [key: string]: Json }, keys: readonly string[], value: Json) => {
  for (const key of keys) if (key in o) o[key] = value;
};

const CUSTOMER: Rule = (o) => {
  blank(o, ['name'], '');
  blank(o, ['firstName', 'lastName', 'companyName', 'email', 'phone'], null);
};
const ADDRESS: Rule = (o) => {
  blank(o, ['street'], '');
  blank(o, ['streetNumber', 'streetNumberAddition'], null);
};
const LEAD: Rule = (o) => {
  blank(o, ['description', 'budgetQuote', 'notes', 'extraFields', 'attribution', 'consent'], null);
  const submitted = o.submitted;
  if (submitted && typeof submitted === 'object' && !Array.isArray(submitted)) {
    for (const key of Object.keys(submitted)) submitted[key] = null;
  }
  blank(o, ['attachmentCount'], 0);
  if (Array.isArray(o.attachments)) o.attachments = [];
};
const NOTE: Rule = (o) => blank(o, ['text'], '');
const ATTACHMENT: Rule = (o) => blank(o, ['fileName'], '');

function ruleFor(id: string, erased: ErasedRecords): Rule | undefined {
  if (erased.customers.has(id)) return CUSTOMER;
  if (erased.leads.has(id)) return LEAD;
  if (erased.addresses.has(id)) return ADDRESS;
  if (erased.notes.has(id)) return NOTE;
  if (erased.attachments.has(id)) return ATTACHMENT;
  return undefined;
}

function walk(value: Json, erased: ErasedRecords): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, erased);
    return;
  }
  if (!value || typeof value !== 'object') return;
  if (typeof value.id === 'string') ruleFor(value.id, erased)?.(value);
  for (const item of Object.values(value)) walk(item, erased);
}

/** The JSON text with every erased record in it blanked; the same text when it holds none. */
export function redactJson(text: string, erased: ErasedRecords): string {
  let parsed: Json;
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    return text;
  }
  walk(parsed, erased);
  const out = JSON.stringify(parsed);
  return out === JSON.stringify(JSON.parse(text)) ? text : out;
}
