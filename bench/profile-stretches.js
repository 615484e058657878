// node bench/profile-stretches.js file.cpuprofile [minMs] [fromSec toSec]: the stretches a
// --cpu-prof profile shows without idle time longer than minMs (default 100), each with its
// heaviest frames: what holds the event loop, and so what sets a soak's p99s.
import { readFileSync } from 'node:fs';
const [file, minMs = '100', from, to] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const name = (n) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`;
let t = p.startTime;
const lo = from ? p.startTime + Number(from) * 1e6 : -Infinity;
const hi = to ? p.startTime + Number(to) * 1e6 : Infinity;
let cur = null;
const tasks = [];
p.samples.forEach((id, i) => {
  t += p.timeDeltas[i] ?? 0;
  if (t < lo || t > hi) return;
  const n = byId.get(id);
  const idle = n.callFrame.functionName === '(idle)';
  if (idle) { if (cur) { cur.end = t; tasks.push(cur); cur = null; } return; }
  if (!cur) cur = { start: t, frames: new Map(), n: 0 };
  cur.n++;
  const seen = new Set();
  for (let x = id; x !== undefined; x = parent.get(x)) { const k = name(byId.get(x)); if (seen.has(k)) continue; seen.add(k); cur.frames.set(k, (cur.frames.get(k) ?? 0) + 1); }
});
const long = tasks.filter((k) => (k.end - k.start) / 1000 >= Number(minMs));
console.log(`${tasks.length} busy stretches, ${long.length} >= ${minMs} ms`);
const agg = new Map();
for (const k of long) {
  const ms = (k.end - k.start) / 1000;
  const top = [...k.frames].filter(([f]) => !/^\((root|program)\)|processTicksAndRejections|runMicrotasks|^\(anon\) :|listOnTimeout|processTimers|processImmediate/.test(f)).sort((a, b) => b[1] - a[1]).slice(0, 6).map(([f, c]) => `${f} ${(100 * c / k.n).toFixed(0)}%`);
  console.log(`${((k.start - p.startTime) / 1e6).toFixed(1)} s  ${ms.toFixed(0)} ms  ${top.join(' | ')}`);
}
