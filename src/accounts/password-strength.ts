// Password rules for every place a password is chosen (first-run setup, invitations, the CLI, and the
// change-password page to come): a length range, then zxcvbn-ts's strength estimate, which refuses common
// passwords, keyboard rows, repeats, dates and words taken from the person's email or company name.
import { createRequire } from 'node:module';
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import type { FieldErrorText } from '../shared/errors.js';

// Loaded on the first check, not at start: the dictionaries are about 11 MiB of heap (20 MiB of RSS) that a
// service only needs when somebody chooses a password. require, because checking is synchronous.
const require = createRequire(import.meta.url);

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 1024;

/**
 * The lowest zxcvbn score accepted. zxcvbn scores 0-4; 3 is "safely unguessable: moderate protection from
 * offline slow-hash scenario" (under 10^10 guesses). Passwords are stored as scrypt hashes (a slow hash), so
 * 3 is the score that matches the threat: a stolen database cracked offline. 4 would refuse many sensible
 * passphrases for little gain; 2 lets through what an online guesser with some patience finds.
 */
export const MIN_PASSWORD_SCORE = 3;

/**
 * zxcvbn's running time grows quickly with the input (zxcvbn-ts issue #164: crafted inputs tie up a server),
 * and the check is synchronous. It only looks at this many characters: Dropbox's zxcvbn README recommends
 * the first 100, and a password whose first 100 characters are strong is strong.
 */
export const STRENGTH_CHECKED_LENGTH = 100;

/**
 * How many l33t readings ("p@ssw0rd" as "password") zxcvbn tries. Each one is matched against the
 * dictionaries again, so the default (100) makes a random 100-character password take over a second;
 * 10 takes a tenth of that and still catches the usual substitutions (P@ssw0rd12345, m0nk3y123456).
 */
const L33T_MAX_SUBSTITUTIONS = 10;

export const DEFAULT_PASSWORD_SUGGESTION = 'Add another word or two; uncommon words are better.';

let factory: ZxcvbnFactory | undefined;

type Translations = typeof import('@zxcvbn-ts/language-en').translations;
let english: Translations | undefined;

/** zxcvbn's English feedback (the API's and the CLI's message); people's pages map it back to ids. */
function englishFeedback(): Translations {
  if (english) return english;
  const en = require('@zxcvbn-ts/language-en') as typeof import('@zxcvbn-ts/language-en');
  english = {
    ...en.translations,
    // The stock text ("There should not be any personal or page related data.") reads oddly here.
    warnings: {
      ...en.translations.warnings,
      userInputs: 'It contains your email address or your company name.',
    },
  };
  return english;
}

/** Built on first use: loading and ranking the dictionaries takes a moment and memory that most processes skip. */
function zxcvbn(): ZxcvbnFactory {
  if (factory) return factory;
  const { ZxcvbnFactory: Factory } = require('@zxcvbn-ts/core') as typeof import('@zxcvbn-ts/core');
  const common = require('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common');
  const en = require('@zxcvbn-ts/language-en') as typeof import('@zxcvbn-ts/language-en');
  // Dutch words, names and Dutch people's common passwords ("wachtwoord", "welkom01"): the Belgian Dutch package,
  // whose lists are of the same language. Its feedback texts are not used: people read the catalogs' own.
  const nl = require('@zxcvbn-ts/language-nl-be') as typeof import('@zxcvbn-ts/language-nl-be');
  factory = new Factory({
    translations: englishFeedback(),
    graphs: common.adjacencyGraphs,
    dictionary: {
      ...common.dictionary,
      ...en.dictionary,
      nlCommonWords: nl.dictionary.commonWords,
      nlFirstnames: [...nl.dictionary.boysFirstnames, ...nl.dictionary.girlsFirstnames],
      nlLastnames: nl.dictionary.lastnames,
      nlWikipedia: nl.dictionary.wikipedia,
    },
    maxLength: STRENGTH_CHECKED_LENGTH,
    l33tMaxSubstitutions: L33T_MAX_SUBSTITUTIONS,
  });
  return factory;
}

/**
 * The words of an email address or a name, as someone might build a password from them: the whole value,
 * each word, and the words run together or joined with - _ . or a space ("Acme Plumbing" gives "acme",
 * "plumbing", "acmeplumbing", "acme-plumbing", …). zxcvbn only matches a user input as one dictionary word,
 * so "acme-plumbing-2026" passes with just "Acme Plumbing" as input; with these it is refused.
 */
export function passwordUserInputs(values: readonly string[]): string[] {
  // zxcvbn ranks user inputs by position, and a lower rank means fewer guesses: the whole values and the
  // words run together come first, the single words last.
  const whole: string[] = [];
  const joined: string[] = [];
  const single: string[] = [];
  const addWords = (text: string) => {
    const words = text.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    single.push(...words);
    if (words.length > 1)
      for (const separator of [' ', '-', '', '_', '.']) joined.push(words.join(separator));
  };
  for (const raw of values) {
    const value = raw.trim().toLowerCase();
    if (!value) continue;
    whole.push(value);
    const at = value.lastIndexOf('@');
    if (at > 0) {
      addWords(value.slice(0, at));
      // The domain's labels but the last (the TLD): "jan@acme-plumbing.nl" gives "acme-plumbing" and its words.
      for (const label of value
        .slice(at + 1)
        .split('.')
        .slice(0, -1)) {
        whole.push(label);
        addWords(label);
      }
    } else {
      addWords(value);
    }
  }
  return [...new Set([...whole, ...joined, ...single])];
}

export type PasswordCheck = { ok: true } | { ok: false; message: string; text: FieldErrorText };

/** zxcvbn's warnings, by id, as the choice of the catalog's 'password.weak' message (one select, literal ids). */
const WARNING_IDS = [
  'straightRow',
  'keyPattern',
  'simpleRepeat',
  'extendedRepeat',
  'sequences',
  'recentYears',
  'dates',
  'topTen',
  'topHundred',
  'common',
  'similarToCommon',
  'wordByItself',
  'namesByThemselves',
  'commonNames',
  'userInputs',
  'pwned',
] as const;

/** zxcvbn's suggestions, by id; 'other' in the catalog is DEFAULT_PASSWORD_SUGGESTION. */
const SUGGESTION_IDS = [
  'l33t',
  'reverseWords',
  'allUppercase',
  'capitalization',
  'dates',
  'recentYears',
  'associatedYears',
  'sequences',
  'repeated',
  'longerKeyboardPattern',
  'anotherWord',
  'useWords',
  'noNeed',
  'pwned',
] as const;

/** The id of an English feedback text zxcvbn gave (it gives texts, not ids), or 'none'. */
function feedbackId(
  texts: Record<string, string>,
  ids: readonly string[],
  given: string | null | undefined,
): string {
  if (!given) return 'none';
  const id = ids.find((candidate) => texts[candidate] === given);
  return id ?? 'none';
}

/**
 * Checks a new password: its length first, then its strength. `userInputs` are what the password must not
 * be built from: the person's email address and their company's name (see passwordUserInputs).
 *
 * A refusal's message (English, for the API and the CLI) is worded like the other field errors, to follow the
 * field's label without a final full stop: "must be at least 10 characters", "is too easy to guess. This is a
 * commonly used password. Add more words that are less common". Its `text` is what people read, in their
 * language: the catalog's message with zxcvbn's warning and suggestion as ids.
 */
export function checkPassword(password: string, userInputs: readonly string[] = []): PasswordCheck {
  if (password.length < MIN_PASSWORD_LENGTH) {
    return {
      ok: false,
      message: `must be at least ${MIN_PASSWORD_LENGTH} characters`,
      text: { key: 'password.tooShort', values: { min: MIN_PASSWORD_LENGTH } },
    };
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    return {
      ok: false,
      message: `must be at most ${MAX_PASSWORD_LENGTH} characters`,
      text: { key: 'validation.tooLong', values: { max: MAX_PASSWORD_LENGTH } },
    };
  }
  const checker = zxcvbn();
  const result = checker.check(password, passwordUserInputs(userInputs));
  if (result.score >= MIN_PASSWORD_SCORE) return { ok: true };
  const advice = [
    'is too easy to guess.',
    result.feedback.warning,
    result.feedback.suggestions[0] ?? DEFAULT_PASSWORD_SUGGESTION,
  ];
  const texts = englishFeedback();
  return {
    ok: false,
    message: advice.filter(Boolean).join(' ').replace(/\.$/, ''),
    text: {
      key: 'password.weak',
      values: {
        warning: feedbackId(texts.warnings, WARNING_IDS, result.feedback.warning),
        suggestion: feedbackId(texts.suggestions, SUGGESTION_IDS, result.feedback.suggestions[0]),
      },
    },
  };
}
