// What counts as text a person typed.

// Whitespace (JS \s: Unicode White_Space such as U+00A0, plus U+FEFF), NEL (U+0085, a control JS does not trim),
// format characters (category Cf: zero-width space U+200B, bidi controls U+200E/U+200F/U+202A-U+202E/U+2066-U+2069,
// word joiner U+2060, U+180E, soft hyphen) and the other default-ignorable code points (Hangul fillers, variation
// selectors): none of them shows anything on its own.
const BLANK = /^[\s\u0085\p{Cf}\p{Default_Ignorable_Code_Point}]*$/u;

/**
 * True when nothing visible remains once whitespace and invisible characters are set aside: a required field
 * holding only these is empty. Only the emptiness check uses this; a value with visible text is kept exactly as
 * sent, invisible characters included (accepted data is never silently changed).
 */
export function isBlank(value: string): boolean {
  return BLANK.test(value);
}
