// The scrape benchmarks' exposition: 1,000 series a target (by default) over 10 families,
// counters, gauges and a histogram, as exporters expose them; values move with `tick`.
export function exposition(target, tick, series = 1000) {
  const lines = [];
  const per = series / 10;
  for (let f = 0; f < 10; f++) {
    const kind = f < 4 ? 'counter' : f < 8 ? 'gauge' : 'histogram';
    const name = `gen_family_${f}${kind === 'counter' ? '_total' : kind === 'histogram' ? '_seconds' : ''}`;
    lines.push(`# HELP ${name} Family ${f}.`, `# TYPE ${name.replace(/_total$/, '')} ${kind}`);
    if (kind === 'histogram') {
      const les = ['0.01', '0.1', '1', '+Inf'];
      for (let i = 0; i < per / 6; i++) {
        for (const [k, le] of les.entries()) lines.push(`${name}_bucket{path="/p${i}",le="${le}"} ${tick * (k + 1) + i}`);
        lines.push(`${name}_sum{path="/p${i}"} ${(tick * 0.37 + i).toFixed(3)}`, `${name}_count{path="/p${i}"} ${tick * 4 + i}`);
      }
    } else {
      for (let i = 0; i < per; i++) lines.push(`${name}{device="d${i}",target="t${target}"} ${kind === 'counter' ? tick * 10 + i : ((tick * 7919 + i * 104729) % 100000) / 100}`);
    }
  }
  return lines.join('\n') + '\n';
}
