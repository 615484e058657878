// Definitions import checks the whole file before it writes anything: a file with a fault
// anywhere (a bad account, a metric or chart the API would refuse, a list that is not
// one) is refused, naming the fault, and nothing of it was imported.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { exportDefinitions, importDefinitions } from '../../src/cli/definitions.js';

t.test('a faulty definitions file imports nothing; an exported one imports cleanly', async (t) => {
  const s = await startTestServer(t);
  const rt = s.server.rt;
  t.equal((await s.request('PUT', '/v1/metrics/kept', { json: { display_name: 'Kept', attributes: { display_units_short: 'ms' } } })).status, 201);
  t.equal((await s.request('PUT', '/v1/metrics/kept.total', { json: { type: 'composite', composite: 'sum(s("kept", "*"))' } })).status, 201);
  const space = (await s.request('POST', '/v1/spaces', { json: { name: 'Ops' } })).body.id;
  t.equal((await s.request('POST', `/v1/spaces/${space}/charts`, { json: { name: 'c', type: 'line', streams: [{ metric: 'kept', tags: [{ name: 'host', values: ['*'] }] }, { composite: 'sum(s("kept", "*"))' }], use_log_yaxis: true } })).status, 201);
  t.equal((await s.request('POST', '/v1/annotations/deploys', { json: { title: 'v1' } })).status, 201);

  const good = await exportDefinitions(rt);
  const { exported_at: _at, ...before } = good;
  const account = good.accounts[0]!;
  const file = (accounts: unknown[]) => ({ format: 'gaugeway-definitions', version: 1, exported_at: good.exported_at, accounts });
  const bad: [string, unknown[]][] = [
    ['a metric of an unknown type after a good one', [{ ...account, metrics: [{ name: 'new.good', type: 'gauge', attributes: {} }, { name: 'bad', type: 'bogus' }] }]],
    ['a chart of an unknown type after a good space', [{ ...account, metrics: [], spaces: [{ name: 'New', tags: false, charts: [{ name: 'x', type: 'nonsense', streams: [{ metric: 'kept' }] }] }] }]],
    ['an account without an e-mail', [{ metrics: [] }]],
    ['a new account whose metrics are not a list', [{ email: 'new@example.com', metrics: 'no' }]],
    ['a good new account before a bad one', [{ email: 'ok@example.com', metrics: [{ name: 'm.ok', type: 'gauge' }] }, { email: 'not-an-email', metrics: [] }]],
    ['a bad metric name', [{ ...account, metrics: [{ name: 'a b', type: 'gauge' }] }]],
    ['a space without tags', [{ email: 'ok@example.com', spaces: [{ name: 'S', charts: [] }] }]],
  ];
  for (const [what, accounts] of bad) {
    await t.rejects(importDefinitions(rt, file(accounts)), { code: 'E_USAGE', message: /nothing was imported/ }, what);
    const { exported_at: _a, ...now } = await exportDefinitions(rt);
    t.same(now, before, `${what}: nothing was imported`);
  }
  t.same(rt.accounts.listAccounts().map((a) => a.email), [s.admin.user], 'no account was created');

  const again = await importDefinitions(rt, JSON.parse(JSON.stringify(good)));
  t.same(again[s.admin.user], {
    metrics: { created: 0, updated: 0, skipped: 2 }, spaces: { created: 0, updated: 0, skipped: 1 },
    charts: { created: 0, updated: 0, skipped: 1 }, annotation_streams: { created: 0, updated: 0, skipped: 1 },
  }, 'an exported file passes the checks and changes nothing');
});

t.test('a rule of the target install met half-way stops the import there, saying what came before it was imported', async (t) => {
  const s = await startTestServer(t, 'limits:\n  per_account:\n    spaces: 1\n');
  const rt = s.server.rt;
  const file = { format: 'gaugeway-definitions', version: 1, exported_at: new Date().toISOString(), accounts: [
    { email: s.admin.user, metrics: [], spaces: [{ name: 'First', tags: false, charts: [] }, { name: 'Second', tags: false, charts: [] }] },
  ] };
  await t.rejects(importDefinitions(rt, file), { code: 'E_USAGE', message: /space Second: .*the import stopped here: what comes before it in the file was imported, and importing the fixed file again skips that/ });
  t.same((await rt.spaces.list(1)).map((x) => x.name), ['First'], 'the space before the fault was imported');
});
