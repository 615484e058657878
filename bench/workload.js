// The benchmark workload of issue 3: one metric, 10,000 series (host, region with 5
// values, svc), 1,440 points per series at 60 s ending now; 40 % monotonically growing
// counters, 40 % gauges with two decimals, 20 % full-precision floats. Deterministic
// (seeded), so every run sends the same bytes.

export const METRIC = 'bench.requests';

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

export function seriesTags(i) {
  return `{"host":"host-${i}","region":"region-${i % 5}","svc":"svc-${i % 50}"}`;
}

/**
 * Request bodies, time-major: each time step's 10,000 measurements in batches of
 * `batch`, so batches in flight together never share a series.
 */
export function buildBodies({ series, points, batch, end }) {
  const random = rng(42);
  const kind = Array.from({ length: series }, (_, i) => (i % 5 < 2 ? 'counter' : i % 5 < 4 ? 'gauge' : 'float'));
  const state = Array.from({ length: series }, (_, i) => (kind[i] === 'counter' ? Math.floor(random() * 1e6) : 50 + random() * 50));
  const tags = Array.from({ length: series }, (_, i) => seriesTags(i));
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
        parts.push(`{"name":"${METRIC}","tags":${tags[i]},"value":${v}}`);
      }
      bodies.push(Buffer.from(`{"time":${time},"measurements":[${parts.join(',')}]}`));
    }
  }
  return { bodies, start, samples: series * points };
}
