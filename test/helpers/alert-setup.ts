// The alert engine under test: a server whose schedule never fires on its own (once a
// year), a real webhook receiver on loopback, and evaluation at chosen moments.
import type { Test } from 'tap';
import { startTestServer, type TestServer } from './server.js';
import { listener } from './listener.js';

export const YAML = 'alerts:\n  check_schedule: "0 0 1 1 *"';

export interface Setup {
  s: TestServer;
  hook: Awaited<ReturnType<typeof listener>>;
  sid: number;
  t0: number;
  account: number;
  evaluate(at: number): Promise<void>;
  /** the payloads received so far, parsed */
  payloads(): Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  alert(json: Record<string, unknown>): Promise<number>;
  post(metric: string, points: [number, number][], tags?: Record<string, string>): Promise<void>;
}

export async function setup(t: Test, dataDir?: string): Promise<Setup> {
  const s = await startTestServer(t, YAML, dataDir ? { dataDir, keepData: true } : {});
  const hook = await listener(t);
  const sid = (await s.request('POST', '/v1/services', { json: { title: 'hook', type: 'webhook', settings: { url: hook.url } } })).body.id;
  const rt = s.server.rt;
  const t0 = Math.floor(Date.now() / 1000) + 5;
  return {
    s, hook, sid, t0, account: rt.accounts.findAccount(s.admin.user)!.id,
    async evaluate(at) { await rt.alertEngine.evaluateAll(at); await rt.alertEngine.idle(); },
    payloads: () => hook.received.map((r) => JSON.parse(new URLSearchParams(r.body).get('payload')!)),
    async alert(json) {
      const r = await s.request('POST', '/v1/alerts', { json: { services: [sid], ...json } });
      if (r.status !== 201) throw new Error(JSON.stringify(r.body));
      return r.body.id;
    },
    async post(metric, points, tags = { host: 'web1' }) {
      const r = await s.request('POST', '/v1/measurements', { json: { tags, measurements: points.map(([time, value]) => ({ name: metric, time, value })) } });
      if (r.status !== 202 && r.status !== 200) throw new Error(`${r.status} ${r.text}`);
    },
  };
}
