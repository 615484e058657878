// Every config key says whether SIGHUP applies it; restart-only keys keep their running
// value through a reload and are named in the log.
import t from 'tap';
import { markedKeys, holdRestartKeys, changedLiveKeys } from '../../src/config/reload-marks.js';
import { loadConfig } from '../../src/config/load.js';

t.test('every key of the schema carries a reload mark', async (t) => {
  const keys = markedKeys();
  t.ok(keys.length > 20, 'the walk reaches the leaves');
  t.same(keys.filter((k) => k.reload === null).map((k) => k.path.join('.')), [], 'keys without a reload mark');
});

t.test('an unmarked key is reported', async (t) => {
  const schema = { properties: { a: { type: 'string', reload: 'live' }, b: { properties: { c: { type: 'integer' } } } } };
  t.same(markedKeys(schema), [{ path: ['a'], reload: 'live' }, { path: ['b', 'c'], reload: null }]);
});

t.test('restart keys hold, live keys change', async (t) => {
  const old = loadConfig({ systemConfig: null, env: {} });
  const next = loadConfig({ systemConfig: null, env: { GAUGEWAY_STORAGE__SYNC: 'false', GAUGEWAY_STORAGE__RETENTION_SCHEDULE: '5 4 * * *' } });
  t.same(holdRestartKeys(old, next), ['storage.sync']);
  t.equal(next.storage.sync, old.storage.sync, 'the running value is kept');
  t.same(changedLiveKeys(old, next), ['storage.retention_schedule']);
});

t.test('a retention schedule that is not a cron expression is refused', async (t) => {
  t.throws(() => loadConfig({ systemConfig: null, env: { GAUGEWAY_STORAGE__RETENTION_SCHEDULE: 'every night' } }), /retention_schedule/);
});
