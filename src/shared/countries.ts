// Countries: the officially assigned ISO 3166-1 alpha-2 codes, their names in a language (from Intl, so no list of
// names is kept here), and what people may write for one: a code, or the country's name in Dutch or English in any
// letter case. Anything else is no country: never guessed (two letters of "Nederland" are Niger's code).
import type { Locale } from './i18n/index.js';

// Intl's region names are no test of a code: they also know ZZ ("Unknown Region"), EU, UN, UK and withdrawn codes
// such as AN, none of which is a country to store.
export const COUNTRY_CODES: readonly string[] = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT ' +
  'BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ' +
  'ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT ' +
  'HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS ' +
  'LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI ' +
  'NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG ' +
  'SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
  'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
).split(' ');

const CODES = new Set(COUNTRY_CODES);

/** A name as compared: lower case, without accents, one kind of apostrophe, single spaces. */
function fold(value: string): string {
  return value
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[’‘`]/g, "'")
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/**
 * Every Dutch and English name Intl gives a country (the long one, "Verenigd Koninkrijk", and the short one, "VK"),
 * folded, to its code. A name two countries share would be a guess, so it is left out.
 */
const BY_NAME: ReadonlyMap<string, string> = (() => {
  const found = new Map<string, Set<string>>();
  for (const locale of ['en', 'nl']) {
    for (const style of ['long', 'short', 'narrow'] as const) {
      const names = new Intl.DisplayNames([locale], { type: 'region', style });
      for (const code of COUNTRY_CODES) {
        const name = names.of(code);
        if (!name || name === code) continue;
        const key = fold(name);
        const codes = found.get(key) ?? new Set<string>();
        codes.add(code);
        found.set(key, codes);
      }
    }
  }
  const out = new Map<string, string>();
  for (const [name, codes] of found) if (codes.size === 1) out.set(name, [...codes][0]!);
  return out;
})();

/**
 * The code of a country as people write it: an assigned alpha-2 code in any case (UK, which ISO reserves for the
 * United Kingdom and people type, is GB), or its Dutch or English name in any letter case ("Nederland",
 * "netherlands", "Verenigd Koninkrijk", "UK"). Undefined for anything else: never a guess.
 */
export function parseCountry(value: string): string | undefined {
  const trimmed = value.trim();
  if (/^[A-Za-z]{2}$/.test(trimmed)) {
    const upper = trimmed.toUpperCase();
    const code = upper === 'UK' ? 'GB' : upper;
    if (CODES.has(code)) return code;
  }
  return BY_NAME.get(fold(trimmed));
}

/** Every country as [code, name] in the language, sorted by name as that language sorts. */
export function countryChoices(locale: Locale): [code: string, name: string][] {
  const names = new Intl.DisplayNames([locale], { type: 'region' });
  const collator = new Intl.Collator(locale);
  return COUNTRY_CODES.map((code) => [code, names.of(code) ?? code] as [string, string]).sort((a, b) =>
    collator.compare(a[1], b[1]),
  );
}
