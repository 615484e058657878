// The web UI's pure parts, without a browser: how a chart stream becomes a /v1 query,
// how answers become lines, ranges and resolutions, tag text, formats, routes, errors.
import t from 'tap';
import { align, fillGaps, linesOf, nextLink, stack, streamQuery, effectiveTags, valueAt } from '../../src/web/charts/queries.js';
import { intervalOf, rangeByKey, resolutionFor, resolutionsFor, RANGES } from '../../src/web/charts/ranges.js';
import { parseStreamTags, streamTagText } from '../../src/web/charts/tags.js';
import { formatValue, thresholdColour } from '../../src/web/charts/format.js';
import { yAxes } from '../../src/web/charts/axes.js';
import { hashOf, match, parseHash } from '../../src/web/router.js';
import { apiBase, errorMessages, nextPath, queryString } from '../../src/web/api.js';
import { alertState, describeCondition } from '../../src/web/views/alerts.js';
import { alertUpdate } from '../../src/web/views/alert.js';
import type { Alert } from '../../src/web/types.js';

const HOUR = { start: 1000, end: 4600, resolution: 1 };

t.test('ranges map onto the stored rollups as Librato did', async (t) => {
  t.same(RANGES.map((r) => [r.key, resolutionFor(r.seconds)]), [['15m', 1], ['1h', 1], ['3h', 60], ['6h', 60], ['12h', 900], ['24h', 900], ['3d', 3600], ['7d', 3600], ['30d', 3600]]);
  t.same(resolutionsFor(6 * 3600), [60, 900, 3600], 'coarser tiers may be asked for');
  t.same(resolutionsFor(7 * 86400), [3600], 'never finer than the range allows');
  t.same(intervalOf(rangeByKey('24h'), 100_000, 60), { start: 13_600, end: 100_000, resolution: 900 }, 'a finer resolution than allowed falls back');
  t.same(intervalOf(rangeByKey('24h'), 100_000, 3600).resolution, 3600);
  t.equal(rangeByKey('nonsense').key, '1h');
});

t.test('a stream with grouped tags groups by them; without, it folds or breaks out', async (t) => {
  const q = streamQuery({ metric: 'cpu', tags: [{ name: 'region', values: ['us-*', 'eu-*'], grouped: true }, { name: 'host', values: ['*'] }], group_function: 'sum', summary_function: 'max' }, HOUR);
  t.same(q, { path: 'v1/measurements/cpu', params: { start_time: 1000, end_time: 4600, resolution: 60, summary_function: 'max', 'tags[region][]': ['us-*', 'eu-*'], group_by: 'region', group_by_function: 'sum' } });
  const folded = streamQuery({ metric: 'cpu' }, HOUR);
  t.same([folded.params.group_by, folded.params.group_by_function, folded.params.summary_function], ['*', 'mean', 'mean'], 'default average: one line');
  const breakout = streamQuery({ metric: 'cpu', group_function: 'breakout' }, HOUR);
  t.equal(breakout.params.group_by, undefined, 'breakout: every series');
  t.same([folded.params.resolution, breakout.params.resolution], [60, 1], 'a line combining series asks for minutes at least (hosts report at different seconds); one series a line keeps raw points');
  t.equal(streamQuery({ metric: 'cpu' }, { ...HOUR, resolution: 900 }).params.resolution, 900, 'coarser resolutions as asked');
  t.equal(streamQuery({ metric: 'a b/c' }, HOUR).path, 'v1/measurements/a%20b%2Fc');
});

t.test('a composite stream is a compose query', async (t) => {
  t.same(streamQuery({ composite: 'sum(s("a", "*"))' }, HOUR), { path: 'v1/measurements', params: { compose: 'sum(s("a", "*"))', start_time: 1000, end_time: 4600, resolution: 60, tags_search: undefined } });
  // hosts reporting at different seconds share no one-second bucket: a sum of raw points
  // jumped from one host's value to another's, as group_by did
  t.same(['mean(s("a", "*"))', 'divide([s("a", "x"), s("b", "x")])', 'group_by("region", s("a", "*"))', 'max (s("a", "*"))'].map((c) => streamQuery({ composite: c }, HOUR).params.resolution),
    [60, 60, 60, 60], 'a composite that combines series asks for minutes at least');
  t.same(['s("a", "*")', 'derive(s("summary.count", "*"))', 'scale(s("a", "*"), {factor: "2"})'].map((c) => streamQuery({ composite: c }, HOUR).params.resolution),
    [1, 1, 1], 'one that draws each series keeps raw points');
  t.equal(streamQuery({ composite: 'sum(s("a", "*"))' }, { ...HOUR, resolution: 900 }).params.resolution, 900);
  t.equal(streamQuery({ composite: 'sum(s("a", "%"))' }, HOUR, { region: 'eu', host: 'web*' }).params.tags_search, 'region="eu" and host="web*"', 'the space filter fills "%"');
  t.equal(streamQuery({ composite: 'sum(s("a", "%"))', tags: [{ name: 'host', dynamic: true }] }, HOUR, { region: 'eu', host: 'web-1' }).params.tags_search, 'host="web-1"', 'or, if the stream names dynamic tags, those of them');
  t.throws(() => streamQuery({}, HOUR));
});

t.test('a stream tag without values matches every value', async (t) => {
  const q = streamQuery({ metric: 'cpu', tags: [{ name: 'region', grouped: true }, { name: 'host' }] }, HOUR);
  t.same([q.params.group_by, q.params['tags[region][]'], q.params['tags[host][]']], ['region', undefined, undefined]);
  t.same(streamTagText([{ name: 'region', grouped: true }, { name: 'host' }]), { filters: 'host=*', groupBy: 'region', dynamic: '' });
});

t.test('a persisted composite metric is asked for without tags, grouping or summary', async (t) => {
  const stream = { metric: 'cpu.total', type: 'composite', summary_function: 'max' as const, group_function: 'sum' as const, tags: [{ name: 'region', values: ['*'], dynamic: true }, { name: 'host', values: ['web-1'] }] };
  t.same(streamQuery(stream, HOUR), { path: 'v1/measurements/cpu.total', params: { start_time: 1000, end_time: 4600, resolution: 60, tags_search: undefined } },
    'its definition (not in the chart) is taken to combine series: minutes at least');
  t.equal(streamQuery(stream, HOUR, { region: 'eu-west', host: 'x' }).params.tags_search, 'region="eu-west"', 'the space filter reaches its dynamic tags');
});

t.test('dynamic tags take the space filter\'s value; others keep theirs', async (t) => {
  const stream = { metric: 'cpu', tags: [{ name: 'region', values: ['*'], dynamic: true }, { name: 'host', values: ['web-1'] }] };
  t.same(effectiveTags(stream, { region: 'eu', host: 'db' }).map((x) => x.values), [['eu'], ['web-1']]);
  t.same(streamQuery(stream, HOUR, { region: 'eu' }).params['tags[region][]'], ['eu']);
  t.equal(streamQuery(stream, HOUR, {}).params['tags[region][]'], undefined, 'no filter: all');
});

t.test('answers become labelled, transformed lines; pages are followed by next', async (t) => {
  const answer = { name: 'cpu', resolution: 60, links: [{ rel: 'next', href: '/v1/measurements/cpu?cursor=x' }], series: [{ tags: { region: 'us', host: 'a' }, measurements: [{ time: 60, value: 2 }] }] };
  const [line] = linesOf({ metric: 'cpu', transform_function: 'x/p' }, 0, answer, 60);
  t.equal(line!.label, 'cpu host=a region=us');
  t.same(line!.points, [{ time: 60, value: 2 / 60 }], 'x/p with p the resolution');
  t.equal(nextLink(answer), '/v1/measurements/cpu?cursor=x');
  t.equal(nextLink([]), null, 'composite answers are never paginated');
  const [named] = linesOf({ metric: 'cpu', name: 'CPU' }, 0, { ...answer, series: [{ tags: {}, measurements: [] }] }, 60);
  t.equal(named!.label, 'CPU', 'a grouped-away series is the stream\'s name');
});

t.test('align and stack lines on shared times', async (t) => {
  const lines = [
    { label: 'a', tags: {}, stream: 0, points: [{ time: 1, value: 1 }, { time: 2, value: 2 }] },
    { label: 'b', tags: {}, stream: 0, points: [{ time: 2, value: 10 }, { time: 3, value: 20 }] },
  ];
  const [times, a, b] = align(lines);
  t.same(times, [1, 2, 3]);
  t.same(a, [1, 2, null]);
  t.same(b, [null, 10, 20]);
  t.same(stack([a!, b!]), [[1, 2, 0], [1, 12, 20]]);
});

t.test('series reporting at different seconds are drawn continuously and stack to their sum', async (t) => {
  // a at :00 and :30 of each minute, b at :15 and :45 (raw points of agents not in step)
  const at = (offset: number, value: number) => [0, 1, 2, 3].map((k) => ({ time: offset + 30 * k, value }));
  const [times, a, b] = align([{ label: 'a', tags: {}, stream: 0, points: at(0, 5) }, { label: 'b', tags: {}, stream: 0, points: at(15, 7) }]);
  const filled = [fillGaps(times, a!), fillGaps(times, b!)];
  t.same(filled[0], [5, 5, 5, 5, 5, 5, 5, null], 'a between its samples; none after its last');
  t.same(filled[1], [null, 7, 7, 7, 7, 7, 7, 7], 'b likewise; none before its first');
  t.same(stack(filled).at(-1)!.slice(1, -1), [12, 12, 12, 12, 12, 12], 'the total is 12 wherever both report');
  const slope = fillGaps([0, 10, 20], [0, null, 20]);
  t.same(slope, [0, 10, 20], 'interpolated, not carried');
  t.same(fillGaps([0, 10, 15, 20], [1, 1, null, 1]), [1, 1, 1, 1], 'a row of another line between two samples a usual step apart: filled');
  t.same(fillGaps([0, 10, 20, 30, 40, 100], [1, 1, 1, 1, null, 1]), [1, 1, 1, 1, null, 1], 'a stretch far longer than the usual step stays a gap');
});

t.test('tag text round-trips into stream tags', async (t) => {
  const tags = parseStreamTags({ filters: 'region=us-*|eu-*, host=web-1, bad, =x', groupBy: 'region, zone', dynamic: 'host, dc' });
  t.same(tags, [
    { name: 'region', values: ['us-*', 'eu-*'], grouped: true },
    { name: 'host', values: ['web-1'], grouped: false, dynamic: true },
    { name: 'zone', values: ['*'], grouped: true },
    { name: 'dc', values: ['*'], grouped: false, dynamic: true },
  ]);
  t.same(streamTagText(tags), { filters: 'region=us-*|eu-*, host=web-1', groupBy: 'region, zone', dynamic: 'host, dc' });
  t.same(parseStreamTags({ filters: 'a=1, b=2', groupBy: '', dynamic: 'a' }).map((x) => [x.name, x.dynamic ?? false]), [['a', true], ['b', false]], 'only the tags named are dynamic');
});

t.test('each y axis is labelled with its own units', async (t) => {
  const line = (stream: number) => ({ label: '', tags: {}, stream, points: [] });
  const chart = { id: 1, name: 'two units', type: 'line' as const, streams: [{ metric: 'cpu' }, { metric: 'requests', units_long: 'req/s' }] };
  t.same(yAxes(chart, [line(0), line(1)]), { lineScales: ['y', 'u:req/s'], axes: [{ scale: 'y', label: undefined }, { scale: 'u:req/s', label: 'req/s' }] }, 'the left axis has no units, not the right one\'s');
  t.equal(yAxes({ ...chart, label: 'load' }, [line(0), line(1)]).axes[0]!.label, 'load', 'the chart\'s label on the left');
  const three = { ...chart, streams: [{ metric: 'a', units_long: '%' }, { metric: 'b' }, { metric: 'c', units_long: 'ms' }] };
  t.same(yAxes(three, [line(0), line(1), line(2)]), { lineScales: ['u:%', 'y', 'y'], axes: [{ scale: 'u:%', label: '%' }, { scale: 'y', label: undefined }] }, 'a third units value shares the right axis');
});

t.test('values and thresholds', async (t) => {
  t.same([formatValue(42), formatValue(4.2), formatValue(1 / 3), formatValue(12_345), formatValue(2.5e9, 'B'), formatValue(null), formatValue(NaN)], ['42', '4.2', '0.3333', '12.35k', '2.5 GB', '–', '–']);
  t.same([formatValue(512, 'B'), formatValue(-12_345, 'req'), formatValue(3e12)], ['512 B', '-12.35 kreq', '3T'], 'units after the prefix, a space before both');
  const th = [{ operator: '>' as const, value: 30, type: 'yellow' as const }, { operator: '>' as const, value: 40, type: 'red' as const }];
  t.equal(thresholdColour(42, th), 'red');
  t.equal(thresholdColour(35, th), 'yellow');
  t.equal(thresholdColour(10, th), null);
  t.equal(thresholdColour(5, [{ operator: '=', value: 5, type: 'red' }]), 'red');
  t.equal(thresholdColour(5, [{ operator: '<', value: 6, type: 'yellow' }]), 'yellow');
  t.equal(thresholdColour(null, th), null);
});

t.test('hash routes', async (t) => {
  t.same(parseHash('#/spaces/12?range=6h'), { path: ['spaces', '12'], query: new URLSearchParams('range=6h') });
  t.same(parseHash('')?.path, []);
  t.equal(parseHash('#/spaces/%E0%A4%A'), null, 'a malformed escape is no route');
  t.same(match('spaces/:id', ['spaces', '12']), { id: '12' });
  t.equal(match('spaces/:id', ['spaces']), null);
  t.equal(match('spaces/:id/charts/new', ['spaces', '1', 'charts', '2']), null);
  t.equal(hashOf(['spaces', 3], { range: '1h', empty: '', none: undefined }), '#/spaces/3?range=1h');
});

t.test('the API beside the page, its errors as sentences, its query strings', async (t) => {
  t.equal(apiBase('https://h:7443/#/spaces/1'), 'https://h:7443/');
  t.equal(apiBase('https://proxy.example.com/gw/index.html?x=1#/a'), 'https://proxy.example.com/gw/');
  t.same(errorMessages({ errors: { params: { name: ['is required'], streams: ['must not be empty'] }, request: ['Nope'] } }), ['name is required', 'streams must not be empty', 'Nope']);
  t.same(errorMessages({ nothing: 1 }), []);
  t.equal(queryString({ a: 1, b: undefined, 'tags[x][]': ['p', 'q'] }), '?a=1&tags%5Bx%5D%5B%5D=p&tags%5Bx%5D%5B%5D=q');
  t.equal(queryString({}), '');
});

t.test('alert states and the update that toggles one', async (t) => {
  const alert: Alert = { id: 7, name: 'a', active: true, version: 2, conditions: [{ id: 1, type: 'above', metric_name: 'cpu', threshold: 90, duration: 300, summary_function: 'max', tags: [{ name: 'host', values: ['web*'], grouped: true }] }], services: [{ id: 3, type: 'webhook', title: 'hook', settings: {} }], rearm_seconds: 600 };
  const none = { firing: [], cleared: [] };
  t.same(alertState(alert, { firing: [{ id: 7, triggered_at: 5 }], cleared: [] }), { state: 'firing', since: 5 });
  t.same(alertState(alert, { firing: [], cleared: [{ id: 7, cleared_at: 6 }] }), { state: 'cleared', since: 6 });
  t.same(alertState(alert, none), { state: 'ok' });
  t.same(alertState({ ...alert, active: false }, none), { state: 'disabled' });
  t.equal(describeCondition(alert.conditions[0]!), 'max of cpu {host=web* (each)} above 90 for 300 s');
  t.equal(describeCondition({ type: 'absent', metric_name: 'up', duration: 600 }), 'up absent for 600 s');
  const update = alertUpdate(alert, false);
  t.same([update.active, update.services, update.conditions], [false, [3], alert.conditions]);
});

t.test('the hovered value of a line is its latest sample at or before the time, unless that is a gap back', async (t) => {
  const line = { label: 'a', tags: {}, stream: 0, points: [{ time: 100, value: 1 }, { time: 110, value: 2 }, { time: 120, value: 3 }, { time: 200, value: 4 }] };
  t.same([95, 100, 105, 110, 114, 120, 134, 135, 199, 200, 214, 215].map((time) => valueAt(line, time)), [null, 1, 1, 2, 2, 3, 3, null, null, 4, 4, null],
    'hosts reporting at other seconds show their value between samples; a stretch without samples shows none');
  t.same([99, 100, 101].map((time) => valueAt({ ...line, points: [{ time: 100, value: 7 }] }, time)), [null, 7, null], 'one sample: only at its time');
  t.equal(valueAt({ ...line, points: [] }, 100), null);
});

t.test('a next href becomes a path under the API base, bare or absolute behind a proxy', async (t) => {
  t.equal(nextPath('/v1/measurements/cpu?cursor=abc&resolution=60', 'http://127.0.0.1:8080/'), 'v1/measurements/cpu?cursor=abc&resolution=60');
  t.equal(nextPath('https://metrics.example.com/gw/v1/measurements/cpu?cursor=abc', 'https://metrics.example.com/gw/'), 'v1/measurements/cpu?cursor=abc', 'the external sub-path is the base\'s own');
  t.equal(nextPath('https://metrics.example.com/gw/v1/measurements/cpu?cursor=abc', 'https://metrics.example.com/gw'), 'v1/measurements/cpu?cursor=abc', 'a base without its final slash');
  t.equal(nextPath('https://other.example.com/v1/measurements/cpu?x=1', 'https://metrics.example.com/gw/'), 'v1/measurements/cpu?x=1', 'another prefix: its path, asked of this page\'s API');
});
