// kill -9 in the middle of concurrent ingestion loses nothing that was acknowledged.
// A real child process (`node bin/gaugeway.js serve`, from dist/ built by `npm test`)
// with fast checkpoints, so the kill lands among WAL writes, sealed chunks and snapshots.
import t, { type Test } from 'tap';
import https from 'node:https';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '../..');

function start(config: string): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'bin/gaugeway.js'), 'serve', '--config', config], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // a plain server: none of tap's loaders or coverage hooks in the child
      env: { ...process.env, NODE_OPTIONS: '', NODE_V8_COVERAGE: '' },
    });
    let err = '';
    child.stderr!.on('data', (d) => { err += d; });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const rec = JSON.parse(line) as { msg?: string; port?: number };
        if (rec.msg?.startsWith('gaugeway listening')) resolve({ child, port: rec.port! });
      } catch { /* not a log line */ }
    });
    child.once('exit', (code) => reject(new Error(`server exited early (${code}): ${err}`)));
  });
}

function request(port: number, auth: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request({ host: '127.0.0.1', port, method, path, rejectUnauthorized: false, agent: false,
      headers: { authorization: auth, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

// `spread` series per worker and position: with many series every checkpoint is written in
// several batches, so the kill often lands between two of them (the engine-level test in
// test/tsdb/incremental.test.ts cuts one short deterministically).
async function killDuringIngest(t: Test, spread: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-kill-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const config = join(dir, 'config.yaml');
  writeFileSync(config, [
    `data_dir: ${dir}`,
    'http:', '  listen: "127.0.0.1:0"',
    'log:', '  level: info',
    'limits:', '  rate_limit:', '    std:', '      limit: 0', '    agg:', '      limit: 0',
    'storage:', '  checkpoint:', '    interval_seconds: 1', '    wal_bytes: 65536', '    seal_idle_seconds: 1',
  ].join('\n'));
  let server = await start(config);
  t.teardown(() => { server.child.kill('SIGKILL'); });
  const creds = readFileSync(join(dir, 'initial-credentials'), 'utf8');
  const auth = 'Basic ' + Buffer.from(`${/^email: (.*)$/m.exec(creds)![1]}:${/^token: (.*)$/m.exec(creds)![1]}`).toString('base64');

  const base = Math.floor(Date.now() / 1000 / 3600) * 3600 - 40 * 3600;
  const WORKERS = 4;
  const PER_REQUEST = 20;
  const acked: Set<number>[] = Array.from({ length: WORKERS }, () => new Set());
  let killed = false;
  const worker = async (w: number) => {
    for (let i = 0; i < 480 && !killed; i++) {
      const measurements = Array.from({ length: PER_REQUEST }, (_, j) => ({ name: 'dur', value: i * 100 + j, tags: { w: `w${w}`, k: `k${j}`, s: `s${i % spread}` } }));
      try {
        const r = await request(server.port, auth, 'POST', '/v1/measurements', { time: base + i * 300, measurements });
        if (r.status === 200) acked[w]!.add(i);
        else throw new Error(`unexpected status ${r.status}`);
      } catch (err) {
        if (!killed) throw err;
        return;
      }
    }
  };
  const total = () => acked.reduce((a, s) => a + s.size, 0);
  const running = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
  // kill once enough is acknowledged that windows have been sealed and checkpointed
  await new Promise<void>((resolve) => {
    const iv = setInterval(() => { if (total() >= 600) { clearInterval(iv); resolve(); } }, 5);
  });
  server.child.kill('SIGKILL');
  killed = true;
  await running;
  const ackedCount = total();
  t.ok(ackedCount >= 600, `${ackedCount} requests acknowledged before the kill`);

  server = await start(config);
  let missing = 0;
  let duplicated = 0;
  for (let w = 0; w < WORKERS; w++) {
    // one query per spread value: at most PER_REQUEST series, one page
    const byK = new Map<string, Map<number, { value: number; count: number }>>();
    for (let x = 0; x < spread; x++) {
      const q = await request(server.port, auth, 'GET', `/v1/measurements/dur?resolution=300&start_time=${base}&end_time=${base + 480 * 300}&summary_function=all&tags[w]=w${w}&tags[s]=s${x}`);
      t.equal(q.status, 200);
      for (const s of q.body.series) byK.set(`${s.tags.k}/${s.tags.s}`, new Map(s.measurements.map((m: { time: number; value: number; count: number }) => [m.time, m])));
    }
    for (const i of acked[w]!) {
      for (let j = 0; j < PER_REQUEST; j++) {
        const m = byK.get(`k${j}/s${i % spread}`)?.get(base + i * 300);
        if (!m || m.value !== i * 100 + j) missing++;
        else if (m.count !== 1) duplicated++;
      }
    }
  }
  t.equal(missing, 0, 'no acknowledged measurement is missing');
  t.equal(duplicated, 0, 'no measurement was applied twice by the replay');
  t.equal(await coarseMismatches(server.port, auth, base, spread), 0, 'the 900 s and 3600 s tiers hold what the fine tier holds, once');
  server.child.kill('SIGTERM');
}

/**
 * Hours and quarters whose stored summary differs from the 300 s points of the same
 * series rolled up (each read twice: the head's bucket caches fill on the first).
 */
async function coarseMismatches(port: number, auth: string, base: number, spread: number): Promise<number> {
  let wrong = 0;
  const end = base + 480 * 300;
  for (let x = 0; x < spread; x += Math.max(1, Math.floor(spread / 6))) {
    const fine = await request(port, auth, 'GET', `/v1/measurements/dur?resolution=300&start_time=${base}&end_time=${end}&summary_function=all&tags[s]=s${x}`);
    for (const resolution of [900, 3600, 3600]) {
      const coarse = await request(port, auth, 'GET', `/v1/measurements/dur?resolution=${resolution}&start_time=${base}&end_time=${end}&summary_function=all&tags[s]=s${x}`);
      const want = new Map<string, { count: number; sum: number; max: number }>();
      for (const s of fine.body.series) {
        for (const m of s.measurements as { time: number; count: number; sum: number; max: number }[]) {
          const key = `${s.tags.w}/${s.tags.k}@${m.time - (m.time % resolution)}`;
          const b = want.get(key) ?? { count: 0, sum: 0, max: -Infinity };
          want.set(key, { count: b.count + m.count, sum: b.sum + m.sum, max: Math.max(b.max, m.max) });
        }
      }
      let got = 0;
      for (const s of coarse.body.series) {
        for (const m of s.measurements as { time: number; count: number; sum: number; max: number }[]) {
          const b = want.get(`${s.tags.w}/${s.tags.k}@${m.time}`);
          got++;
          if (!b || b.count !== m.count || b.sum !== m.sum || b.max !== m.max) wrong++;
        }
      }
      if (got !== want.size) wrong += Math.abs(want.size - got);
    }
  }
  return wrong;
}

t.test('every acknowledged measurement survives SIGKILL during concurrent ingestion', (t) => killDuringIngest(t, 1));

t.test('...also when each checkpoint is written in several batches (thousands of series)', (t) => killDuringIngest(t, 60));
