// Value rules every capability shares: an email address, a phone number in E.164, a country code, a length
// in characters as a person counts them.
// Pragmatic address check: one @, no spaces or control characters, a dotted domain of valid labels.
const EMAIL =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export function isValidEmail(value: string): boolean {
  if (!EMAIL.test(value)) return false;
  const local = value.slice(0, value.lastIndexOf('@'));
  return local.length <= 64 && !local.startsWith('.') && !local.endsWith('.') && !local.includes('..');
}

/** Returns the E.164 form, or an error message. */
export function normalizePhone(value: string): { phone: string } | { error: string } {
  if (!value.startsWith('+')) return { error: 'must be in international format, starting with "+"' };
  const rest = value.slice(1);
  if (!/^[0-9 ().-]+$/.test(rest)) {
    return { error: 'may hold only digits, spaces, dashes, dots and parentheses after the "+"' };
  }
  const digits = rest.replace(/[^0-9]/g, '');
  if (digits.length < 8 || digits.length > 15) return { error: 'must hold 8 to 15 digits' };
  if (digits.startsWith('0')) return { error: 'country code cannot start with 0' };
  return { phone: `+${digits}` };
}

// The officially assigned ISO 3166-1 alpha-2 codes. Intl's region names are no test: they also know ZZ
// ("Unknown Region"), EU, UN, UK and withdrawn codes such as AN, none of which is a country to store.
const COUNTRY_CODES = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT ' +
    'BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ' +
    'ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT ' +
    'HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS ' +
    'LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI ' +
    'NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG ' +
    'SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
    'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
  ).split(' '),
);

/**
 * Upper-cases a country code and maps UK (exceptionally reserved by ISO for the United Kingdom, and what people
 * type) to GB. Returns undefined for anything that is not an assigned code.
 */
export function normalizeCountry(value: string): string | undefined {
  const upper = value.trim().toUpperCase();
  const code = upper === 'UK' ? 'GB' : upper;
  return COUNTRY_CODES.has(code) ? code : undefined;
}

/** Code points, so an emoji counts as one character as a person would count it. */
export function characterLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}
