// An integer field of a request body takes safe integers only: JSON has no integer type,
// so 6e300 (no fraction) passed `integer` and was stored or answered back as given.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { safeIntegers } from '../../src/schema/validate.js';

t.test('integer fields without bounds of their own get the safe-integer bounds; others keep theirs', async (t) => {
  const schema = { type: 'object', properties: { a: { type: 'integer' }, b: { type: ['integer', 'null'], minimum: 0 }, c: { type: 'number' }, d: { type: 'array', items: { type: 'integer', maximum: 9 } } } };
  t.same(safeIntegers(schema), { type: 'object', properties: {
    a: { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
    b: { type: ['integer', 'null'], minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    c: { type: 'number' },
    d: { type: 'array', items: { type: 'integer', maximum: 9, minimum: Number.MIN_SAFE_INTEGER } },
  } });
  t.same(schema.properties.a, { type: 'integer' }, 'the schema itself is left as it is');
});

t.test('6e300 in an integer field is a 400 naming it, not a misleading answer about another field', async (t) => {
  const s = await startTestServer(t);
  const preview = await s.request('POST', '/v1/alerts/preview', { json: { conditions: [{ type: 'above', metric_name: 'g', threshold: 1 }], start_time: 6e300 } });
  t.equal(preview.status, 400);
  t.same(preview.body, { errors: { params: { start_time: ['must be at most 2^53 - 1'] } } }, 'a preview start (was: "end_time must be after start_time")');
  const service = await s.request('POST', '/v1/alerts/1/services', { json: { service: 6e300 } });
  t.equal(service.status, 400, 'a service id (was: alert not found)');
  t.match(service.body, { errors: { params: { service: [/must be at most 2\^53 - 1/] } } });
  const chart = await s.request('POST', '/v1/spaces', { json: { name: 'sp' } });
  const related = await s.request('POST', `/v1/spaces/${chart.body.id}/charts`, { json: { name: 'c', related_space: 6e300, streams: [{ metric: 'g' }] } });
  t.equal(related.status, 400, 'a chart\'s related_space');
  t.match(related.body, { errors: { params: { related_space: [/must be at most 2\^53 - 1/] } } });
});
