// Definitions export from one data dir and import into another: the same spaces and
// charts, metrics and annotation streams; a second import changes nothing.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startServe, type ServeProcess } from '../helpers/cli.js';
import { httpsRequest, initialCredentials, selfSignedCa, type Credentials } from '../helpers/client.js';
import { tempDir, writeServeConfig } from '../helpers/tmp.js';

function client(s: ServeProcess, data: string, auth: Credentials) {
  const ca = selfSignedCa(data);
  return async (method: string, path: string, json?: unknown) => {
    const r = await httpsRequest(s.port, ca, method, path, { auth, json });
    return { status: r.status, body: r.text ? JSON.parse(r.text) : null };
  };
}

/** Spaces with their charts, ids left out: what must be equal across installs. */
async function dashboards(call: ReturnType<typeof client>) {
  const out = [];
  for (const sp of (await call('GET', '/v1/spaces')).body.spaces) {
    const charts = (await call('GET', `/v1/spaces/${sp.id}/charts`)).body;
    out.push({ name: sp.name, tags: sp.tags, charts: charts.map(({ id: _id, streams, ...c }: { id: number; streams: { id: number }[] }) => ({ ...c, streams: streams.map(({ id: _sid, ...s }) => s) })) });
  }
  return out;
}

t.test('export from one data dir, import into another: same spaces, charts, metrics; idempotent', async (t) => {
  const dirA = tempDir(t, 'gw-exp-a-');
  const dirB = tempDir(t, 'gw-exp-b-');
  const configA = writeServeConfig(dirA);
  const configB = writeServeConfig(dirB);
  const a = await startServe(t, ['--config', configA]);
  const callA = client(a, join(dirA, 'data'), initialCredentials(join(dirA, 'data')));
  t.equal((await callA('PUT', '/v1/metrics/Web.Latency', { display_name: 'Latency', period: 60, attributes: { display_units_short: 'ms', color: '#112233' } })).status, 201);
  t.equal((await callA('PUT', '/v1/metrics/web.total', { type: 'composite', composite: 'sum(s("web.latency", "*"))' })).status, 201);
  const space = (await callA('POST', '/v1/spaces', { name: 'Ops', tags: true })).body.id;
  t.equal((await callA('POST', `/v1/spaces/${space}/charts`, { name: 'latency', type: 'line', streams: [{ metric: 'web.latency', tags: [{ name: 'host', values: ['web*'] }], group_function: 'average', color: '#aabbcc' }, { composite: 'sum(s("web.latency", "*"))' }], label: 'ms', use_log_yaxis: true })).status, 201);
  t.equal((await callA('POST', `/v1/spaces/${space}/charts`, { name: 'now', type: 'bignumber', streams: [{ metric: 'web.latency' }], thresholds: [{ operator: '>', value: 100, type: 'red' }] })).status, 201);
  t.equal((await callA('POST', '/v1/annotations/deploys', { title: 'v1' })).status, 201);
  t.equal((await callA('PUT', '/v1/annotations/deploys', { display_name: 'Deploys' })).status, 204);

  const file = join(dirA, 'defs.json');
  const exported = await runCli(['export', file, '--config', configA]);
  t.equal(exported.code, 0, exported.stderr);
  t.match(exported.stderr, /exported 1 accounts: 2 metrics, 1 spaces, 2 charts/);
  const defs = JSON.parse(readFileSync(file, 'utf8'));
  t.match(defs, { format: 'gaugeway-definitions', version: 1, accounts: [{ email: 'admin@localhost', annotation_streams: [{ name: 'deploys', display_name: 'Deploys' }] }] });
  t.notMatch(readFileSync(file, 'utf8'), /token|initial/i, 'no tokens in the file');

  const b = await startServe(t, ['--config', configB]);
  const callB = client(b, join(dirB, 'data'), initialCredentials(join(dirB, 'data')));
  const imported = await runCli(['import', file, '--config', configB]);
  t.equal(imported.code, 0, imported.stderr);
  t.equal(imported.stdout.trim(), 'admin@localhost: metrics 2 created, 0 updated, 0 skipped; spaces 1 created, 0 updated, 0 skipped; charts 2 created, 0 updated, 0 skipped; annotation_streams 1 created, 0 updated, 0 skipped');
  t.same(await dashboards(callB), await dashboards(callA), 'the same spaces and charts');
  t.match((await callB('GET', '/v1/metrics/web.latency')).body, { name: 'Web.Latency', display_name: 'Latency', attributes: { display_units_short: 'ms', color: '#112233' } });
  t.match((await callB('GET', '/v1/metrics/web.total')).body, { type: 'composite', composite: 'sum(s("web.latency", "*"))' });
  t.match((await callB('GET', '/v1/annotations/deploys')).body, { name: 'deploys', display_name: 'Deploys' });

  const again = await runCli(['import', file, '--config', configB]);
  t.equal(again.stdout.trim(), 'admin@localhost: metrics 0 created, 0 updated, 2 skipped; spaces 0 created, 0 updated, 1 skipped; charts 0 created, 0 updated, 2 skipped; annotation_streams 0 created, 0 updated, 1 skipped', 'a second import changes nothing');

  // with the service stopped, the CLI works on the data dir itself
  a.child.kill('SIGTERM');
  await a.exited;
  const offline = await runCli(['export', '-', '--config', configA]);
  t.equal(offline.code, 0, offline.stderr);
  const { exported_at: _x, ...offDefs } = JSON.parse(offline.stdout);
  const { exported_at: _y, ...onDefs } = defs;
  t.same(offDefs, onDefs, 'the same definitions from a stopped service');
  const bad = await runCli(['import', configA, '--config', configB]);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /is not JSON/);
});
