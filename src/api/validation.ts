// Request validation: strict ajv for bodies, coercing ajv for query and path, domain parsers for some bodies.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema } from 'fastify';
import { parseLeadPatch, parseNoteBody, parseStatusChange } from '../leads/index.js';
import { parseLeadInput } from '../leads/input.js';
import { isCursor, isTimestamp } from '../shared/paging.js';

const BODY_VALIDATORS: Record<string, (body: unknown) => unknown> = {
  'lead-create': parseLeadInput,
  'status-change': parseStatusChange,
  'note-create': parseNoteBody,
  'lead-patch': parseLeadPatch,
};

// ajv-formats is CommonJS with a default export: take it either way.
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ??
  (addFormatsModule as unknown as AddFormats);

/**
 * ajv's coercion turns "1e2", "0x10" and "Infinity" into numbers; a whole-number parameter must be written as one.
 * Wraps a query validator so such values fail as "must be a whole number" alongside ajv's own errors.
 * A parameter whose schema has `x-served-max` (limit: values above 100 are served as 100) takes any whole number
 * above that maximum, however many digits it has, as the maximum.
 */
function strictIntegers(schema: Record<string, unknown>, validate: ValidateFunction) {
  const properties = (schema.properties ?? {}) as Record<
    string,
    { type?: unknown; 'x-served-max'?: unknown }
  >;
  const integers = Object.keys(properties).filter((k) => properties[k]?.type === 'integer');
  if (!integers.length) return validate;
  const wrapped = (data: Record<string, unknown>) => {
    for (const k of integers) {
      const max = properties[k]?.['x-served-max'];
      const value = data?.[k];
      if (typeof max === 'number' && typeof value === 'string' && /^\s*\+?\d+\s*$/.test(value)) {
        if (BigInt(value.trim()) > BigInt(max)) data[k] = String(max);
      }
    }
    const bad = integers.filter(
      (k) => typeof data?.[k] === 'string' && !/^\s*[+-]?\d{1,15}\s*$/.test(data[k] as string),
    );
    const valid = validate(data);
    const errors = [
      ...bad.map((k) => ({
        instancePath: `/${k}`,
        keyword: 'type',
        params: { type: 'integer' },
        message: 'must be integer',
      })),
      ...(validate.errors ?? []).filter((e) => !bad.some((k) => e.instancePath === `/${k}`)),
    ];
    (wrapped as unknown as { errors: unknown }).errors = errors.length ? errors : null;
    return valid && !bad.length;
  };
  return wrapped;
}

/**
 * Fastify's validator compiler. A body schema naming an x-validator is parsed by that domain function,
 * so the handler receives the normalised value and the errors are the domain's own.
 */
export function compileValidators() {
  // Bodies: no type coercion (a number is not a string), no silent stripping of unknown fields, every error.
  const bodyAjv = addFormats(
    new Ajv({
      coerceTypes: false,
      removeAdditional: false,
      allErrors: true,
      useDefaults: false,
      strict: false,
    }),
  );
  // Query strings and path parameters arrive as text: coerce "20" to 20, still report unknown parameters.
  const paramAjv = addFormats(
    new Ajv({
      coerceTypes: true,
      removeAdditional: false,
      allErrors: true,
      useDefaults: true,
      strict: false,
      verbose: true,
    }),
  );
  // The filters' own rules, so one 422 names every bad parameter at once.
  paramAjv.addFormat('date-time', { type: 'string', validate: isTimestamp });
  paramAjv.addFormat('cursor', { type: 'string', validate: isCursor });
  for (const ajv of [bodyAjv, paramAjv]) ajv.addKeyword('x-validator').addKeyword('x-error');
  return ({ schema, httpPart }: { schema: FastifySchema & Record<string, unknown>; httpPart?: string }) => {
    const custom = httpPart === 'body' ? BODY_VALIDATORS[String(schema['x-validator'])] : undefined;
    if (custom) {
      return (data: unknown) => {
        try {
          return { value: custom(data) };
        } catch (error) {
          return { error: error as Error };
        }
      };
    }
    const validate: ValidateFunction = (httpPart === 'body' ? bodyAjv : paramAjv).compile(schema);
    return httpPart === 'querystring' ? strictIntegers(schema, validate) : validate;
  };
}
