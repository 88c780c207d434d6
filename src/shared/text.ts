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

// C0 controls (NUL, tab, CR, LF, …), DEL and C1 controls (U+0080–U+009F).
// biome-ignore lint/suspicious/noControlCharactersInRegex: that is the point of this check
const URL_CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * True when a URL as sent holds a control character (CR, LF, NUL, tab, any other C0 or C1 control). The URL
 * parser would silently drop tabs and line breaks and keep the rest percent-encoded, so such a value is refused
 * as sent, before any trimming or parsing: a URL setting is stored and used exactly as it was checked.
 */
export function hasUrlControl(value: string): boolean {
  return URL_CONTROL.test(value);
}

/** What a refused URL with a control character says (the API's English); people read validation.controlCharacters. */
export const URL_CONTROL_MESSAGE = 'must not contain control characters (such as line breaks)';
