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
  const deploy = (await h.call('POST', '/v1/annotations/deploys', { title: 'deploy v7', description: 'a long text to read', start_time: now - 1800 })).id as number;
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

  const openSpace = async () => {
    const opened = await h.open();
    await h.signIn(opened.page);
    await opened.page.goto(`${h.base}#/spaces/${spaceId}?refresh=0`);
    await h.spaceReady(opened.page);
    return opened;
  };

  t.test('an annotation\'s box stays open across a refresh, and closing it gives its marker the focus back', async (t) => {
    const { context, page, problems } = await openSpace();
    const card = page.locator(`[data-chart-id="${lineChart}"]`);
    await card.locator('.marker').focus();
    await page.keyboard.press('Enter');
    await card.locator('.marker-popover').getByText('a long text to read').waitFor(WAIT);
    /** Every chart drawn anew, as auto-refresh does, the focus staying where it is. */
    const redraw = async () => {
      const before = await h.roundsOf(page);
      await page.locator('#space-filter').evaluate((el) => el.dispatchEvent(new Event('change')));
      await h.spaceReady(page, before + 1);
    };
    const focusedEvent = () => page.evaluate(() => document.activeElement?.getAttribute('data-event-id'));
    await redraw();
    t.equal(await card.locator('.marker-popover').isVisible(), true, 'the box being read is still open after the refresh');
    await card.locator('.popover-close').focus();
    await page.keyboard.press('Escape');
    t.equal(await card.locator('.marker-popover').isHidden(), true, 'Escape closes it');
    t.equal(await focusedEvent(), String(deploy), 'the focus is back on the event\'s marker');
    await redraw();
    t.equal(await focusedEvent(), String(deploy), 'and stays on it when the chart is drawn anew');
    t.same(problems, []);
    await context.close();
  });

  t.test('a chart that cannot be deleted says so in its own box, in sight', async (t) => {
    const long = (await h.call('POST', '/v1/spaces', { name: 'Long' })).id as number;
    for (let i = 0; i < 12; i++) await h.call('POST', `/v1/spaces/${long}/charts`, { name: `c${i}`, type: 'line', streams: [{ metric: 'cpu' }] });
    const viewer = await h.s.newAccount(h.s.admin.user, 'viewer');
    const { context, page, problems } = await h.open();
    await page.goto(h.base);
    await page.fill('#signin-email', viewer.user);
    await page.fill('#signin-token', viewer.password);
    await page.press('#signin-token', 'Enter');
    await page.locator('.top-nav button', { hasText: 'Sign out' }).waitFor(WAIT);
    await page.goto(`${h.base}#/spaces/${long}?refresh=0`);
    await h.spaceReady(page);
    const last = page.locator('.chart-card').last();
    await last.locator('button', { hasText: 'Delete' }).click();
    const said = page.locator('.notice-error');
    await said.waitFor(WAIT);
    t.equal(await last.locator('.notice-error').count(), 1, 'in the chart\'s box');
    t.match(await said.textContent(), /^Not deleted: .*not permitted/, 'the API\'s refusal, readably');
    t.ok(await said.evaluate((el) => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }), 'where the person is looking');
    t.equal(await page.locator('.chart-card').count(), 12, 'the chart stays');
    t.same(problems, []);
    await context.close();
  });

  t.test('the chart editor removes and reorders streams, numbering them as they stand', async (t) => {
    const before = await h.call('POST', chartPath, { name: 'three', type: 'line', streams: [{ metric: 'cpu', name: 'a' }, { metric: 'cpu', name: 'b' }, { metric: 'cpu', name: 'c' }] });
    const { context, page, problems } = await openEditor(before.id);
    const legends = () => page.locator('fieldset.stream legend').allTextContents();
    await page.getByRole('button', { name: 'remove stream 1' }).click();
    t.same(await legends(), ['Stream 1', 'Stream 2'], 'numbered anew after a removal');
    t.equal(await page.getByRole('button', { name: 'move stream 1 up' }).isDisabled(), true, 'the first cannot move up');
    await page.getByRole('button', { name: 'move stream 2 up' }).focus();
    await page.keyboard.press('Enter');
    t.same(await page.locator('fieldset.stream').evaluateAll((sets) => sets.map((f) => ([...f.querySelectorAll('label')].find((l) => l.textContent === 'Display name')!.control as HTMLInputElement).value)), ['c', 'b'], 'c moved up');
    t.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'move stream 1 down', 'the focus stays in the moved stream');
    await page.click('text=Save chart');
    await page.locator(`.chart-card[data-chart-id="${before.id}"]`).waitFor(WAIT);
    const after = await h.call('GET', `${chartPath}/${before.id}`);
    t.same(after.streams.map((x: { id: number; name: string }) => [x.id, x.name]), [[before.streams[2].id, 'c'], [before.streams[1].id, 'b']], 'saved in that order, each with its id');
    t.same(problems, []);
    await context.close();
  });

  t.test('names without spaces wrap: no page scrolls sideways at phone width', async (t) => {
    const metric = `very.long.metric.${'x'.repeat(200)}`;
    await h.call('POST', '/v1/measurements', { measurements: [{ name: metric, time: now - 120, value: 1, tags: { host: 'h'.repeat(200) } }] });
    await h.call('POST', '/v1/annotations/longnotes', { title: 'T'.repeat(250), description: 'D'.repeat(1000), start_time: now - 600 });
    const space = (await h.call('POST', '/v1/spaces', { name: 's'.repeat(250) })).id as number;
    await h.call('POST', `/v1/spaces/${space}/charts`, { name: 'c'.repeat(250), type: 'line', streams: [{ metric, group_function: 'breakout' }] });
    const { context, page, problems } = await h.open({ viewport: { width: 360, height: 800 } });
    await h.signIn(page);
    const sideways = () => page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    await page.goto(`${h.base}#/spaces/${space}?refresh=0&ann=longnotes`);
    await h.spaceReady(page);
    t.equal(await sideways(), 0, 'a space of long names');
    await page.locator('.marker').click();
    await page.locator('.marker-popover').waitFor(WAIT);
    t.equal(await sideways(), 0, 'an event of a long title open');
    await page.locator('.annotation-picker summary').click();
    t.equal(await sideways(), 0, 'the annotations menu open');
    await page.goto(`${h.base}#/metrics?metric=${metric}`);
    await page.locator('.explore-chart .chart-card[data-state="ready"]').waitFor(WAIT);
    // and the list: it loads apart from the chart, and could be measured before it was drawn
    await page.locator('.metric-pick', { hasText: metric }).waitFor(WAIT);
    t.equal(await sideways(), 0, 'the explorer listing a long metric name');
    await page.goto(`${h.base}#/spaces`);
    await page.locator('.space-list a').first().waitFor(WAIT);
    t.equal(await sideways(), 0, 'the spaces list');
    t.same(problems, []);
    await context.close();
  });

  t.test('an auto-refresh that gets no answer keeps the charts drawn, and says so', async (t) => {
    const { context, page, problems } = await h.open();
    await page.clock.install();
    await h.signIn(page);
    await page.goto(`${h.base}#/spaces/${spaceId}?refresh=30`);
    await h.spaceReady(page);
    const card = page.locator(`[data-chart-id="${lineChart}"]`);
    const refreshed = async () => {
      const before = await h.roundsOf(page);
      await page.clock.fastForward(31_000);
      await h.spaceReady(page, before + 1);
    };
    await page.route('**/v1/measurements/**', (r) => r.abort('connectionrefused'));
    await refreshed();
    t.equal(await card.getAttribute('data-state'), 'stale');
    t.equal(await card.locator('canvas').count(), 1, 'the last drawing stays');
    t.match(await card.locator('.chart-message').textContent(), /^Not refreshed: Gaugeway did not answer/);
    await page.unroute('**/v1/measurements/**');
    await refreshed();
    t.equal(await card.getAttribute('data-state'), 'ready');
    t.equal(await card.locator('.chart-message').textContent(), '', 'the next answer clears the note');
    await page.route('**/v1/measurements/**', (r) => r.abort('connectionrefused'));
    const before = await h.roundsOf(page);
    await page.locator('#space-filter').evaluate((el: HTMLInputElement) => { el.value = 'host=a'; el.dispatchEvent(new Event('change')); });
    await h.spaceReady(page, before + 1);
    t.equal(await card.getAttribute('data-state'), 'error', 'a view changed by the person is not stood in for by the old one');
    t.same(problems.filter((p) => !p.includes('ERR_CONNECTION_REFUSED')), []);
    await context.close();
  });

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
