// honor_labels compared with Prometheus 2.42: an exposed label with an empty value means
// "no such label" and still wins over the target's label, so a series of the Pushgateway
// (which exposes `instance=""` on pushes without an instance) is stored without the
// Pushgateway's own address. Without honor_labels an empty exposed label is no clash, and
// an exposed exported_ name, even empty, is skipped when a clash is renamed.
import t from 'tap';
import { sampleLabels } from '../../src/scrape/target.js';

const target = { labels: [['instance', 'pushgateway:9091'], ['job', 'pushgateway']] as const };
const plain = { honorLabels: false, metricRelabelConfigs: [], externalLabels: [] };
const honor = { ...plain, honorLabels: true };
const asObject = (m: Map<string, string> | null) => (m ? Object.fromEntries(m) : null);

t.test('honor_labels: an empty exposed label keeps the target label off', async (t) => {
  t.same(asObject(sampleLabels('pushed', ['instance', '', 'job', 'batch'], target, honor)), { __name__: 'pushed', job: 'batch' }, 'no instance, as Prometheus stores it');
  t.same(asObject(sampleLabels('pushed', ['job', ''], target, honor)), { __name__: 'pushed', instance: 'pushgateway:9091' });
  t.same(asObject(sampleLabels('pushed', ['job', 'batch'], target, honor)), { __name__: 'pushed', job: 'batch', instance: 'pushgateway:9091' }, 'a label not exposed comes from the target');
});

t.test('without honor_labels: empty exposed labels are no clash, and exported_ names they hold are skipped', async (t) => {
  t.same(asObject(sampleLabels('m', ['instance', ''], target, plain)), { __name__: 'm', instance: 'pushgateway:9091', job: 'pushgateway' });
  t.same(asObject(sampleLabels('m', ['job', 'x', 'exported_job', ''], target, plain)), { __name__: 'm', job: 'pushgateway', instance: 'pushgateway:9091', exported_exported_job: 'x' }, 'as Prometheus names it');
});
