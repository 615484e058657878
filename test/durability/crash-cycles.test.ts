// Crash after crash on one data directory: a real service (`node bin/gaugeway.js serve`
// from dist/) takes writes through both write APIs (tagged POST /v1/measurements and
// source-based POST /v1/metrics: plain values and summaries, in order, out of order and
// late into windows already sealed) and metric DELETEs, with checkpoints, merges and seals
// every second, and is killed with SIGKILL at a moment chosen by a seeded PRNG: during
// ingest, in the quiet after it (checkpoints, merges, seals), during the shutdown
// checkpoint after a SIGTERM, or while it starts over the previous crash's WAL (before or
// just after it listens). After every restart everything ever acknowledged is read back
// at resolution 1 through both read APIs, exactly, and nothing else; a request the kill
// cut off is stored whole or not at all (crash-cycles-verify.ts); the rolled-up tiers are
// checked against what the raw read found. At the end: a clean stop, `gaugeway store
// compact` (there is no `store check`), and everything read back once more.
//
// GW_CRASH_CYCLES=50 runs more cycles (default 4); GW_CRASH_SEED=n repeats a run's choices
// (the seed is printed; timing still varies).
import t from 'tap';
import { join } from 'node:path';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { runCli } from '../helpers/cli.js';
import { basic, initialCredentials, selfSignedCa } from '../helpers/client.js';
import { poll } from '../helpers/poll.js';
import { ServiceProcess } from './crash-cycles-service.js';
import { Model, sourcedBody, taggedBody, type Api, type MetricState, type Written } from './crash-cycles-model.js';
import { verify } from './crash-cycles-verify.js';
import { seededRandom } from '../helpers/random.js';

const CYCLES = Number(process.env.GW_CRASH_CYCLES ?? 4);
const SEED = Number(process.env.GW_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const WRITERS = 3;
const WINDOW = 6 * 3600;

type KillMode = 'ingest' | 'quiet' | 'shutdown';

t.test(`crash cycles: ${CYCLES} kills on one data directory (seed ${SEED})`, { timeout: Math.max(300_000, CYCLES * 30_000) }, async (t) => {
  const rnd = seededRandom(SEED);
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const dir = mkdtempSync(join(tmpdir(), 'gw-crash-'));
  let svc: ServiceProcess | null = null;
  // the service first, then its folder
  t.teardown(async () => {
    await svc?.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  const data = join(dir, 'data');
  const config = join(dir, 'config.yaml');
  const now = Math.floor(Date.now() / 1000);
  // three ended 6-hour windows and the current one up to a minute ago
  const model = new Model(rnd, Math.floor(now / WINDOW) * WINDOW - 3 * WINDOW, now - 60);

  const writeConfig = () => writeFileSync(config, [
    `data_dir: ${data}`,
    'log:', '  level: info',
    'http:', '  listen: "127.0.0.1:0"',
    'limits:', '  rate_limit:', '    std:', '      limit: 0', '    agg:', '      limit: 0',
    'storage:', '  sync: true', '  checkpoint:',
    // mostly a checkpoint every second or two and whenever 64-256 kB of WAL piled up;
    // sometimes none at all during the cycle, so the next start replays all of it
    ...(rnd() < 0.2
      ? ['    interval_seconds: 600', '    wal_bytes: 67108864', '    head_max_age_seconds: 1800']
      : [`    interval_seconds: ${int(1, 2)}`, `    wal_bytes: ${[65536, 131072, 262144][int(0, 2)]}`, `    head_max_age_seconds: ${[1, 3, 30][int(0, 2)]}`]),
    '    seal_idle_seconds: 1',
  ].join('\n'));

  let auth = '';
  let ca = '';
  const stats = {
    startupKills: { opening: 0, recovered: 0, listening: 0 }, kills: { ingest: 0, quiet: 0, shutdown: 0 }, deletes: 0, replayedRecords: 0,
    settled: { stored: 0, absent: 0, deletesLanded: 0, deletesLost: 0 },
  };
  const starting = (s: ServiceProcess) => s.logs.some((l) => l.msg === 'starting gaugeway');
  /** ms from "starting gaugeway" to "listening" at the last start: opening the store, replaying the WAL */
  let lastOpenMs = 300;

  /** Starts the service; sometimes kills it first while it starts (once or twice). */
  const start = async (mayKillStartup: boolean): Promise<ServiceProcess> => {
    writeConfig();
    for (let kills = 0; mayKillStartup && kills < 2 && rnd() < 0.35; kills++) {
      const s = new ServiceProcess(config);
      svc = s;
      // while it opens the store and replays the WAL, or just after it listens (the
      // replay's checkpoint runs then): a moment after its first log line
      await poll(async () => (starting(s) || !s.running ? true : undefined), 12_000, 5);
      const at = Date.now() + Math.floor(rnd() * (lastOpenMs * 1.5 + 50));
      await poll(async () => (Date.now() >= at || !s.running ? true : undefined), 12_000, 5);
      t.ok(s.running, 'the service is still running when killed during its start', s.running ? {} : { output: s.output() });
      await s.kill();
      if (s.logs.some((l) => /^gaugeway listening/.test(String(l.msg)))) stats.startupKills.listening++;
      else if (s.logs.some((l) => l.msg === 'storage engine recovered its head')) stats.startupKills.recovered++;
      else stats.startupKills.opening++;
      t.same(s.errors(), [], 'no error logged before the kill during the start');
    }
    const s = new ServiceProcess(config);
    svc = s;
    await poll(async () => (starting(s) || !s.running ? true : undefined), 12_000, 5);
    const began = Date.now();
    await s.listening(() => (ca ||= selfSignedCa(data)));
    lastOpenMs = Date.now() - began;
    const replayed = s.logs.find((l) => l.msg === 'storage engine recovered its head');
    stats.replayedRecords += Number(replayed?.walRecords ?? 0);
    if (!auth) auth = basic(initialCredentials(data));
    return s;
  };

  /** Resolves once `cond` holds, or after `maxMs` anyway (a moment to kill at, nothing asserted). */
  const until = async (cond: () => boolean, maxMs: number) => {
    const end = Date.now() + maxMs;
    while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
  };

  const check = async (s: ServiceProcess, when: string) => {
    const t0 = Date.now();
    const r = await verify(s, auth, model);
    if (process.env.GW_CRASH_TIMING) t.comment(`verify ${Date.now() - t0} ms, open ${lastOpenMs} ms`);
    for (const k of Object.keys(r.settled) as (keyof typeof r.settled)[]) stats.settled[k] += r.settled[k];
    t.same(r.problems.slice(0, 20), [], `${when}: ${r.stored} acknowledged points read back exactly, nothing else (${r.problems.length} problems)`);
    return r.problems.length === 0;
  };

  for (let cycle = 0; cycle < CYCLES; cycle++) {
    // the very first start too: its account and credentials file are finished by the next (e1c0892)
    const s = await start(true);
    if (!(await check(s, `cycle ${cycle} start`))) return;

    const pick = rnd();
    const mode: KillMode = pick < 0.5 ? 'ingest' : pick < 0.8 ? 'quiet' : 'shutdown';
    const target = int(5, mode === 'quiet' ? 120 : 200);
    let acked = 0;
    let killed = false;
    const failures: string[] = [];

    const send = async (api: Api, points: Written[], metrics: MetricState[]) => {
      for (const m of metrics) m.inflight++;
      try {
        const r = api === 'tagged'
          ? await s.request(auth, 'POST', '/v1/measurements', taggedBody(points))
          : await s.request(auth, 'POST', '/v1/metrics', sourcedBody(points));
        if (r.status >= 200 && r.status < 300) {
          for (const p of points) p.slot.state = 'stored';
          acked++;
        } else if (!killed) {
          failures.push(`POST ${api}: ${r.status} ${r.text}`);
          for (const p of points) p.slot.state = 'absent'; // refused whole
        }
      } catch (err) {
        if (!killed) failures.push(`POST ${api}: ${(err as Error).message}`);
      } finally {
        for (const m of metrics) m.inflight--;
      }
    };
    let writing = true;
    const writer = async () => {
      while (writing && !killed) {
        const api: Api = rnd() < 0.55 ? 'tagged' : 'sourced';
        const points = model.plan(api, int(5, 30));
        if (points.length === 0) {
          await new Promise((r) => setImmediate(r));
          continue;
        }
        const metrics = [...new Set(points.map((p) => model.metrics.get(p.series.metric.name)!))];
        await send(api, points, metrics);
      }
    };
    // a DELETE of a deletable metric now and then, once nothing is writing to it
    const deleter = async () => {
      const at = int(0, target);
      await poll(async () => (acked >= at || killed || !writing ? true : undefined), 6000, 5);
      const candidates = [...model.metrics.values()].filter((m) => m.def.deletable && [...model.series.values()].some((sm) => sm.metric === m.def && [...sm.slots.values()].some((x) => x.gen === m.gen && x.state === 'stored')));
      if (killed || candidates.length === 0) return;
      const m = candidates[int(0, candidates.length - 1)]!;
      m.locked = true;
      await poll(async () => (m.inflight === 0 ? true : undefined), 6000, 2);
      if (killed) { m.locked = false; return; }
      m.deleting = m.gen;
      m.gen++;
      try {
        const r = await s.request(auth, 'DELETE', `/v1/metrics/${m.def.name}`);
        if (r.status !== 204) throw new Error(`DELETE ${m.def.name}: ${r.status} ${r.text}`);
        for (const sm of model.series.values()) {
          if (sm.metric !== m.def) continue;
          for (const x of sm.slots.values()) if (x.gen <= m.deleting! && x.state === 'stored') x.state = 'deleted';
        }
        m.deleting = null;
        m.locked = false;
        stats.deletes++;
      } catch (err) {
        // cut off by the kill: settled by the next start's read (locked until then)
        if (!killed) failures.push((err as Error).message);
      }
    };
    const running = [...Array.from({ length: WRITERS }, writer), ...(rnd() < 0.5 ? [deleter()] : [])];
    // (bounded: on a slow machine the kill comes after fewer requests, which is as good)
    await until(() => acked >= target || failures.length > 0, 20_000);
    if (mode === 'quiet') {
      // writes stop; checkpoints, merges and seals go on: kill somewhere among them
      writing = false;
      await Promise.all(running);
      const at = Date.now() + int(0, 2500);
      await until(() => Date.now() >= at, 5000);
    }
    if (mode === 'shutdown') {
      // SIGTERM among the writes: the shutdown checkpoint writes every window (several
      // batches); kill -9 somewhere in it. Requests cut off now may fail: not acknowledged.
      killed = true;
      s.child.kill('SIGTERM');
      const at = Date.now() + int(0, 1500);
      await until(() => Date.now() >= at || !s.running, 5000);
    }
    const errors = s.errors();
    killed = true;
    await s.kill();
    await Promise.all(running);
    stats.kills[mode]++;
    t.same(failures.slice(0, 5), [], `cycle ${cycle}: every request answered 2xx until the kill (${mode}, ${acked} acknowledged)`);
    t.same(errors, [], `cycle ${cycle}: no error logged`);
    if (failures.length || errors.length) return;
  }

  // The last restart, a clean stop, and `gaugeway store compact` (the retention pass's
  // merges, offline) over what the crashes left: then everything once more.
  const s = await start(true);
  if (!(await check(s, 'after the last crash'))) return;
  t.equal(await s.stop(), 0, 'SIGTERM stops the service cleanly');
  svc = null;
  const compact = await runCli(['store', 'compact', '--config', config]);
  t.equal(compact.code, 0, `gaugeway store compact: ${compact.stdout.trim()} ${compact.stderr.trim().split('\n').filter((l) => !/"level":(20|30)/.test(l)).join(' ')}`);
  const again = await start(false);
  await check(again, 'after store compact');
  t.same(again.errors(), [], 'no error logged');
  await again.stop();
  svc = null;
  t.comment(`seed ${SEED}: ${JSON.stringify(stats)}`);
});
