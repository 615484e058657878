// Charts of a space in a browser, beyond the basics of ui.test.ts: the time axis spans
// the range chosen, annotation markers sit where their events are, persisted composite
// metrics are plotted, a failing stream leaves the others drawn.
import t from 'tap';
import type { Page } from 'playwright-core';
import { webHarness, WAIT } from './fixtures/harness.js';

const h = await webHarness(t);
if (h) {
  const now = Math.floor(Date.now() / 1000);
  // lat: two hosts over the last hour; disk: one point only
  const measurements = [];
  for (let at = now - 3570; at <= now - 30; at += 30) measurements.push({ name: 'lat', time: at, value: 5, tags: { host: 'a' } });
  measurements.push({ name: 'disk', time: now - 600, value: 70, tags: { host: 'a' } });
  await h.call('POST', '/v1/measurements', { measurements });
  await h.call('POST', '/v1/annotations/deploys', { title: 'recent', start_time: now - 1800 });
  await h.call('POST', '/v1/annotations/deploys', { title: 'two days ago', start_time: now - 2 * 86400 });
  await h.call('POST', '/v1/annotations/incidents', { title: 'incident', start_time: now - 900 });
  await h.call('PUT', '/v1/metrics/lat.total', { type: 'composite', composite: 'sum(s("lat", "*"))' });
  const spaceId = (await h.call('POST', '/v1/spaces', { name: 'Charts' })).id as number;
  const chart = async (json: unknown) => (await h.call('POST', `/v1/spaces/${spaceId}/charts`, json)).id as number;
  const charts = {
    lat: await chart({ name: 'lat', type: 'line', streams: [{ metric: 'lat', group_function: 'breakout' }] }),
    disk: await chart({ name: 'one point', type: 'line', streams: [{ metric: 'disk' }] }),
    composite: await chart({ name: 'persisted composite', type: 'line', streams: [{ metric: 'lat.total', summary_function: 'max', tags: [{ name: 'host', values: ['*'], dynamic: true }] }] }),
    endless: await chart({ name: 'endless breakout', type: 'line', streams: [{ metric: 'endless', group_function: 'breakout' }] }),
    ghost: await chart({ name: 'metric not sent yet', type: 'line', streams: [{ metric: 'not.yet' }] }),
    mixed: await chart({ name: 'one stream fails', type: 'line', streams: [{ metric: 'lat' }, { metric: 'lat.broken' }] }),
    bigBroken: await chart({ name: 'big number of a failing stream', type: 'bignumber', thresholds: [{ operator: '>', value: 1, type: 'red' }], streams: [{ metric: 'lat.broken' }, { metric: 'lat' }] }),
  };

  /** Each marker of a chart: its title and where it sits across the plot (0 left edge, 1 right edge). */
  const markersOf = (page: Page, chartId: number) => page.locator(`[data-chart-id="${chartId}"]`).evaluate((card) => {
    const over = card.querySelector<HTMLElement>('.u-over')!;
    return [...card.querySelectorAll<HTMLElement>('.marker')].map((m) => [m.title, Math.round(100 * (parseFloat(m.style.left) - over.offsetLeft) / over.clientWidth) / 100] as const);
  });
  const openSpace = async (query: string) => {
    const { context, page, problems } = await h.open();
    // the interval the charts asked for: it ends when the page drew them, not at `now`
    let asked = { start: 0, end: 0 };
    page.on('request', (r) => {
      const q = new URL(r.url()).searchParams;
      if (r.url().includes('/v1/measurements/') && q.has('end_time')) asked = { start: Number(q.get('start_time')), end: Number(q.get('end_time')) };
    });
    await h.signIn(page);
    await page.goto(`${h.base}#/spaces/${spaceId}?refresh=0&${query}`);
    await h.spaceReady(page);
    return { context, page, problems, asked: () => asked };
  };

  t.test('the x axis spans the range chosen, not the data: every event in it has its marker', async (t) => {
    const { context, page, problems } = await openSpace('range=7d&ann=deploys');
    const marks = await markersOf(page, charts.lat);
    t.same(marks.map(([title]) => title), ['two days ago', 'recent'], 'the event before the data is marked too');
    const [old, recent] = marks.map(([, x]) => x);
    t.ok(Math.abs(old! - 5 / 7) < 0.02, `two days before the end of 7 days: ${old} of the width`);
    t.ok(recent! > 0.98, `half an hour before the end of 7 days: ${recent} of the width`);
    t.same(problems, []);
    await context.close();
  });

  t.test('a chart with one timestamp spans the hour chosen', async (t) => {
    const { context, page, asked } = await openSpace('range=1h&ann=deploys');
    const marks = await markersOf(page, charts.disk);
    t.same(marks.map(([title]) => title), ['recent']);
    // from the hour the page asked for, not `now`: on a loaded machine the page opens long
    // after seeding, and the event was 0.48 of the way with a minute between
    const { start, end } = asked();
    t.equal(end - start, 3600, 'an hour asked for');
    const expected = (now - 1800 - start) / (end - start);
    t.ok(Math.abs(marks[0]![1] - expected) < 0.02, `half an hour before the end of an hour: ${marks[0]![1]} of the width, ${expected.toFixed(3)} expected`);
    await context.close();
  });

  const legendOf = (page: Page, chartId: number) => page.locator(`[data-chart-id="${chartId}"] .legend-row`).evaluateAll((rows) =>
    rows.map((r) => [r.querySelector('.legend-label')!.textContent, r.querySelector('.legend-value')!.getAttribute('data-value')]));

  t.test('a persisted composite metric is plotted, the space filter reaching its "%" tags', async (t) => {
    const { context, page, problems } = await openSpace('range=1h');
    const card = page.locator(`[data-chart-id="${charts.composite}"]`);
    t.equal(await card.getAttribute('data-state'), 'ready', await card.textContent() ?? '');
    t.same(await legendOf(page, charts.composite), [['lat.total host=a', '5']]);
    const asked: string[] = [];
    page.on('request', (r) => { if (r.url().includes('/v1/measurements/lat.total')) asked.push(new URL(r.url()).search); });
    const before = await h.roundsOf(page);
    await page.fill('#space-filter', 'host=a');
    await page.locator('#space-filter').evaluate((el) => el.dispatchEvent(new Event('change')));
    await h.spaceReady(page, before + 1);
    t.equal(new URLSearchParams(asked[0]).get('tags_search'), 'host="a"', 'the dynamic tag as tags_search');
    t.equal(await card.getAttribute('data-state'), 'ready');
    t.same(problems, []);
    await context.close();
  });

  t.test('the explorer plots a persisted composite metric', async (t) => {
    const { context, page } = await h.open();
    await h.signIn(page);
    await page.goto(`${h.base}#/metrics?metric=lat.total`);
    const card = page.locator('.explore-chart .chart-card:not([data-state="loading"])');
    await card.waitFor(WAIT);
    t.equal(await card.getAttribute('data-state'), 'ready', await card.textContent() ?? '');
    t.ok(await page.locator('#explore-summary').isDisabled(), 'no summary to choose: the definition has it');
    await context.close();
  });

  t.test('a stream the API refuses leaves the chart\'s other streams drawn, and says which failed', async (t) => {
    const { context, page } = await h.open();
    await page.route('**/v1/measurements/lat.broken?*', (route) => route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ errors: { params: { metric: ['is broken'] } } }) }));
    await h.signIn(page);
    await page.goto(`${h.base}#/spaces/${spaceId}?refresh=0`);
    await h.spaceReady(page);
    const card = page.locator(`[data-chart-id="${charts.mixed}"]`);
    t.equal(await card.getAttribute('data-state'), 'ready');
    t.same(await legendOf(page, charts.mixed), [['lat', '5']], 'the working stream is drawn');
    t.equal(await card.locator('.chart-problems').textContent(), 'lat.broken: metric is broken');
    const big = page.locator(`[data-chart-id="${charts.bigBroken}"]`);
    t.equal(await big.locator('.bignumber').getAttribute('data-value'), '', 'a big number shows no value when its first stream failed, not the second\'s');
    await context.close();
  });

  t.test('a deleted annotation stream hides only its own markers', async (t) => {
    const { context, page } = await openSpace('range=1h&ann=deploys,incidents');
    t.same((await markersOf(page, charts.lat)).map(([title]) => title), ['recent', 'incident']);
    await h.call('DELETE', '/v1/annotations/incidents');
    const before = await h.roundsOf(page);
    await page.selectOption('#picker-range', '3h');
    await h.spaceReady(page, before + 1);
    t.same((await markersOf(page, charts.lat)).map(([title]) => title), ['recent'], 'the other stream\'s marker is still drawn');
    await context.close();
  });

  t.test('charts deleted on the page: the space says it has none, and its delete asks about no charts', async (t) => {
    const emptied = (await h.call('POST', '/v1/spaces', { name: 'Emptied' })).id as number;
    await h.call('POST', `/v1/spaces/${emptied}/charts`, { name: 'only chart', type: 'line', streams: [{ metric: 'lat' }] });
    const { context, page } = await h.open();
    const asked: string[] = [];
    page.on('dialog', (d) => asked.push(d.message()));
    await h.signIn(page);
    await page.goto(`${h.base}#/spaces/${emptied}?refresh=0`);
    await h.spaceReady(page);
    await page.click('button[aria-label="delete only chart"]');
    await page.locator('.no-charts').waitFor(WAIT);
    await page.click('text=Delete space');
    await page.locator('.space-list').waitFor(WAIT);
    t.same(asked, ['Delete the chart “only chart”?', 'Delete the space “Emptied”?']);
    await context.close();
  });

  t.test('a chart of a metric nothing was sent to yet has no data, not an error', async (t) => {
    const { context, page } = await openSpace('range=1h');
    const card = page.locator(`[data-chart-id="${charts.ghost}"]`);
    t.equal(await card.getAttribute('data-state'), 'ready');
    t.equal(await card.locator('.chart-empty').textContent(), 'No data in this interval');
    await context.close();
  });

  t.test('a breakout cut at its page limit says so', async (t) => {
    const { context, page } = await h.open();
    // every page of this metric has one series and a next page: the UI stops at its limit
    let pages = 0;
    await page.route('**/v1/measurements/endless?*', (route) => {
      pages++;
      const series = [{ tags: { host: `h${pages}` }, measurements: [{ time: now - 60, value: 1 }] }];
      return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ name: 'endless', resolution: 1, series, links: [{ rel: 'next', href: `/v1/measurements/endless?cursor=${pages}` }] }) });
    });
    await h.signIn(page);
    await page.goto(`${h.base}#/spaces/${spaceId}?refresh=0`);
    await h.spaceReady(page);
    const card = page.locator(`[data-chart-id="${charts.endless}"]`);
    t.equal(await card.getAttribute('data-state'), 'ready');
    t.equal(await card.locator('.chart-problems').textContent(), `endless: only the first ${pages} series are drawn`);
    await context.close();
  });
}
