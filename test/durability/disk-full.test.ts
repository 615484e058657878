// A real full disk: a small tmpfs filled by a file while measurements arrive. Writes are
// refused with 507 while it is full (LevelDB meets ENOSPC before the once-a-second free
// space check, so the store itself fails a write), accepted again without a restart once
// the file is gone, and every acknowledged measurement is there after a restart.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, rmdirSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer } from '../helpers/server.js';
import { poll } from '../helpers/poll.js';

function mountTmpfs(dir: string, size: string): string | null {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
    return null;
  } catch (err) {
    return `cannot mount a tmpfs here (${String((err as { stderr?: Buffer }).stderr ?? err).trim()}); run as root to test a real full disk`;
  }
}

/** Writes 256 KiB blocks until the filesystem is full. */
function fill(file: string): void {
  const fd = openSync(file, 'w');
  const block = Buffer.alloc(256 * 1024, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
}

const mnt = mkdtempSync(join(tmpdir(), 'gw-full-'));
const skip = mountTmpfs(mnt, '48m');
t.teardown(() => {
  if (!skip) execFileSync('umount', ['-l', mnt]);
  rmdirSync(mnt);
});

t.test('a full disk: 507 while full, writes again without a restart, nothing acknowledged lost', { skip: skip ?? false }, async (t) => {
  mkdirSync(join(mnt, 'data'));
  const config = 'storage:\n  min_free_disk_bytes: 0\n  sync: true\n';
  const s = await startTestServer(t, config, { dataDir: join(mnt, 'data'), keepData: true });
  const base = Math.floor(Date.now() / 1000) - 600;
  const acked = new Map<number, number>();
  let n = 0;
  const post = async () => {
    const i = n++;
    // distinct series and times, so each acknowledged value can be found exactly once
    const r = await s.request('POST', '/v1/measurements', { json: { measurements: [{ name: 'disk.full', value: i, time: base + (i % 600), tags: { k: `s${i}` } }] } });
    if (r.status === 200) acked.set(i, i);
    return r;
  };
  for (let i = 0; i < 20; i++) t.equal((await post()).status, 200);

  const filler = join(mnt, 'filler');
  fill(filler);
  let refused = null;
  for (let i = 0; i < 2000 && !refused; i++) {
    const r = await post();
    if (r.status !== 200) refused = r;
  }
  t.ok(refused, 'a write was refused once the disk was full');
  t.equal(refused?.status, 507, 'with 507');
  t.match(refused?.body, { errors: { system: [/free disk space/] } });
  const again = await post();
  t.equal(again.status, 507, 'and the next one too, while the disk is full');
  t.equal((await s.get('/v1/metrics/disk.full')).status, 200, 'reads keep working');

  rmSync(filler);
  const back = await poll(async () => {
    const r = await post();
    t.ok(r.status === 200 || r.status === 507 || r.status === 503, `refused or accepted, never a 500 (${r.status})`);
    return r.status === 200 ? r : undefined;
  });
  t.equal(back.status, 200, 'writes are accepted again without a restart');
  for (let i = 0; i < 20; i++) t.equal((await post()).status, 200);
  await s.stop();

  const s2 = await startTestServer(t, config, { dataDir: join(mnt, 'data') });
  const r = await s2.get(`/v1/measurements/disk.full?start_time=${base - 1}&end_time=${base + 601}&resolution=1`);
  t.equal(r.status, 200);
  const found = new Map<number, number[]>();
  for (const series of r.body.series as { tags: { k: string }; measurements: { value: number }[] }[]) {
    found.set(Number(series.tags.k.slice(1)), series.measurements.map((m) => m.value));
  }
  const missing = [...acked.keys()].filter((i) => JSON.stringify(found.get(i)) !== JSON.stringify([i]));
  t.same(missing, [], `every acknowledged measurement (${acked.size}) is there exactly once after a restart`);
});

t.test('the default floor suits a small disk; a floor above the free space is named at start', { skip: skip ?? false }, async (t) => {
  const dir = join(mnt, 'small');
  mkdirSync(dir);
  // default floor: 5 % of this 48 MiB filesystem, so a first start works
  const s = await startTestServer(t, '', { dataDir: dir });
  t.equal(s.server.rt.disk.floor, Math.floor(48 * 1024 * 1024 * 0.05));
  t.equal((await s.request('PUT', '/v1/metrics/small.disk', { json: {} })).status, 201);
  await s.stop();
  const { loadConfig } = await import('../../src/config/load.js');
  const { createRuntime } = await import('../../src/runtime.js');
  const { createLogger } = await import('../../src/log.js');
  const config = { ...loadConfig({ systemConfig: null, env: {} }), data_dir: join(mnt, 'never') };
  config.storage = { ...config.storage, min_free_disk_bytes: 64 * 1024 * 1024 };
  await t.rejects(createRuntime(config, createLogger('silent')), {
    code: 'E_DISK_FULL',
    message: /free on the filesystem of .*, below the free-space floor of 64\.0 MiB \(storage\.min_free_disk_bytes\): free some space, or set storage\.min_free_disk_bytes lower/,
  });
  t.notOk(existsSync(join(mnt, 'never')), 'nothing was written');
});
