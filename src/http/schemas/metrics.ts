// JSON Schemas of the metric catalogue's request bodies (field-by-field rules; rules
// across fields are in domain/metrics.ts).
import { attributesSchema } from '../../domain/metric-attributes.js';

const metricProperties = {
  type: { enum: ['gauge', 'composite', 'counter'] },
  display_name: { type: ['string', 'null'], maxLength: 255 },
  description: { type: ['string', 'null'], maxLength: 1024 },
  period: { type: ['integer', 'null'], minimum: 1, maximum: 86400 },
  attributes: attributesSchema,
  composite: { type: ['string', 'null'], maxLength: 8192 },
  source_lag: { type: ['integer', 'null'], minimum: 0, maximum: 86400 },
} as const;

/**
 * PUT /v1/metrics/:name. Fields a GET returns (name, source_lag, ...) may be echoed back;
 * anything else is a 400 naming it: `{"perod": 60}` answered 204 and changed nothing.
 */
export const metricPutSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { ...metricProperties, name: { type: 'string' } },
} as const;

/**
 * PUT /v1/metrics (batch): `names` and `exclude` plus properties, attributes nested or at
 * the top level. Closed: a key we do not understand could change which metrics are
 * touched or how, so it is a 400 naming it, never silently ignored.
 */
export const metricBatchUpdateSchema = {
  type: 'object',
  required: ['names'],
  additionalProperties: false,
  properties: {
    names: namesSchema(),
    exclude: namesSchema(0),
    ...metricProperties,
    ...attributesSchema.properties,
  },
} as const;

/** DELETE /v1/metrics (batch): `names` and `exclude`, nothing else (closed, as above). */
export const metricBatchDeleteSchema = {
  type: 'object',
  required: ['names'],
  additionalProperties: false,
  properties: { names: namesSchema(), exclude: namesSchema(0) },
} as const;

/** A list of metric names or `*` patterns, or one of them. */
function namesSchema(minItems = 1) {
  return {
    anyOf: [
      { type: 'array', minItems, maxItems: 10000, items: { type: 'string', minLength: 1, maxLength: 255 } },
      { type: 'string', minLength: 1, maxLength: 255 },
    ],
  };
}
