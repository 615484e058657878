import { ClassicLevel } from 'classic-level';
import { ByteReader } from '../dist/tsdb/bytes.js';
import { readValues } from '../dist/tsdb/values.js';
const db = new ClassicLevel(process.argv[2], { keyEncoding: 'utf8', valueEncoding: 'buffer' });
const want = process.argv[3] ?? 'b';
const agg = {};
for await (const [k, v] of db.iterator({ gte: `!pts!1!${want}`, lt: `!pts!1!${want}~` })) {
  const series = parseInt(k.slice(`!pts!1!${want}`.length, `!pts!1!${want}`.length + 8), 16);
  const kind = ['counter', 'counter', 'gauge', 'gauge', 'float'][(series - 1) % 5] ?? '?';
  const r = new ByteReader(v);
  const n = r.uvarint(); const flags = r.byte();
  const a = agg[kind] ??= { n: 0, parts: 0, times: 0, cols: [0, 0, 0, 0, 0, 0], modes: {} };
  a.n += n; a.parts++;
  let p0 = r.pos;
  if (n > 0) { r.uvarint(); let i = 1; while (i < n) { r.uvarint(); i += r.uvarint(); } }
  a.times += r.pos - p0;
  const cols = flags & 1 ? ['sum', 'count', 'min', 'max', 'last', 'sumsq'] : ['sum'];
  cols.forEach((c, ci) => {
    p0 = r.pos;
    if (c === 'count') { for (let i = 0; i < n; i++) r.uvarint(); }
    else { a.modes[c + r.buf[r.pos]] = (a.modes[c + r.buf[r.pos]] ?? 0) + 1; readValues(r, [], n); }
    a.cols[ci] += r.pos - p0;
  });
}
for (const [kind, a] of Object.entries(agg)) console.log(kind, 'points', a.n, 'B/point: times', (a.times / a.n).toFixed(2), 'cols', a.cols.map((c) => (c / a.n).toFixed(2)).join(' '), JSON.stringify(a.modes));
await db.close();
