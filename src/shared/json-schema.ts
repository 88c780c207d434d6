// Small TypeBox building blocks shared by domain shapes and HTTP schemas.
import { Type } from '@sinclair/typebox';

/** A JSON value that is a string or null (one schema keyword, fast to serialise). */
export function NullableString(options: { description?: string; format?: string } = {}) {
  return Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });
}

export const Timestamp = (description?: string) =>
  Type.String({ format: 'date-time', ...(description ? { description } : {}) });
