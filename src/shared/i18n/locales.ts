// The languages people read lead-intake in, and how a request's language is chosen.

/** Dutch and English: every page, form and mail exists in both. */
export const LOCALES = ['nl', 'en'] as const;
export type Locale = (typeof LOCALES)[number];

/** The language of pages nobody chose one for (before sign-in, without Accept-Language). */
export const FALLBACK_LOCALE: Locale = 'en';

export function isLocale(value: unknown): value is Locale {
  return value === 'nl' || value === 'en';
}

/** The `Intl` locale a language formats dates, times and numbers in. */
export const INTL_LOCALE: Record<Locale, string> = { nl: 'nl-NL', en: 'en-GB' };

/** A new brand's language when none is given: Dutch for a Dutch business, else English. */
export function defaultBrandLocale(country: string): Locale {
  return country.toUpperCase() === 'NL' ? 'nl' : 'en';
}

/**
 * The `nl` or `en` an Accept-Language header prefers most by its weights (`nl-BE` counts as `nl`, `*` as
 * neither), else English. Ties go to the one listed first, as browsers list by preference.
 */
export function negotiateLocale(header: string | undefined): Locale {
  if (!header) return FALLBACK_LOCALE;
  let best: { locale: Locale; weight: number } | undefined;
  for (const part of header.slice(0, 1000).split(',')) {
    const [range = '', ...params] = part.trim().split(';');
    const primary = range.trim().toLowerCase().split('-')[0];
    if (!isLocale(primary)) continue;
    let weight = 1;
    for (const param of params) {
      const [name, value] = param.split('=').map((s) => s.trim());
      if (name === 'q') weight = Number(value);
    }
    if (!Number.isFinite(weight) || weight <= 0 || weight > 1) continue;
    if (!best || weight > best.weight) best = { locale: primary, weight };
  }
  return best?.locale ?? FALLBACK_LOCALE;
}
