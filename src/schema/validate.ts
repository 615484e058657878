// ajv schemas for request bodies; failures become 400s keyed by field path
// (`measurements[3].tags`), as the spec's `errors.params`. Used by the routes and by the
// ingest parsers alike, so it sits below both.
import { Ajv, type ErrorObject, type JSONSchemaType, type ValidateFunction } from 'ajv';
import { ApiError, type ParamErrors, fieldErrors } from '../errors.js';

export const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false });

export type Schema = Record<string, unknown>;

export function compile<T>(schema: Schema | JSONSchemaType<T>): ValidateFunction<T> {
  return ajv.compile<T>(safeIntegers(schema as Schema));
}

/**
 * A copy of `schema` whose integer fields without bounds of their own are bounded to
 * the safe integers. JSON has no integer type: `6e300` has no fraction, so ajv's
 * `integer` takes it, yet it is no id, no count and no time, and past 2^53 a number no
 * longer reads back as the integer that was sent (an alert's rearm_seconds was answered
 * as 6e+300, a source-based count of 6e300 was stored).
 */
export function safeIntegers<S>(schema: S): S {
  if (Array.isArray(schema)) return schema.map(safeIntegers) as S;
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) out[key] = safeIntegers(value);
  const type = out.type;
  if (type === 'integer' || (Array.isArray(type) && type.includes('integer'))) {
    out.minimum ??= Number.MIN_SAFE_INTEGER;
    out.maximum ??= Number.MAX_SAFE_INTEGER;
  }
  return out as S;
}

/** Validates, or throws a 400 with every problem listed under its field. */
export function check<T>(validate: ValidateFunction<T>, data: unknown): T {
  if (validate(data)) return data;
  throw new ApiError(400, { params: paramsFromAjv(validate.errors ?? []) });
}

/** Like check(), for one element of a larger body: field paths get `prefix` in front. */
export function checkElement<T>(validate: ValidateFunction<T>, data: unknown, prefix: string): T {
  if (validate(data)) return data;
  throw new ApiError(400, { params: paramsFromAjv(validate.errors ?? [], prefix) });
}

export function paramsFromAjv(errors: ErrorObject[], prefix = ''): ParamErrors {
  const params = fieldErrors();
  for (const e of errors) {
    let field = prefix + fieldPath(e.instancePath, prefix !== '');
    let message = e.message ?? 'is invalid';
    // propertyNames: the name's own error carries the name; the summary after it says no more
    if (e.keyword === 'propertyNames') continue;
    if (e.propertyName !== undefined) {
      field = field ? `${field}.${e.propertyName}` : e.propertyName;
      message = `as a field name, ${message}`;
    }
    switch (e.keyword) {
      case 'required': {
        const missing = (e.params as { missingProperty: string }).missingProperty;
        field = field ? `${field}.${missing}` : missing;
        message = 'is required';
        break;
      }
      case 'additionalProperties':
        field = field ? `${field}.${(e.params as { additionalProperty: string }).additionalProperty}` : (e.params as { additionalProperty: string }).additionalProperty;
        message = 'is not a known field';
        break;
      case 'enum':
        message = `must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.map(String).join(', ')}`;
        break;
      case 'type':
        message = `must be ${typeWords(String((e.params as { type: string }).type))}`;
        break;
      case 'maximum':
      case 'minimum': {
        // a huge bound reads better as the power of two it is (2^40 for a count, 2^53 - 1 for any integer)
        const { limit } = e.params as { limit: number };
        if (Math.abs(limit) >= 2 ** 32) message = `must be ${e.keyword === 'maximum' ? 'at most' : 'at least'} ${bigLimit(limit)}`;
        break;
      }
    }
    if (e.keyword === 'if' || e.keyword === 'anyOf' || e.keyword === 'oneOf') {
      if (errors.length > 1) continue;
    }
    const key = field || 'body';
    (params[key] ??= []).includes(message) || params[key]!.push(message);
  }
  return params;
}

function bigLimit(n: number): string {
  const abs = Math.abs(n);
  const power = (x: number) => { const k = Math.round(Math.log2(x)); return 2 ** k === x ? k : null; };
  const exact = power(abs);
  const below = exact === null ? power(abs + 1) : null;
  const text = exact !== null ? `2^${exact}` : below !== null ? `2^${below} - 1` : String(abs);
  return n < 0 ? `-${below !== null ? `(${text})` : text}` : text;
}

const TYPE_WORDS: Record<string, string> = {
  integer: 'an integer', number: 'a number', string: 'a string', boolean: 'true or false',
  object: 'an object', array: 'an array', null: 'null',
};

function typeWords(types: string): string {
  const list = types.split(',');
  if (list.length === 1) return TYPE_WORDS[list[0]!] ?? list[0]!;
  const words = list.map((t) => (t === 'boolean' ? 'a boolean' : TYPE_WORDS[t] ?? t));
  return `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

function fieldPath(instancePath: string, nested = false): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : acc || nested ? `${acc}.${seg}` : seg), '');
}

const formAjv = new Ajv({ allErrors: true, strict: false, coerceTypes: true });

/**
 * A request-body validator that reads JSON as it is and form bodies (where every value
 * arrives as a string) with type coercion, so `period=60` and `{"period": 60}` agree.
 */
export interface BodyValidator<T> {
  (body: unknown, isForm: boolean): T;
}

/**
 * `formSchema`: where a form needs types the JSON schema leaves to the domain's own checks
 * (which name the problem better), so that coercion knows what a nested value should be.
 */
export function bodyValidator<T>(schema: Schema, formSchema: Schema = schema): BodyValidator<T> {
  // compiled at the first body it checks, not when the route module is imported: the
  // routes' schemas were a fifth of the service's start-up CPU (0.25 of 1.2 s), paid again
  // by every command and test process that imports them and by resources nobody writes to
  let compiled: { json: ValidateFunction<T>; form: ValidateFunction<T> } | null = null;
  return (body, isForm) => {
    compiled ??= compileBoth<T>(schema, formSchema);
    return check(isForm ? compiled.form : compiled.json, body);
  };
}

/** The strict (JSON) validator of a schema and the coercing (form) one of `formSchema` (the same by default). */
export function compileBoth<T>(schema: Schema, formSchema: Schema = schema): { json: ValidateFunction<T>; form: ValidateFunction<T> } {
  return { json: ajv.compile<T>(safeIntegers(schema)), form: formAjv.compile<T>(safeIntegers(formSchema)) };
}
