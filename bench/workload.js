// The benchmark workload of issue 3: one metric, 10,000 series (host, region with 5
// values, svc), 1,440 points per series at 60 s ending now; 40 % monotonically growing
// counters, 40 % gauges with two decimals, 20 % full-precision floats. Deterministic
// (seeded), so every run sends the same bytes, and every system of the side-by-side
// bench (bench/peers.js) receives the same values in its own wire format:
//   gaugeway      POST /v1/measurements, JSON
//   influx        VictoriaMetrics' InfluxDB line protocol (POST /write), metric bench_requests_value
//   remote-write  Prometheus remote write 1.0 (protobuf, snappy), metric bench_requests_value

import { snappyCompress } from './snappy.js';

export const METRIC = 'bench.requests';
/** The metric's name in the peers, as their own ingestion names it. */
export const PEER_METRIC = 'bench_requests_value';

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function seriesLabels(i) {
  return { host: `host-${i}`, region: `region-${i % 5}`, svc: `svc-${i % 50}` };
}

const encoders = {
  gaugeway: {
    series: (i) => JSON.stringify(seriesLabels(i)),
    body: (time, batch) => Buffer.from(`{"time":${time},"measurements":[${batch.map(([tags, v]) => `{"name":"${METRIC}","tags":${tags},"value":${v}}`).join(',')}]}`),
  },
  influx: {
    series: (i) => { const l = seriesLabels(i); return `bench_requests,host=${l.host},region=${l.region},svc=${l.svc}`; },
    body: (time, batch) => Buffer.from(batch.map(([key, v]) => `${key} value=${v} ${time}000000000`).join('\n') + '\n'),
  },
  'remote-write': {
    // the series' labels, sorted by name, as protobuf Label messages (fixed for the run)
    series: (i) => Buffer.concat(Object.entries({ __name__: PEER_METRIC, ...seriesLabels(i) }).sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => field(1, Buffer.concat([field(1, Buffer.from(k)), field(2, Buffer.from(v))])))),
    body: (time, batch) => snappyCompress(Buffer.concat(batch.map(([labels, v]) => field(1, Buffer.concat([labels, field(2, sampleMessage(v, time * 1000))]))))),
  },
};

/**
 * Request bodies, time-major: each time step's measurements in batches of `batch`, so
 * batches in flight together never share a series (and every series' points arrive in
 * order, which Prometheus's remote-write receiver requires).
 */
export function buildBodies({ series, points, batch, end, format = 'gaugeway' }) {
  const enc = encoders[format];
  if (!enc) throw new Error(`unknown wire format ${format}`);
  const random = rng(42);
  const kind = Array.from({ length: series }, (_, i) => (i % 5 < 2 ? 'counter' : i % 5 < 4 ? 'gauge' : 'float'));
  const state = Array.from({ length: series }, (_, i) => (kind[i] === 'counter' ? Math.floor(random() * 1e6) : 50 + random() * 50));
  const keys = Array.from({ length: series }, (_, i) => enc.series(i));
  const start = end - (points - 1) * 60;
  const bodies = [];
  for (let p = 0; p < points; p++) {
    const time = start + p * 60;
    for (let from = 0; from < series; from += batch) {
      const parts = [];
      for (let i = from; i < Math.min(series, from + batch); i++) {
        let v;
        if (kind[i] === 'counter') v = state[i] += Math.floor(random() * 100);
        else if (kind[i] === 'gauge') v = state[i] = Math.round((state[i] + (random() - 0.5) * 2) * 100) / 100;
        else v = random() * 100;
        parts.push([keys[i], v]);
      }
      bodies.push(enc.body(time, parts));
    }
  }
  return { bodies, start, samples: series * points };
}

// ---- the little of protobuf that remote write needs (snappy: snappy.js) ----

function uvarint(n) {
  const out = [];
  let x = BigInt(n);
  while (x >= 0x80n) { out.push(Number(x & 0x7fn) | 0x80); x >>= 7n; }
  out.push(Number(x));
  return Buffer.from(out);
}

/** A length-delimited protobuf field (wire type 2). */
function field(number, bytes) {
  return Buffer.concat([uvarint((number << 3) | 2), uvarint(bytes.length), bytes]);
}

/** prometheus.Sample: double value = 1; int64 timestamp = 2 (milliseconds). */
function sampleMessage(value, timestampMs) {
  const b = Buffer.alloc(9);
  b[0] = (1 << 3) | 1;
  b.writeDoubleLE(value, 1);
  return Buffer.concat([b, uvarint((2 << 3) | 0), uvarint(timestampMs)]);
}
