// What a metric's attributes may be: their type, and the JSON schema that every path
// setting them checks them with (the metric routes, and both measurement APIs, whose
// elements may carry attributes for a metric they create).

export type SummarizeFunction = 'average' | 'sum' | 'count' | 'min' | 'max';

export interface MetricAttributes {
  color?: string | null;
  display_max?: number | null;
  display_min?: number | null;
  display_units_long?: string | null;
  display_units_short?: string | null;
  display_stacked?: boolean;
  summarize_function?: SummarizeFunction;
  aggregate?: boolean;
  gap_detection?: boolean;
  /** how charts transform values for display, e.g. `x/1024` (Librato attribute the clients send) */
  display_transform?: string | null;
  created_by_ua?: string;
}

const SUMMARIZE = ['average', 'sum', 'count', 'min', 'max'];

export const attributesSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    color: { type: ['string', 'null'], pattern: '^#[0-9A-Fa-f]{6}$' },
    display_max: { type: ['number', 'null'] },
    display_min: { type: ['number', 'null'] },
    display_units_long: { type: ['string', 'null'], maxLength: 255 },
    display_units_short: { type: ['string', 'null'], maxLength: 255 },
    display_stacked: { type: 'boolean' },
    summarize_function: { enum: SUMMARIZE },
    aggregate: { type: 'boolean' },
    gap_detection: { type: 'boolean' },
    display_transform: { type: ['string', 'null'], maxLength: 255 },
    // Server-owned; accepted so that a GET body can be PUT back, but never taken.
    created_by_ua: { type: ['string', 'null'] },
  },
} as const;
