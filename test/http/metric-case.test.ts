// Metric names keep the case they were created with; the namespace stays
// case-insensitive: one metric whatever the spelling, found by any spelling.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { hourBase, post } from '../helpers/measurements.js';

async function names(s: TestServer): Promise<string[]> {
  return (await s.get('/v1/metrics')).body.metrics.map((m: { name: string }) => m.name);
}

t.test('names keep their created case across every API and a restart', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-case-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const base = hourBase();
  let s = await startTestServer(t, '', { dataDir: dir, keepData: true });

  const created = await s.request('PUT', '/v1/metrics/Test.Metric', { json: { description: 'first' } });
  t.equal(created.status, 201);
  t.equal(created.headers.location, '/v1/metrics/Test.Metric');
  t.equal(created.body.name, 'Test.Metric');
  t.equal((await s.request('PUT', '/v1/metrics/test.metric', { json: { description: 'second' } })).status, 204, 'another spelling updates the same metric');
  for (const spelling of ['test.metric', 'TEST.METRIC', 'Test.Metric']) {
    const r = await s.get(`/v1/metrics/${spelling}`);
    t.match(r.body, { name: 'Test.Metric', description: 'second' }, `GET by ${spelling}`);
  }

  t.equal((await post(s, { measurements: [{ name: 'CPU.Load', value: 1, time: base, tags: { host: 'a' } }] })).status, 200);
  t.equal((await post(s, { measurements: [{ name: 'cpu.load', value: 2, time: base + 60, tags: { host: 'a' } }] })).status, 200);
  t.equal((await s.request('POST', '/v1/metrics', { json: { gauges: [{ name: 'Disk.Free', value: 5, source: 'db1', measure_time: base }] } })).status, 200);
  t.same((await names(s)).sort(), ['CPU.Load', 'Disk.Free', 'Test.Metric']);
  const q = await s.get(`/v1/measurements/cpu.LOAD?start_time=${base}&end_time=${base + 119}&resolution=60`);
  t.equal(q.body.name, 'CPU.Load', 'query answers carry the created name');
  t.same(q.body.series[0].measurements.map((m: { value: number }) => m.value), [1, 2], 'both spellings wrote one series');
  t.same((await s.get('/v1/metrics?name=cpu')).body.metrics.map((m: { name: string }) => m.name), ['CPU.Load'], 'the name filter ignores case');

  const space = (await s.request('POST', '/v1/spaces', { json: { name: 'case' } })).body.id;
  const chart = await s.request('POST', `/v1/spaces/${space}/charts`, { json: { name: 'c', streams: [{ metric: 'cpu.load' }, { metric: 'not.yet' }] } });
  t.equal(chart.status, 201);
  t.same(chart.body.streams.map((x: { metric: string }) => x.metric), ['CPU.Load', 'not.yet'], 'chart streams show the created name');

  await s.stop();
  s = await startTestServer(t, '', { dataDir: dir, keepData: true });
  t.same((await names(s)).sort(), ['CPU.Load', 'Disk.Free', 'Test.Metric'], 'after a restart');
  t.equal((await s.get('/v1/metrics/disk.free')).body.name, 'Disk.Free');
  t.equal((await s.request('PUT', '/v1/metrics/TEST.metric', { json: { type: 'gauge' } })).status, 204, 'still one metric');
  t.equal((await s.request('DELETE', '/v1/metrics', { json: { names: 'cpu.*' } })).status, 204);
  t.same((await names(s)).sort(), ['Disk.Free', 'Test.Metric'], 'a pattern matches whatever the case');
  await s.stop();
});
