// `npm run bench:ui`: how long a space of 12 charts over 1,000 series takes to draw in
// Chromium (issue 16: within a second on this machine). A fresh server gets an hour of
// points every 10 s for 1,000 series (10 regions x 100 hosts) and a space of 12 charts
// (grouped lines, stacked areas, sums, big numbers); the page is opened signed in, and
// the time from navigation to every chart drawn (the grid's data-rounds) is measured,
// median of BENCH_UI_LOADS (default 7) loads after one warm-up. Also the same with the
// 24-hour range (15-minute rollups). Needs Debian's chromium (or GAUGEWAY_CHROMIUM).
import https from 'node:https';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startServer, stopServer } from './server.js';

const LOADS = Number(process.env.BENCH_UI_LOADS ?? 7);
const browserPath = [process.env.GAUGEWAY_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
if (!browserPath) {
  console.log('bench:ui skipped: no Chromium (apt-get install chromium, or set GAUGEWAY_CHROMIUM)');
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), 'gw-bench-ui-'));
const config = join(dir, 'config.yaml');
writeFileSync(config, [
  `data_dir: ${dir}`, 'http:', '  listen: "127.0.0.1:0"', 'log:', '  level: info',
  'limits:', '  body_bytes: 16777216', '  rate_limit:', '    std:', '      limit: 0', '    agg:', '      limit: 0',
].join('\n'));
const { child, port } = await startServer(config, { flags: (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean) });
const creds = readFileSync(join(dir, 'initial-credentials'), 'utf8');
const user = /^email: (.*)$/m.exec(creds)[1];
const token = /^token: (.*)$/m.exec(creds)[1];
const auth = 'Basic ' + Buffer.from(`${user}:${token}`).toString('base64');
const agent = new https.Agent({ keepAlive: true, rejectUnauthorized: false });

function call(method, path, body) {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, method, path, agent, headers: { authorization: auth, 'content-type': 'application/json', ...(text ? { 'content-length': Buffer.byteLength(text) } : {}) } }, (res) => {
      let b = '';
      res.on('data', (c) => { b += c; });
      res.on('end', () => (res.statusCode < 300 ? resolve(b ? JSON.parse(b) : undefined) : reject(new Error(`${method} ${path}: ${res.statusCode} ${b}`))));
    });
    req.on('error', reject);
    req.end(text);
  });
}

try {
  const now = Math.floor(Date.now() / 1000);
  // 1,000 series x 360 points: an hour every 10 s
  for (let r = 0; r < 10; r++) {
    for (let hh = 0; hh < 100; hh += 10) {
      const measurements = [];
      for (let k = hh; k < hh + 10; k++) {
        for (let at = now - 3600; at < now; at += 10) measurements.push({ name: 'load', time: at, value: ((r * 100 + k) % 17) + Math.sin(at / 600) * 5, tags: { region: `region-${r}`, host: `host-${r}-${k}` } });
      }
      await call('POST', '/v1/measurements', { measurements });
    }
  }
  const space = await call('POST', '/v1/spaces', { name: 'Fleet' });
  const region = [{ name: 'region', values: ['*'], grouped: true }];
  const charts = [
    ...['average', 'max', 'min'].map((fn) => ({ name: `load ${fn} by region`, type: 'line', streams: [{ metric: 'load', tags: region, group_function: 'average', summary_function: fn }] })),
    ...['sum', 'average'].map((fn) => ({ name: `load ${fn} stacked by region`, type: 'stacked', streams: [{ metric: 'load', tags: region, group_function: fn }] })),
    ...['sum', 'max', 'min', 'average'].map((fn) => ({ name: `load ${fn} of all`, type: 'line', streams: [{ metric: 'load', group_function: fn }] })),
    { name: 'hottest host', type: 'bignumber', thresholds: [{ operator: '>', value: 15, type: 'red' }], streams: [{ metric: 'load', group_function: 'max', summary_function: 'max' }] },
    { name: 'fleet load', type: 'bignumber', thresholds: [{ operator: '>', value: 9000, type: 'red' }], streams: [{ metric: 'load', group_function: 'sum' }] },
    { name: 'region-0 hosts', type: 'line', streams: [{ metric: 'load', tags: [{ name: 'region', values: ['region-0'] }], group_function: 'breakout' }] },
  ];
  for (const c of charts) await call('POST', `/v1/spaces/${space.id}/charts`, c);

  const browser = await chromium.launch({ executablePath: browserPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'] });
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 1000 } });
  const page = await context.newPage();
  const base = `https://localhost:${port}/`;
  await page.goto(base);
  await page.evaluate(([u, tk]) => sessionStorage.setItem('gaugeway.session', JSON.stringify({ email: u, token: tk, lastUsed: Date.now() })), [user, token]);

  // Opening the space from the spaces list, as people do (the page is loaded; the space's
  // definitions, annotations and every chart's series are fetched and drawn), and, apart,
  // a full reload of the space's address (page, script and all).
  async function open(range) {
    await page.goto(`${base}#/spaces`);
    await page.locator('.space-list a').first().waitFor({ timeout: 60_000 });
    await page.evaluate(() => performance.clearResourceTimings());
    const started = Date.now();
    await page.evaluate((hash) => { location.hash = hash; }, `#/spaces/${space.id}?range=${range}&refresh=0`);
    return drawn(started);
  }
  async function reload(range) {
    await page.goto(`${base}#/spaces/${space.id}?range=${range}&refresh=0`);
    await page.waitForFunction(() => document.querySelector('.chart-grid')?.getAttribute('data-rounds') === '1', undefined, { timeout: 120_000 });
    const started = Date.now();
    await page.reload();
    return drawn(started);
  }
  async function drawn(started) {
    await page.waitForFunction(() => document.querySelector('.chart-grid')?.getAttribute('data-rounds') === '1', undefined, { timeout: 120_000, polling: 'raf' });
    const ms = Date.now() - started;
    const ready = await page.locator('.chart-card[data-state="ready"]').count();
    if (ready !== charts.length) throw new Error(`${ready} of ${charts.length} charts drawn`);
    const timeline = await page.evaluate(() => {
      const series = performance.getEntriesByType('resource').filter((e) => e.name.includes('/v1/measurements'));
      return { firstSeries: Math.min(...series.map((e) => e.startTime)), fetched: Math.max(...series.map((e) => e.responseEnd)), longest: Math.max(...series.map((e) => e.responseEnd - e.requestStart)) };
    });
    if (process.env.BENCH_UI_TIMELINE) console.error(JSON.stringify(timeline));
    return { ms, answers: Math.round(timeline.fetched - timeline.firstSeries) };
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const results = [];
  for (const [how, fn] of [['opened from the list', open], ['page reloaded', reload]]) {
    for (const range of ['1h', '24h']) {
      await fn(range); // warm-up
      const runs = [];
      for (let i = 0; i < LOADS; i++) runs.push(await fn(range));
      const times = runs.map((r) => r.ms);
      results.push({ how, range, median: median(times), max: Math.max(...times), answers: median(runs.map((r) => r.answers)) });
    }
  }
  await browser.close();
  const opened = results.filter((r) => r.how === 'opened from the list');
  console.log(`| space of ${charts.length} charts over 1,000 series | range | every chart drawn, median of ${LOADS} (max) | first series request to last answer (median) |
|---|---|---|---|
${results.map((r) => `| ${r.how} | last ${r.range} | ${r.median} ms (${r.max} ms) | ${r.answers} ms |`).join('\n')}

bar (a space opened renders within 1,000 ms): ${opened.every((r) => r.median <= 1000) ? 'met' : 'not met'}`);
} finally {
  agent.destroy();
  await stopServer(child);
  rmSync(dir, { recursive: true, force: true });
}
