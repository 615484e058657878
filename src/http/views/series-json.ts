// The answer of GET /v1/measurements/:name as JSON text, exactly what JSON.stringify would
// write, with the measurements (most of the text) written by hand: their values go through
// jsonNumber, and plain `{time, value}` measurements skip the generic object walk. On a
// one-series day at 60 s (1,440 measurements), measured in the running server with the
// byte length Koa takes: 223 against JSON.stringify's 371 µs (docs/benchmarks.md, "Q1:
// the answer's JSON").
import type { SeriesResult } from '../../query/series.js';
import type { Measurement } from '../../query/summary.js';
import { jsonNumber } from '../json-number.js';

function measurementsJson(ms: readonly Measurement[]): string {
  let out = '[';
  for (let i = 0; i < ms.length; i++) {
    const m = ms[i]!;
    if (i > 0) out += ',';
    // `all` adds the summary fields: rare, and left to JSON.stringify
    if (m.count !== undefined || m.sum !== undefined || m.min !== undefined || m.max !== undefined || m.last !== undefined || m.stddev !== undefined) {
      out += JSON.stringify(m);
    } else {
      out += '{"time":' + jsonNumber(m.time) + ',"value":' + jsonNumber(m.value) + '}';
    }
  }
  return out + ']';
}

export function seriesJson(r: SeriesResult): string {
  let series = '';
  for (const s of r.series) {
    series += (series ? ',' : '') + '{"tags":' + JSON.stringify(s.tags) + ',"measurements":' + measurementsJson(s.measurements) + '}';
  }
  return '{"name":' + JSON.stringify(r.name) + ',"resolution":' + jsonNumber(r.resolution) + ',"series":[' + series + '],"links":' + JSON.stringify(r.links) + '}';
}
