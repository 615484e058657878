// What an operator's second look at the UI found, each over the same test server and
// browser: labels and focus for keyboard and screen-reader users, errors shown where the
// action was, the chart editor's stream order.
import t from 'tap';
import { webHarness, WAIT } from './fixtures/harness.js';

const h = await webHarness(t);
if (h) {
  const now = Math.floor(Date.now() / 1000);
  const measurements = [];
  for (let at = now - 3540; at <= now - 60; at += 60) measurements.push({ name: 'cpu', time: at, value: 5, tags: { host: 'a' } });
  await h.call('POST', '/v1/measurements', { measurements });
  const spaceId = (await h.call('POST', '/v1/spaces', { name: 'Review' })).id as number;
  const chartPath = `/v1/spaces/${spaceId}/charts`;
  const lineChart = (await h.call('POST', chartPath, { name: 'cpu', type: 'line', streams: [{ metric: 'cpu' }] })).id as number;

  const openEditor = async (chartId: number) => {
    const opened = await h.open();
    await h.signIn(opened.page);
    await opened.page.goto(`${h.base}#/spaces/${spaceId}/charts/${chartId}`);
    await opened.page.locator('#chart-name').waitFor(WAIT);
    return opened;
  };

  t.test('every field of the chart editor is named by its label', async (t) => {
    const { context, page, problems } = await openEditor(lineChart);
    t.same(await page.locator('form.chart-form label', { hasText: /^Name$/ }).evaluate((l: HTMLLabelElement) => l.control?.id ?? null), 'chart-name', 'the label "Name" names the chart\'s name field');
    const unnamed = await page.locator('form.chart-form').evaluate((form) => [...form.querySelectorAll<HTMLInputElement>('input, select, textarea')]
      .filter((el) => !el.labels?.length && !el.getAttribute('aria-label')).map((el) => el.outerHTML));
    t.same(unnamed, [], 'no field without a label');
    t.same(problems, []);
    await context.close();
  });
}
