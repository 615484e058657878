// Spaces and charts as clients send them: the input types the rules in spaces.ts take,
// and the field names and value lists that the JSON schemas at the edge
// (http/schemas/spaces.ts) are built from.

export const CHART_TYPES = ['line', 'stacked', 'bignumber'] as const;
export const THRESHOLD_OPERATORS = ['>', '<', '='] as const;
export const THRESHOLD_TYPES = ['red', 'yellow'] as const;

export type ChartType = (typeof CHART_TYPES)[number];
export type Scalar = string | number | boolean | null;

/**
 * The fields a chart body may name; anything else is an extra, echoed as sent. The
 * chart schema has exactly these properties (checked by its type).
 */
export const CHART_FIELDS = ['id', 'name', 'type', 'streams', 'min', 'max', 'label', 'related_space', 'thresholds'] as const;
export type ChartField = (typeof CHART_FIELDS)[number];

export interface StreamTag {
  name: string;
  values?: string[];
  grouped?: boolean;
  dynamic?: boolean;
}

export interface Threshold {
  operator: (typeof THRESHOLD_OPERATORS)[number];
  value: number;
  type: (typeof THRESHOLD_TYPES)[number];
}

/** A stream as the body carries it: the known fields plus extras. */
export interface StreamInput {
  id?: unknown;
  metric?: string;
  tags?: StreamTag[];
  composite?: string;
  group_function?: string;
  downsample_function?: string;
  transform_function?: string | null;
  min?: number | null;
  max?: number | null;
  [field: string]: unknown;
}

export interface ChartInput {
  name?: string;
  type?: ChartType;
  streams?: StreamInput[];
  min?: number | null;
  max?: number | null;
  label?: string | null;
  related_space?: number | null;
  thresholds?: Threshold[] | null;
  [field: string]: unknown;
}

export interface SpaceInput {
  name: string;
  /** Librato's space-level tag filter switch; the Python client always sends it */
  tags?: boolean;
}
