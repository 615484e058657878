// Lists longer than one page of the API (100): the explorer offers every space to add a
// chart to, and the chart editor suggests metrics beyond the first page as one types.
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

  t.test('the explorer offers every space, not the first 100', async (t) => {
    const { context, page } = await h.open();
    await h.signIn(page);
    await page.goto(`${h.base}#/metrics`);
    await page.locator('#explore-space').waitFor(WAIT);
    t.equal(await page.locator('#explore-space option').count(), 105);
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
}
