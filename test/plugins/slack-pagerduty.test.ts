// The slack and pagerduty plugins against local listeners: the payloads field by field,
// through a test notification and through an alert that triggers and clears.
import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { listener } from '../helpers/listener.js';

const YAML = 'alerts:\n  check_schedule: "0 0 1 1 *"\nhttp:\n  listen: "127.0.0.1:0"\n  external_url: "https://metrics.example.com"';

async function fireAndClear(s: TestServer, sid: number): Promise<void> {
  const t0 = Math.floor(Date.now() / 1000) + 5;
  const r = await s.request('POST', '/v1/alerts', { json: { name: 'cpu.high', description: 'CPU is high', attributes: { runbook_url: 'https://wiki.example.com/cpu' }, services: [sid], conditions: [{ type: 'above', metric_name: 'cpu', threshold: 90 }] } });
  if (r.status !== 201) throw new Error(r.text);
  await s.request('POST', '/v1/measurements', { json: { tags: { host: 'web1' }, measurements: [{ name: 'cpu', time: t0 + 1, value: 95 }] } });
  await s.server.rt.alertEngine.evaluateAll(t0 + 2);
  await s.request('POST', '/v1/measurements', { json: { tags: { host: 'web1' }, measurements: [{ name: 'cpu', time: t0 + 3, value: 10 }] } });
  await s.server.rt.alertEngine.evaluateAll(t0 + 4);
  await s.server.rt.alertEngine.idle();
}

t.test('slack: a test message, then a trigger and a clear', async (t) => {
  const s = await startTestServer(t, YAML);
  const hook = await listener(t);
  const bad = await s.request('POST', '/v1/services', { json: { title: 's', type: 'slack', settings: { url: 'hooks.slack.com' } } });
  t.same(bad.body, { errors: { params: { 'settings.url': ['Is not a valid URL'] } } });
  const sid = (await s.request('POST', '/v1/services', { json: { title: 'Slack', type: 'slack', settings: { url: hook.url } } })).body.id;
  t.equal((await s.request('POST', `/v1/services/${sid}/test`)).body.status, 'sent');
  const test = JSON.parse(hook.received[0]!.body);
  t.equal(hook.received[0]!.headers['content-type'], 'application/json');
  t.equal(test.text, '[Test] Alert gaugeway.test has triggered!');
  t.equal(test.attachments[0].color, 'danger');
  await fireAndClear(s, sid);
  const [trigger, clear] = hook.received.slice(1).map((r) => JSON.parse(r.body));
  t.equal(trigger.text, 'Alert cpu.high has triggered!');
  t.match(trigger.attachments[0], { color: 'danger', title: 'Alert cpu.high has triggered!', title_link: /^https:\/\/metrics\.example\.com\/alerts\/\d+$/, footer: 'Gaugeway · admin@localhost' });
  t.match(trigger.attachments[0].text, /^CPU is high\n• `host=web1` cpu = 95 \(above 90\) at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\nRunbook: https:\/\/wiki\.example\.com\/cpu$/);
  t.match(clear, { text: 'Alert cpu.high has cleared.', attachments: [{ color: 'good', text: /\(normal\)\.$/ }] });
  hook.setStatus(403);
  const refused = await s.request('POST', `/v1/services/${sid}/test`);
  t.same([refused.body.status, refused.body.error], ['failed', 'Slack answered HTTP 403: ok']);
});

t.test('pagerduty: Events API v2 trigger and resolve with one dedup key; the key is a secret', async (t) => {
  const s = await startTestServer(t, YAML);
  const pd = await listener(t, 202);
  const base = pd.url.replace(/\/hook$/, '');
  t.same((await s.request('POST', '/v1/services', { json: { title: 'p', type: 'pagerduty', settings: {} } })).body, { errors: { params: { 'settings.service_key': ['Is required'] } } });
  const created = await s.request('POST', '/v1/services', { json: { title: 'PD', type: 'pagerduty', settings: { service_key: 'R0UT1NGKEY', incident_key: 'gw-', severity: 'error', base_url: base } } });
  t.equal(created.body.settings.service_key, '********', 'shown masked');
  const sid = created.body.id;
  await fireAndClear(s, sid);
  t.same(pd.received.map((r) => r.url), ['/v2/enqueue', '/v2/enqueue']);
  const [trigger, resolve] = pd.received.map((r) => JSON.parse(r.body));
  t.match(trigger, {
    routing_key: 'R0UT1NGKEY', event_action: 'trigger', dedup_key: /^gw-\d+-\d+$/,
    payload: { summary: 'Alert cpu.high has triggered on host=web1', source: 'gaugeway', severity: 'error', custom_details: { account: 'admin@localhost', description: 'CPU is high', violations: { 'host=web1': [{ metric: 'cpu', value: 95 }] } } },
    links: [{ href: /^https:\/\/metrics\.example\.com\/alerts\/\d+$/, text: 'Alert in Gaugeway' }, { href: 'https://wiki.example.com/cpu', text: 'Runbook' }],
  });
  t.same(resolve, { routing_key: 'R0UT1NGKEY', dedup_key: trigger.dedup_key, event_action: 'resolve' }, 'the clear resolves the same incident');
});

t.test('pagerduty: a service with Librato\'s settings (event_type, description) is accepted; the clear still resolves', async (t) => {
  const s = await startTestServer(t, YAML);
  const pd = await listener(t, 202);
  const base = pd.url.replace(/\/hook$/, '');
  const created = await s.request('POST', '/v1/services', { json: { title: 'PD', type: 'pagerduty', settings: { service_key: 'abc', event_type: 'trigger', description: 'Ops', base_url: base } } });
  t.equal(created.status, 201, JSON.stringify(created.body));
  t.match(created.body.settings, { event_type: 'trigger', description: 'Ops' });
  await fireAndClear(s, created.body.id);
  const [trigger, resolve] = pd.received.map((r) => JSON.parse(r.body));
  t.match(trigger, { event_action: 'trigger', payload: { summary: 'Ops: Alert cpu.high has triggered on host=web1' } });
  t.match(resolve, { event_action: 'resolve', dedup_key: trigger.dedup_key }, 'event_type "trigger" does not turn the clear into a trigger');
});
