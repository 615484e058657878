// One scrape's parsed samples -> v1 samples, by the rules every write follows (metric
// name and tag charsets, the accepted time range, the tag count) plus Prometheus's
// (honor_labels, metric_relabel_configs, sample_limit, label_limit, honor_timestamps).
// A sample the v1 rules refuse is counted by reason and the rest stored; a limit
// exceeded fails the whole scrape, as in Prometheus. Pure: no storage, no clock.
import { METRIC_NAME, canonicalMetricName } from '../domain/names.js';
import { valueSample, type Sample } from '../tsdb/sample.js';
import type { TimeWindow } from '../ingest/time-window.js';
import type { ScrapedSample } from './parse.js';
import type { ScrapeJob } from './config.js';
import { sampleLabels, type ScrapeTarget } from './target.js';
import { tagsOf } from './labels.js';

/** Why a scraped sample was not stored (the `reason` of the refused-samples self-metric). */
export type RefusalReason = 'not_finite' | 'metric_name' | 'too_many_tags' | 'time_out_of_range' | 'duplicate' | 'type_conflict' | 'series_limit';

export class ScrapeLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScrapeLimitError';
  }
}

export interface ConvertedScrape {
  samples: Sample[];
  /** v1 metric type each metric is stored as (canonical name -> type, spelling) */
  metrics: Map<string, { type: 'counter' | 'gauge'; spelling: string }>;
  /** samples after metric_relabel_configs (Prometheus's scrape_samples_post_metric_relabeling) */
  postRelabel: number;
  refused: Map<RefusalReason, number>;
}

export interface ConvertLimits extends TimeWindow {
  tagsPerMeasurement: number;
}

/** `scrapeTimeMs`: the time of samples the exposition gives none (or honor_timestamps is off). */
export function convertScrape(scraped: readonly ScrapedSample[], target: Pick<ScrapeTarget, 'labels'>, job: Pick<ScrapeJob, 'honorLabels' | 'honorTimestamps' | 'metricRelabelConfigs' | 'externalLabels' | 'sampleLimit' | 'labelLimit'>, scrapeTimeMs: number, limits: ConvertLimits): ConvertedScrape {
  const out: ConvertedScrape = { samples: [], metrics: new Map(), postRelabel: 0, refused: new Map() };
  const refuse = (reason: RefusalReason) => out.refused.set(reason, (out.refused.get(reason) ?? 0) + 1);
  const seen = new Set<string>();
  const scrapeTime = Math.floor(scrapeTimeMs / 1000);
  for (const s of scraped) {
    const labels = sampleLabels(s.name, s.labels, target, job);
    if (!labels) continue; // dropped by metric_relabel_configs: not counted, as in Prometheus
    out.postRelabel++;
    if (job.sampleLimit > 0 && out.postRelabel > job.sampleLimit) throw new ScrapeLimitError(`sample_limit exceeded (more than ${job.sampleLimit} samples)`);
    // __name__ counts as a label, as in Prometheus
    if (job.labelLimit > 0 && labels.size > job.labelLimit) throw new ScrapeLimitError(`label_limit exceeded (${labels.size} labels on ${s.name}, limit ${job.labelLimit})`);
    if (!s.finite) { refuse('not_finite'); continue; }
    const name = labels.get('__name__') ?? '';
    if (!METRIC_NAME.test(name)) { refuse('metric_name'); continue; }
    const tags = tagsOf(labels);
    if (tags.length > limits.tagsPerMeasurement) { refuse('too_many_tags'); continue; }
    const time = job.honorTimestamps && s.timestampMs !== null ? Math.floor(s.timestampMs / 1000) : scrapeTime;
    if (time < limits.oldest || time > limits.newest) { refuse('time_out_of_range'); continue; }
    const metric = canonicalMetricName(name);
    const key = `${metric}\u0000${time}\u0000${tags.map(([k, v]) => `${k}=${v}`).join('\u0000')}`;
    // one value per series and time in a scrape; a second would be merged into a sum
    if (seen.has(key)) { refuse('duplicate'); continue; }
    seen.add(key);
    const known = out.metrics.get(metric);
    if (known && known.type !== s.kind) { refuse('type_conflict'); continue; }
    if (!known) out.metrics.set(metric, { type: s.kind, spelling: name });
    out.samples.push(valueSample(metric, tags, time, s.value));
  }
  return out;
}
