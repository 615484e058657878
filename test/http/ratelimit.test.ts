import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { RateLimiter } from '../../src/http/ratelimit.js';

t.test('every authenticated response carries both rate-limit headers; over the limit is 429', async (t) => {
  const s = await startTestServer(t, 'limits:\n  rate_limit:\n    std:\n      limit: 3\n      interval_seconds: 3600\n    agg:\n      limit: 5\n      interval_seconds: 3600\n');
  const first = await s.get('/v1/metrics');
  t.match(first.headers['x-librato-ratelimit-std'], /^limit=3,remaining=2,reset=\d+$/);
  t.match(first.headers['x-librato-ratelimit-agg'], /^limit=5,remaining=5,reset=\d+$/);
  await s.get('/v1/metrics');
  await s.get('/v1/metrics');
  const limited = await s.get('/v1/metrics');
  t.equal(limited.status, 429);
  t.match(limited.body, { errors: { request: [/API limit/] } });
  t.match(limited.headers['x-librato-ratelimit-std'], /^limit=3,remaining=0,/);

  // Buckets are per account.
  const other = await s.newAccount('rl-other@example.com');
  t.equal((await s.get('/v1/metrics', { auth: other })).status, 200);
});

t.test('token bucket refills with time', async (t) => {
  let now = 1_000_000;
  const rl = new RateLimiter({ std: { limit: 2, interval_seconds: 10 }, agg: { limit: 0, interval_seconds: 60 } }, () => now);
  t.ok(rl.take('std', 1).allowed);
  t.ok(rl.take('std', 1).allowed);
  const denied = rl.take('std', 1);
  t.notOk(denied.allowed);
  t.equal(denied.header, `limit=2,remaining=0,reset=${Math.ceil((now + 10_000) / 1000)}`);
  now += 5_000;
  t.ok(rl.take('std', 1).allowed, 'half the interval refills one token');
  t.notOk(rl.take('std', 1).allowed);
  t.ok(rl.take('agg', 1).allowed, 'limit 0 turns the bucket off');
  t.match(rl.peek('agg', 1), /^limit=0,remaining=2147483647/);
});

t.test('a submission is metered by agg however its path is spelled', async (t) => {
  const s = await startTestServer(t, 'limits:\n  rate_limit:\n    std:\n      limit: 100\n      interval_seconds: 3600\n    agg:\n      limit: 1\n      interval_seconds: 3600\n');
  const body = { tags: { host: 'a' }, measurements: [{ name: 'rl.case', value: 1 }] };
  t.equal((await s.request('POST', '/v1/measurements', { json: body })).status, 200);
  // the router routes /v1/Measurements and /v1/METRICS/ like the lower-case paths
  for (const path of ['/v1/Measurements', '/v1/MEASUREMENTS/', '/v1/Metrics']) {
    const r = await s.request('POST', path, { json: body });
    t.equal(r.status, 429, path);
    t.match(r.headers['x-librato-ratelimit-agg'], /^limit=1,remaining=0,/, path);
  }
});
