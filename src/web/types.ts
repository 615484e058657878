// The /v1 resources as the UI reads them (the spec's field tables; docs/api.md).

export interface Page { found: number; length: number; offset: number; total: number }

export interface SpaceSummary { id: number; name: string }
export interface Space extends SpaceSummary { charts: { id: number }[] }

/** `values` may be left out (the API accepts that): the tag then matches every value. */
export interface StreamTag { name: string; values?: string[]; grouped?: boolean; dynamic?: boolean }

export type GroupFunction = 'average' | 'sum' | 'min' | 'max' | 'breakout';
export type ChartSummary = 'average' | 'sum' | 'min' | 'max' | 'count';

export interface Stream {
  id?: number;
  metric?: string;
  type?: string;
  tags?: StreamTag[];
  composite?: string;
  group_function?: GroupFunction;
  summary_function?: ChartSummary;
  downsample_function?: ChartSummary;
  color?: string;
  name?: string;
  units_short?: string;
  units_long?: string;
  min?: number;
  max?: number;
  transform_function?: string;
  period?: number;
}

export interface Threshold { operator: '>' | '<' | '='; value: number; type: 'red' | 'yellow' }

export type ChartType = 'line' | 'stacked' | 'bignumber';

export interface Chart {
  id: number;
  name: string;
  type: ChartType;
  streams: Stream[];
  min?: number | null;
  max?: number | null;
  label?: string | null;
  related_space?: number | null;
  thresholds?: Threshold[] | null;
}

export interface Measurement { time: number; value: number }
export interface SeriesResponse {
  name: string;
  resolution: number;
  series: { tags: Record<string, string>; measurements: Measurement[] }[];
  links: { rel: string; href: string }[];
}
export type CompositeResponse = { tags: Record<string, string>; measurements: Measurement[]; metric?: { name: string } }[];

export interface Metric { name: string; display_name?: string | null; description?: string | null; type: string; period?: number | null; attributes?: Record<string, unknown> }

export interface AnnotationStream { name: string; display_name?: string | null }
export interface AnnotationLink { rel: string; href: string; label?: string | null }
export interface AnnotationEvent { id: number; title: string; description?: string | null; source?: string | null; start_time: number; end_time?: number | null; links?: AnnotationLink[] }

export interface Condition {
  id?: number;
  type: 'above' | 'below' | 'absent';
  metric_name: string;
  source?: string | null;
  tags?: StreamTag[];
  threshold?: number | null;
  summary_function?: string | null;
  duration?: number | null;
  detect_reset?: boolean;
}

export interface Service { id: number; type: string; title: string; settings: Record<string, unknown> }

export interface Alert {
  id: number;
  name: string;
  description?: string | null;
  version?: number;
  conditions: Condition[];
  services: Service[];
  attributes?: Record<string, unknown>;
  active: boolean;
  rearm_seconds?: number | null;
  md?: boolean;
}

export interface AlertStatusList { firing: { id: number; triggered_at: number }[]; cleared: { id: number; cleared_at: number }[] }

export interface Delivery { time: number; kind: string; status: string; error?: string | null; duration_ms?: number }
