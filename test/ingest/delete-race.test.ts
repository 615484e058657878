// A write whose metrics were checked just before a delete of one of them began: its points
// go either with the old metric (and are deleted with it) or to the metric created afresh,
// never to series of a metric that no longer exists (which the next metric of that name
// would find again, old points and all).
import t from 'tap';
import { join } from 'node:path';
import { parseConfig } from '../../src/config/load.js';
import { createRuntime, closeRuntime } from '../../src/runtime.js';
import { createLogger } from '../../src/log.js';
import { ingest, ingestValues, type MetricUse } from '../../src/ingest/pipeline.js';
import { valueSample, ValueRows } from '../../src/tsdb/sample.js';
import { tempDir } from '../helpers/tmp.js';

const ACCOUNT = 1;
const uses = () => new Map<string, MetricUse>([['m', { input: {}, index: 0 }]]);
const now = () => Math.floor(Date.now() / 1000);

t.test('a delete that begins between a write\'s check and its append', async (t) => {
  const dir = tempDir(t);
  const rt = await createRuntime(parseConfig(`data_dir: ${dir}\n`, join(dir, 'config.yaml'), {}), createLogger('silent'));
  t.teardown(() => closeRuntime(rt));
  const deps = { catalog: rt.catalog, engine: rt.engine };
  const all = { op: 'all' } as const;
  const write = {
    samples: (value: number) => ingest(deps, ACCOUNT, [valueSample('m', [['host', 'a']], now(), value)], uses(), null),
    columns: (value: number) => {
      const rows = new ValueRows(1);
      rows.add(0, 0, now(), value);
      return ingestValues(deps, ACCOUNT, rows.columns(['m'], [Object.freeze([Object.freeze(['host', 'a'] as const)])]), uses(), null);
    },
  };
  for (const [path, post] of Object.entries(write)) {
    await post(1);
    t.ok(await rt.catalog.get(ACCOUNT, 'm'), `${path}: the metric exists`);
    // the delete is called first, the write in the same turn: the write checks its metric
    // before the delete marks it, and appends after the delete took its series out
    await Promise.all([rt.catalog.deleteMany(ACCOUNT, ['m']), post(2)]);
    const metric = await rt.catalog.get(ACCOUNT, 'm');
    const series = rt.engine.select(ACCOUNT, 'm', all);
    t.ok(metric !== undefined || series.length === 0, `${path}: no series of a metric that does not exist`);
    t.ok(metric, `${path}: the write created the metric afresh`);
    const points = await rt.engine.read(ACCOUNT, series.map((s) => s.id), 0, now() - 3600, now() + 60);
    t.same(points.flatMap((p) => [...p.sum]), [2], `${path}: holding the write's point only`);
    await rt.catalog.deleteMany(ACCOUNT, ['m']);
  }
});
