// The chart editor in a browser: a chart saved from it unchanged stays as it was (stream
// ids, fields the form does not show, which tag is dynamic); a changed field changes only
// that.
import t from 'tap';
import { webHarness, WAIT } from './fixtures/harness.js';

const h = await webHarness(t);
if (h) {
  await h.call('PUT', '/v1/metrics/cpu', { type: 'gauge' });
  await h.call('PUT', '/v1/metrics/cpu.total', { type: 'composite', composite: 'sum(s("cpu", "*"))' });
  const spaceId = (await h.call('POST', '/v1/spaces', { name: 'Editing' })).id as number;
  const streams = [
    { metric: 'cpu', tags: [{ name: 'region', values: ['us-east'], dynamic: true }, { name: 'host', values: ['web-1', 'web-2'] }], group_function: 'sum', summary_function: 'max', min: 0, max: 100, period: 60, split_axis: true },
    { metric: 'cpu.total', downsample_function: 'max', group_function: 'average' },
    { composite: 'sum(s("cpu", "*"))', summary_function: 'max', downsample_function: 'min', name: 'all cpu' },
  ];
  const chartPath = `/v1/spaces/${spaceId}/charts`;

  /** Opens the chart's editor, lets `change` fill in the form, saves, and gives the chart as stored. */
  const saveFromEditor = async (chartId: number, change: (page: import('playwright-core').Page) => Promise<void>) => {
    const { context, page, problems } = await h.open();
    await h.signIn(page);
    await page.goto(`${h.base}#/spaces/${spaceId}/charts/${chartId}`);
    await page.locator('#chart-name').waitFor(WAIT);
    await change(page);
    await page.click('text=Save chart');
    await page.locator(`.chart-card[data-chart-id="${chartId}"]`).waitFor(WAIT);
    await context.close();
    t.same(problems, [], 'no script errors');
    return h.call('GET', `${chartPath}/${chartId}`);
  };

  t.test('a chart saved unchanged keeps its stream ids, hidden fields and dynamic tags', async (t) => {
    const before = await h.call('POST', chartPath, { name: 'roundtrip', type: 'line', streams });
    const after = await saveFromEditor(before.id, async () => {});
    t.same(after.streams, before.streams, 'every stream as it was');
  });

  t.test('a changed tag filter changes the tags; the dynamic one stays the only dynamic one', async (t) => {
    const before = await h.call('POST', chartPath, { name: 'retagged', type: 'line', streams });
    const after = await saveFromEditor(before.id, async (page) => {
      await page.locator('.stream-tags').first().fill('region=us-east, host=web-1|web-2, zone=a');
    });
    const [first, second, third] = after.streams;
    t.same(first.tags, [
      { name: 'region', values: ['us-east'], grouped: false, dynamic: true },
      { name: 'host', values: ['web-1', 'web-2'], grouped: false },
      { name: 'zone', values: ['a'], grouped: false },
    ]);
    t.same([first.id, first.min, first.max, first.period, first.split_axis, first.summary_function], [before.streams[0].id, 0, 100, 60, true, 'max'], 'the rest of the stream kept');
    t.same([second, third], before.streams.slice(1), 'the other streams untouched');
  });

  t.test('a stream tag without values (the API accepts it) is drawn, edited and saved', async (t) => {
    const before = await h.call('POST', chartPath, { name: 'tags without values', type: 'line', streams: [{ metric: 'cpu', tags: [{ name: 'region', grouped: true }] }] });
    const { context, page } = await h.open();
    await h.signIn(page);
    await page.goto(`${h.base}#/spaces/${spaceId}?refresh=0`);
    await h.spaceReady(page);
    const card = page.locator(`.chart-card[data-chart-id="${before.id}"]`);
    t.not(await card.getAttribute('data-state'), 'error', await card.textContent() ?? '');
    await context.close();
    const after = await saveFromEditor(before.id, async (page) => {
      t.equal(await page.locator('.stream-group-by').inputValue(), 'region', 'the editor shows the tag');
    });
    t.same(after.streams, before.streams, 'saved unchanged');
  });
}
