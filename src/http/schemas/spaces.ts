// JSON Schemas of spaces and charts as clients send them. Field-by-field rules live
// here; rules across fields (composite vs metric, bignumber needs thresholds, the
// transform formula, related_space ownership) are in domain/spaces.ts.
import { METRIC_NAME } from '../../domain/names.js';
import { CHART_TYPES, THRESHOLD_OPERATORS, THRESHOLD_TYPES, type ChartField } from '../../domain/chart-input.js';

const GROUP_FUNCTIONS = ['average', 'sum', 'min', 'max', 'breakout'] as const;
const SUMMARY_FUNCTIONS = ['max', 'min', 'average', 'sum', 'count'] as const;

const MAX_STREAMS = 100;
const MAX_THRESHOLDS = 10;
export const MAX_NAME_LENGTH = 255;

/** Blank names and control characters are refused by domain/text.ts. */
export const nameSchema = { type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH };
const optionalText = { type: ['string', 'null'], maxLength: MAX_NAME_LENGTH };
const optionalNumber = { type: ['number', 'null'] };
const color = { type: ['string', 'null'], pattern: '^#[0-9A-Fa-f]{6}$' };

/**
 * Fields clients send that the spec does not name (`use_log_yaxis`, `use_last_value`,
 * legacy `source`...) are kept and echoed, but only as short scalars under plain names,
 * so that an object cannot use them to store arbitrary data.
 */
const EXTRA_FIELD = { type: ['boolean', 'number', 'string', 'null'], maxLength: MAX_NAME_LENGTH };
const EXTRA_NAME = { pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' };
const MAX_FIELDS = 40;

const tagSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', pattern: '^[-.:_A-Za-z0-9]{1,64}$' },
    // tag value characters plus the `*` wildcard
    values: { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', pattern: '^[-.:_?\\\\/A-Za-z0-9 *]{1,255}$' } },
    grouped: { type: 'boolean' },
    dynamic: { type: 'boolean' },
  },
};

const FUNCTIONS = { enum: SUMMARY_FUNCTIONS };

const streamSchema = {
  type: 'object',
  maxProperties: MAX_FIELDS,
  propertyNames: EXTRA_NAME,
  properties: {
    // Server-owned, accepted so a GET body can be sent back: `id` keeps an existing
    // stream's id, `type` is always recomputed.
    id: {},
    type: {},
    metric: { type: 'string', pattern: METRIC_NAME.source },
    tags: { type: 'array', maxItems: 50, items: tagSchema },
    composite: { type: 'string', minLength: 1, maxLength: 4096 },
    group_function: { enum: GROUP_FUNCTIONS },
    summary_function: FUNCTIONS,
    downsample_function: FUNCTIONS,
    color,
    name: optionalText,
    units_short: optionalText,
    units_long: optionalText,
    min: optionalNumber,
    max: optionalNumber,
    transform_function: { type: ['string', 'null'] },
    period: { type: ['integer', 'null'], minimum: 1, maximum: 86400 },
  },
  additionalProperties: EXTRA_FIELD,
};

const thresholdSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['operator', 'value', 'type'],
  properties: {
    operator: { enum: THRESHOLD_OPERATORS },
    value: { type: 'number' },
    type: { enum: THRESHOLD_TYPES },
  },
};

/** POST creates (name required); PUT/POST on a chart updates what it names. */
export function chartSchema(create: boolean) {
  const properties = {
    id: {},
    name: nameSchema,
    type: { enum: CHART_TYPES },
    streams: { type: 'array', maxItems: MAX_STREAMS, items: streamSchema },
    min: optionalNumber,
    max: optionalNumber,
    label: optionalText,
    // any integer, stored as given (domain/spaces.ts says why), but one that reads back as sent
    related_space: { type: ['integer', 'null'] },
    thresholds: { type: ['array', 'null'], maxItems: MAX_THRESHOLDS, items: thresholdSchema },
  } satisfies Record<ChartField, unknown>;
  return {
    type: 'object',
    required: create ? ['name'] : [],
    maxProperties: MAX_FIELDS,
    propertyNames: EXTRA_NAME,
    properties,
    additionalProperties: EXTRA_FIELD,
  };
}

export const spaceSchema = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: nameSchema,
    tags: { type: 'boolean' },
    // echoes of a GET body; server-owned, ignored
    id: {},
    charts: {},
  },
};
