// What a form asks: the lead fields it shows, in its order, each optional or required, and the business's own
// questions. Parsed from POST/PATCH /v1/forms and Settings > Forms; stored as JSON text on the form.
import { formFieldNames, type LeadFieldName, leadField } from '../leads/fields.js';
import type { FieldError } from '../shared/errors.js';
import { characterLength } from '../shared/values.js';

export interface FormField {
  name: LeadFieldName;
  required: boolean;
}

export const QUESTION_TYPES = ['text', 'textarea', 'select', 'checkbox'] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

export interface FormQuestion {
  key: string;
  label: string;
  type: QuestionType;
  /** A select's choices, in order; null for the other types. */
  options: string[] | null;
  required: boolean;
}

export const MAX_QUESTIONS = 20;
export const MAX_OPTIONS = 50;
export const MAX_LABEL = 200;
export const MAX_OPTION = 200;
export const MAX_KEY = 64;
const KEY = /^[A-Za-z0-9_]+$/;

/** The fields a form may show: every lead field the public form knows (priority is the brand's, a default). */
export const SHOWABLE_FIELDS: readonly LeadFieldName[] = formFieldNames();

/** The spec's required fields: on every form, always required. */
export const ALWAYS_REQUIRED: readonly LeadFieldName[] = SHOWABLE_FIELDS.filter((n) => leadField(n).required);

/** A new form's fields when it names none (email or phone: a post needs one of them, see submission.ts). */
export const DEFAULT_FIELDS: readonly FormField[] = (
  [
    'title',
    'description',
    'customerName',
    'email',
    'phone',
    'street',
    'streetNumber',
    'postalCode',
    'city',
  ] as const
).map((name) => ({ name, required: ALWAYS_REQUIRED.includes(name) }));

const order = (name: LeadFieldName) => leadField(name).formOrder ?? Number.MAX_SAFE_INTEGER;

/**
 * Puts the always-required fields a list leaves out where the field table's order places them (before the first
 * listed field that comes after them), and marks them required.
 */
export function withRequiredFields(fields: readonly FormField[]): FormField[] {
  const out = fields.map((f) => ({ name: f.name, required: f.required || ALWAYS_REQUIRED.includes(f.name) }));
  for (const name of ALWAYS_REQUIRED) {
    if (out.some((f) => f.name === name)) continue;
    const at = out.findIndex((f) => order(f.name) > order(name));
    out.splice(at === -1 ? out.length : at, 0, { name, required: true });
  }
  return out;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `fields` of a form's input: every problem into `errors`; undefined when it is not valid. */
export function parseFields(value: unknown, errors: FieldError[]): FormField[] | undefined {
  if (!Array.isArray(value)) {
    errors.push({
      field: 'fields',
      message: 'must be an array of { name, required? }',
      text: { key: 'validation.invalid' },
    });
    return undefined;
  }
  const before = errors.length;
  const out: FormField[] = [];
  value.forEach((item, i) => {
    if (!isObject(item)) {
      errors.push({
        field: `fields[${i}]`,
        message: 'must be an object { name, required? }',
        text: { key: 'validation.invalid' },
      });
      return;
    }
    const { name, required } = item;
    if (typeof name !== 'string' || !(SHOWABLE_FIELDS as readonly string[]).includes(name)) {
      errors.push({
        field: `fields[${i}].name`,
        message: `must be one of ${SHOWABLE_FIELDS.join(', ')}`,
        text: { key: 'forms.validation.fieldName', values: { value: String(name) } },
      });
      return;
    }
    if (out.some((f) => f.name === name)) {
      errors.push({
        field: `fields[${i}].name`,
        message: `names ${name} a second time`,
        text: { key: 'forms.validation.fieldTwice', values: { value: name } },
      });
      return;
    }
    if (required !== undefined && typeof required !== 'boolean') {
      errors.push({
        field: `fields[${i}].required`,
        message: 'must be true or false',
        text: { key: 'validation.invalid' },
      });
      return;
    }
    out.push({ name: name as LeadFieldName, required: required === true });
  });
  return errors.length > before ? undefined : withRequiredFields(out);
}

/** Names a question's key may not take: the lead fields and what the public endpoint reads itself. */
export function parseQuestions(
  value: unknown,
  reserved: ReadonlySet<string>,
  errors: FieldError[],
): FormQuestion[] | undefined {
  if (!Array.isArray(value)) {
    errors.push({
      field: 'questions',
      message: 'must be an array of { key, label, type, options?, required? }',
      text: { key: 'validation.invalid' },
    });
    return undefined;
  }
  if (value.length > MAX_QUESTIONS) {
    errors.push({
      field: 'questions',
      message: `must hold at most ${MAX_QUESTIONS} questions`,
      text: { key: 'forms.validation.tooManyQuestions', values: { max: MAX_QUESTIONS } },
    });
    return undefined;
  }
  const before = errors.length;
  const out: FormQuestion[] = [];
  value.forEach((item, i) => {
    const at = `questions[${i}]`;
    if (!isObject(item)) {
      errors.push({
        field: at,
        message: 'must be an object { key, label, type, options?, required? }',
        text: { key: 'validation.invalid' },
      });
      return;
    }
    const problems = errors.length;
    const key = typeof item.key === 'string' ? item.key.trim() : item.key;
    if (typeof key !== 'string' || key === '') {
      errors.push({ field: `${at}.key`, message: 'is required', text: { key: 'validation.required' } });
    } else if (!KEY.test(key) || key.length > MAX_KEY) {
      errors.push({
        field: `${at}.key`,
        message: `must be letters, digits and "_" (at most ${MAX_KEY})`,
        text: { key: 'forms.validation.questionKey', values: { max: MAX_KEY } },
      });
    } else if (reserved.has(key)) {
      errors.push({
        field: `${at}.key`,
        message: `must not be the name of a lead field or of a field the form sends itself ("${key}")`,
        text: { key: 'forms.validation.questionKeyReserved', values: { value: key } },
      });
    } else if (out.some((q) => q.key === key)) {
      errors.push({
        field: `${at}.key`,
        message: `is used by another question ("${key}")`,
        text: { key: 'forms.validation.questionKeyTwice', values: { value: key } },
      });
    }
    const label = typeof item.label === 'string' ? item.label.trim() : item.label;
    if (typeof label !== 'string' || label === '') {
      errors.push({ field: `${at}.label`, message: 'is required', text: { key: 'validation.required' } });
    } else if (characterLength(label) > MAX_LABEL) {
      errors.push({
        field: `${at}.label`,
        message: `must be at most ${MAX_LABEL} characters`,
        text: { key: 'validation.tooLong', values: { max: MAX_LABEL } },
      });
    }
    const type = item.type;
    if (typeof type !== 'string' || !(QUESTION_TYPES as readonly string[]).includes(type)) {
      errors.push({
        field: `${at}.type`,
        message: `must be one of ${QUESTION_TYPES.join(', ')}`,
        text: { key: 'validation.choice' },
      });
    }
    let options: string[] | null = null;
    if (type === 'select') {
      options = parseOptions(item.options, `${at}.options`, errors);
    } else if (item.options !== undefined && item.options !== null) {
      errors.push({
        field: `${at}.options`,
        message: 'are only for a question of type select',
        text: { key: 'forms.validation.optionsOnlySelect' },
      });
    }
    if (item.required !== undefined && typeof item.required !== 'boolean') {
      errors.push({
        field: `${at}.required`,
        message: 'must be true or false',
        text: { key: 'validation.invalid' },
      });
    }
    if (errors.length > problems) return;
    out.push({
      key: key as string,
      label: label as string,
      type: type as QuestionType,
      options,
      required: item.required === true,
    });
  });
  return errors.length > before ? undefined : out;
}

function parseOptions(value: unknown, field: string, errors: FieldError[]): string[] | null {
  const bad = () => {
    errors.push({
      field,
      message: `must be 1 to ${MAX_OPTIONS} different non-empty texts (each at most ${MAX_OPTION} characters)`,
      text: { key: 'forms.validation.options', values: { max: MAX_OPTIONS, length: MAX_OPTION } },
    });
    return null;
  };
  if (!Array.isArray(value) || value.length < 1 || value.length > MAX_OPTIONS) return bad();
  const out: string[] = [];
  for (const option of value) {
    if (typeof option !== 'string') return bad();
    const trimmed = option.trim();
    if (trimmed === '' || characterLength(trimmed) > MAX_OPTION || out.includes(trimmed)) return bad();
    out.push(trimmed);
  }
  return out;
}

/** A stored list read back (JSON text written by parseFields / parseQuestions, or the migration). */
export function storedFields(json: string | null | undefined): FormField[] {
  if (!json) return [...DEFAULT_FIELDS];
  const list = JSON.parse(json) as FormField[];
  return withRequiredFields(list.filter((f) => (SHOWABLE_FIELDS as readonly string[]).includes(f.name)));
}

export function storedQuestions(json: string | null | undefined): FormQuestion[] {
  return json ? (JSON.parse(json) as FormQuestion[]) : [];
}
