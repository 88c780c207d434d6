// Duplicate keys in a JSON text. JSON.parse keeps the last of `{"title":"a","title":"b"}` without a word, so a
// client's data would be silently changed. hasDuplicateKey answers whether there is one, cheaply, by counting;
// findDuplicateKey names it, at any depth, in one pass over the text.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** True when the quote at `at` is escaped (preceded by an odd number of backslashes). */
function escaped(text: string, at: number): boolean {
  let k = at - 1;
  while (text.charCodeAt(k) === BACKSLASH) k--;
  return (at - 1 - k) % 2 === 1;
}

/** Below this many keys an object's keys are searched in an array: cheaper than a Set for the usual few. */
const SMALL = 16;

type Keys = string[] | Set<string>;

/** Adds `key` to an object's keys; false when it was there already. */
function add(keys: Keys, key: string): boolean {
  if (Array.isArray(keys)) {
    if (keys.includes(key)) return false;
    keys.push(key);
    return true;
  }
  if (keys.has(key)) return false;
  keys.add(key);
  return true;
}

/**
 * The first key that appears twice in one object of `text`, or undefined. Only for text JSON.parse has accepted:
 * it relies on the text being well formed (every string closed, brackets balanced). Keys are compared as JSON.parse
 * reads them, so `"a"` and `"\u0061"` are the same key. O(n): strings are skipped with indexOf, and an object's keys
 * go in a Set once there are more than a few.
 */
export function findDuplicateKey(text: string): string | undefined {
  // The keys of each enclosing container, innermost last; null for an array (or outside any object).
  const enclosing: (Keys | null)[] = [];
  let keys: Keys | null = null;
  const n = text.length;
  // The next backslash at or after the current string: a string that ends before it has no escapes.
  let backslash = text.indexOf('\\');
  if (backslash < 0) backslash = n;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let end = text.indexOf('"', i + 1);
      const plain = end < backslash;
      if (!plain) {
        while (escaped(text, end)) end = text.indexOf('"', end + 1);
        backslash = text.indexOf('\\', end);
        if (backslash < 0) backslash = n;
      }
      if (keys !== null) {
        // Inside an object a string is a key exactly when a colon follows it.
        let j = end + 1;
        let d = text.charCodeAt(j);
        while (d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) d = text.charCodeAt(++j);
        if (d === COLON) {
          const key: string = plain ? text.slice(i + 1, end) : JSON.parse(text.slice(i, end + 1));
          if (!add(keys, key)) return key;
          if (Array.isArray(keys) && keys.length === SMALL) keys = new Set(keys);
          i = j + 1;
          continue;
        }
      }
      i = end + 1;
    } else if (c === OPEN_OBJECT) {
      enclosing.push(keys);
      keys = [];
      i++;
    } else if (c === OPEN_ARRAY) {
      enclosing.push(keys);
      keys = null;
      i++;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      keys = enclosing.pop() ?? null;
      i++;
    } else {
      i++;
    }
  }
  return undefined;
}

/** Colons outside strings: one per key the text writes, duplicates included. */
function keysWritten(text: string): number {
  const n = text.length;
  let backslash = text.indexOf('\\');
  if (backslash < 0) backslash = n;
  let count = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let end = text.indexOf('"', i + 1);
      if (end > backslash) {
        while (escaped(text, end)) end = text.indexOf('"', end + 1);
        backslash = text.indexOf('\\', end);
        if (backslash < 0) backslash = n;
      }
      i = end + 1;
    } else {
      if (c === COLON) count++;
      i++;
    }
  }
  return count;
}

/** Own keys of every object in a parsed JSON value (iteratively: nesting may be deep). */
function keysParsed(value: unknown): number {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length) {
    const v = pending.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      for (const item of v) if (typeof item === 'object' && item !== null) pending.push(item);
    } else {
      for (const key in v) {
        count++;
        const item = (v as Record<string, unknown>)[key];
        if (typeof item === 'object' && item !== null) pending.push(item);
      }
    }
  }
  return count;
}

/**
 * Whether `text` repeats a key in some object, given `parsed`, what JSON.parse made of it: the text writes more
 * keys than the parsed objects hold exactly when JSON.parse let one overwrite another. Cheaper than
 * findDuplicateKey (no key is copied or looked up), so it runs on every body and findDuplicateKey only to name the
 * key. `parsed` must come from a parse that drops nothing (secure-json-parse with protoAction/constructorAction
 * "error" throws instead of removing).
 */
export function hasDuplicateKey(text: string, parsed: unknown): boolean {
  return keysWritten(text) !== keysParsed(parsed);
}
