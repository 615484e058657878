// The webhook plugin against a real receiver on loopback: Librato's payload, and its clear
// that says "normal" whatever the reason, as Librato's webhook did.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { listener } from '../helpers/listener.js';
import { poll } from '../helpers/poll.js';

const YAML = 'alerts:\n  check_schedule: "0 0 1 1 *"';

t.test('a manual clear reaches the webhook as clear "normal", as Librato sends it', async (t) => {
  const s = await startTestServer(t, YAML);
  const hook = await listener(t);
  const sid = (await s.request('POST', '/v1/services', { json: { title: 'hook', type: 'webhook', settings: { url: hook.url } } })).body.id;
  const t0 = Math.floor(Date.now() / 1000) + 5;
  const r = await s.request('POST', '/v1/alerts', { json: { name: 'cpu.high', services: [sid], conditions: [{ type: 'above', metric_name: 'cpu', threshold: 90 }] } });
  t.equal(r.status, 201);
  await s.request('POST', '/v1/measurements', { json: { tags: { host: 'web1' }, measurements: [{ name: 'cpu', time: t0 + 1, value: 95 }] } });
  await s.server.rt.alertEngine.evaluateAll(t0 + 2);
  t.equal((await s.request('POST', `/v1/alerts/${r.body.id}/clear`)).status, 204);
  await poll(async () => (hook.received.length === 2 ? true : undefined));
  const [trigger, clear] = hook.received.map((x) => JSON.parse(new URLSearchParams(x.body).get('payload')!));
  t.same(Object.keys(clear), ['alert', 'account', 'trigger_time', 'clear', 'incident_key']);
  t.equal(clear.clear, 'normal');
  t.equal(clear.incident_key, trigger.incident_key);
});

t.test('payload: every clear reason is "normal"', async (t) => {
  const { payload } = await import('../../plugins/webhook/index.js');
  const n = {
    kind: 'clear' as const, alert: { id: 1, name: 'a', description: null, runbook_url: null, version: 2 as const }, account: 'a@example.com',
    time: 10, incident_key: '1-5', conditions: [], violations: {}, triggered_by_user_test: false,
  };
  for (const clear of ['normal', 'manual', 'auto'] as const) t.equal(payload({ ...n, clear }).clear, 'normal', clear);
});
