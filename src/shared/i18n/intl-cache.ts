// Intl date formats made once and kept, for every place that writes dates and times.

const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * One Intl.DateTimeFormat per locale, zone and options, made on first use and kept: making one costs far more
 * than formatting with it, and a page or export formats thousands of times in a handful of zones.
 */
export function zonedFormat(
  locale: string,
  zone: string,
  options: Readonly<Intl.DateTimeFormatOptions>,
): Intl.DateTimeFormat {
  const key = `${locale}|${zone}|${JSON.stringify(options)}`;
  let format = dateTimeFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, { ...options, timeZone: zone });
    dateTimeFormats.set(key, format);
  }
  return format;
}
