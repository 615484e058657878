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
} as const;

/** PUT /v1/metrics/:name. Fields a GET returns (name, source_lag, ...) may be echoed back. */
export const metricPutSchema = {
  type: 'object',
  properties: { ...metricProperties, name: { type: 'string' } },
} as const;

/** PUT /v1/metrics (batch): `names` plus properties, attributes nested or at the top level. */
export const metricBatchUpdateSchema = {
  type: 'object',
  required: ['names'],
  properties: {
    names: namesSchema(),
    ...metricProperties,
    ...attributesSchema.properties,
  },
} as const;

export const metricBatchDeleteSchema = {
  type: 'object',
  required: ['names'],
  properties: { names: namesSchema() },
} as const;

function namesSchema() {
  return {
    anyOf: [
      { type: 'array', minItems: 1, maxItems: 10000, items: { type: 'string', minLength: 1, maxLength: 255 } },
      { type: 'string', minLength: 1, maxLength: 255 },
    ],
  };
}
