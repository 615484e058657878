// The 8-hour idle limit on an open page, in a browser with a fake clock: the requests a
// page makes by itself (auto-refresh) neither keep a session alive nor go out once it has
// expired; the person's clicks and keys do keep it.
import t from 'tap';
import type { Page } from 'playwright-core';
import { webHarness, WAIT } from './fixtures/harness.js';

const h = await webHarness(t);
if (h) {
  const now = Math.floor(Date.now() / 1000);
  await h.call('POST', '/v1/measurements', { measurements: [{ name: 'cpu', time: now - 60, value: 1, tags: { host: 'a' } }] });
  const spaceId = (await h.call('POST', '/v1/spaces', { name: 'Idle' })).id as number;
  await h.call('POST', `/v1/spaces/${spaceId}/charts`, { name: 'cpu', type: 'line', streams: [{ metric: 'cpu' }] });

  /** A space refreshing every 30 s, on a page whose clock the test moves. */
  const openSpace = async () => {
    const opened = await h.open();
    await opened.page.clock.install();
    await h.signIn(opened.page);
    await opened.page.goto(`${h.base}#/spaces/${spaceId}?refresh=30`);
    await h.spaceReady(opened.page);
    return opened;
  };
  /** Moves the page's clock on by `hours` (the refresh timer fires once) and waits for that refresh. */
  const idleFor = async (page: Page, hours: number) => {
    const rounds = await h.roundsOf(page);
    await page.clock.fastForward(hours * 3600_000);
    await h.spaceReady(page, rounds + 1);
  };

  t.test('auto-refresh does not keep a session alive: 8 hours without the person, it ends', async (t) => {
    const { context, page } = await openSpace();
    await idleFor(page, 4);
    t.equal(await page.locator('#signin-token').count(), 0, 'still signed in after 4 hours of refreshes');
    const sent: string[] = [];
    page.on('request', (r) => { if (r.url().includes('/v1/')) sent.push(r.url()); });
    await page.clock.fastForward(5 * 3600_000);
    await page.getByText('Your session expired').waitFor(WAIT);
    t.equal(await page.evaluate(() => sessionStorage.getItem('gaugeway.session')), null, 'the token is gone');
    t.same(sent, [], 'no request went out with the expired session');
    await context.close();
  });

  t.test('the person\'s activity keeps the session', async (t) => {
    const { context, page } = await openSpace();
    await idleFor(page, 5);
    await page.locator('h1').click();
    await page.keyboard.press('Shift');
    await idleFor(page, 5);
    t.equal(await page.locator('#signin-token').count(), 0, '10 hours open, 5 since the last click: still signed in');
    t.equal(await page.locator('.chart-card').getAttribute('data-state'), 'ready');
    await context.close();
  });
}
