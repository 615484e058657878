// Lists longer than one page of the API (100): the explorer offers every space to add a
// chart to, the chart editor suggests metrics beyond the first page as one types, and a
// space offers every annotation stream.
import t from 'tap';
import { webHarness, WAIT } from './fixtures/harness.js';

const h = await webHarness(t);
if (h) {
  for (let i = 0; i < 105; i++) {
    const n = String(i).padStart(3, '0');
    await h.call('POST', '/v1/spaces', { name: `space ${n}` });
    await h.call('PUT', `/v1/metrics/m${n}`, { type: 'gauge' });
  }
  await h.call('PUT', '/v1/metrics/zeta.metric', { type: 'gauge' });
  const now = Math.floor(Date.now() / 1000);
  for (let i = 0; i < 101; i++) await h.call('POST', `/v1/annotations/notes-${String(i).padStart(3, '0')}`, { title: `note ${i}`, start_time: now - 600 });
  await h.call('POST', '/v1/measurements', { measurements: [{ name: 'm000', time: now - 900, value: 1, tags: { host: 'a' } }, { name: 'm000', time: now - 60, value: 2, tags: { host: 'a' } }] });
  const space = (await h.call('POST', '/v1/spaces', { name: 'noted' })).id as number;
  await h.call('POST', `/v1/spaces/${space}/charts`, { name: 'm', type: 'line', streams: [{ metric: 'm000' }] });

  t.test('the explorer offers every space, not the first 100', async (t) => {
    const { context, page } = await h.open();
    await h.signIn(page);
    await page.goto(`${h.base}#/metrics`);
    await page.locator('#explore-space').waitFor(WAIT);
    t.equal(await page.locator('#explore-space option').count(), 106, 'the 105 and the space of the annotations test');
    await context.close();
  });

  t.test('the chart editor suggests metrics past the first page as one types', async (t) => {
    const { context, page } = await h.open();
    await h.signIn(page);
    await page.goto(`${h.base}#/spaces/1/charts/new`);
    await page.locator('.stream-metric').fill('zeta');
    await page.locator('#metric-names option[value="zeta.metric"]').waitFor({ state: 'attached', ...WAIT });
    t.pass('zeta.metric suggested');
    await context.close();
  });

  t.test('a space offers every annotation stream, and marks one past the first 100 that its address names', async (t) => {
    const { context, page, problems } = await h.open();
    await h.signIn(page);
    await page.goto(`${h.base}#/spaces/${space}?refresh=0&ann=notes-100`);
    await page.waitForFunction(() => Number(document.querySelector('.chart-grid')?.getAttribute('data-rounds') ?? 0) >= 1, undefined, WAIT);
    t.equal(await page.locator('.annotation-picker input[type="checkbox"]').count(), 101, 'every stream in the menu');
    t.same(await page.locator('.marker').evaluateAll((ms) => ms.map((m) => m.getAttribute('title'))), ['note 100']);
    t.same(problems, []);
    await context.close();
  });
}
