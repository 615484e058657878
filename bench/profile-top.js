// node bench/profile-top.js file.cpuprofile [fromSec toSec]: self and inclusive time per
// function of a --cpu-prof profile (GW_SOAK_NODE_ARGS, BENCH_NODE_FLAGS), over a time span.
import { readFileSync } from 'node:fs';
const [file, from, to] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map();
let t = p.startTime;
const lo = from ? p.startTime + Number(from) * 1e6 : -Infinity;
const hi = to ? p.startTime + Number(to) * 1e6 : Infinity;
const incl = new Map();
let total = 0;
p.samples.forEach((id, i) => {
  t += p.timeDeltas[i] ?? 0;
  if (t < lo || t > hi) return;
  const d = p.timeDeltas[i + 1] ?? 0;
  total += d;
  const n = byId.get(id);
  const key = (n) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`;
  self.set(key(n), (self.get(key(n)) ?? 0) + d);
  const seen = new Set();
  for (let x = id; x !== undefined; x = parent.get(x)) {
    const k = key(byId.get(x));
    if (seen.has(k)) continue;
    seen.add(k);
    incl.set(k, (incl.get(k) ?? 0) + d);
  }
});
const top = (m, n) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${(v / 1e6).toFixed(2).padStart(8)} s ${(100 * v / total).toFixed(1).padStart(5)} %  ${k}`).join('\n');
console.log(`total ${(total / 1e6).toFixed(2)} s\n-- self --\n${top(self, 35)}\n-- inclusive --\n${top(incl, 45)}`);
