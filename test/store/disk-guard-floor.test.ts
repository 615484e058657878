// A reload that moves storage.min_free_disk_bytes across the free space starts or stops
// the refusal of writes, and the log says so, as when the disk itself crosses the floor.
import t from 'tap';
import { writeFileSync, readFileSync } from 'node:fs';
import { DiskGuard } from '../../src/store/disk-guard.js';
import { startLogged } from '../helpers/capture-log.js';
import { tempDir } from '../helpers/tmp.js';

t.test('setFloor reports a change of refusal, and only a change', async (t) => {
  const dir = tempDir(t, 'gw-floor-');
  const changes: boolean[] = [];
  const guard = new DiskGuard(dir, 0, (refusing) => changes.push(refusing));
  guard.setFloor(Number.MAX_SAFE_INTEGER);
  t.same(changes, [], 'before the first reading there is nothing to compare');
  await guard.check();
  t.same(changes, [true], 'the first reading, below the floor already set');
  guard.setFloor(Number.MAX_SAFE_INTEGER - 1);
  t.same(changes, [true], 'still refusing: no change');
  guard.setFloor(0);
  t.same(changes, [true, false], 'lowered below the free space: accepting again');
});

t.test('a reload raising and lowering the floor logs the refusal and its end', async (t) => {
  const dir = tempDir(t, 'gw-floor-');
  const { server, log, file } = await startLogged(t, dir);
  const original = readFileSync(file, 'utf8');
  const messages = () => log.lines().map((l) => [l.level, l.msg]);

  writeFileSync(file, `${original}storage:\n  min_free_disk_bytes: ${Number.MAX_SAFE_INTEGER}\n`);
  t.equal(await server.reload(), true);
  t.ok(server.rt.disk.refusing);
  t.ok(messages().some(([level, msg]) => level === 'error' && /below the floor.*refusing writes/.test(String(msg))), 'the refusal is logged');

  writeFileSync(file, `${original}storage:\n  min_free_disk_bytes: 0\n`);
  t.equal(await server.reload(), true);
  t.notOk(server.rt.disk.refusing);
  t.ok(messages().some(([level, msg]) => level === 'info' && /above the floor again: accepting writes/.test(String(msg))), 'and its end');
});
