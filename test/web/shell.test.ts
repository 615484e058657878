// The page's shell in a browser: addresses no page has, nothing failing at load.
import t from 'tap';
import { webHarness, WAIT } from './fixtures/harness.js';

const h = await webHarness(t);

/** Resolves once `ready()` holds, checking every 20 ms. */
async function waitUntil(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 20));
}
if (h) {
  const spaceId = (await h.call('POST', '/v1/spaces', { name: 'Shell' })).id as number;

  t.test('a malformed percent-escape in the address is no page, not a script error', async (t) => {
    const { context, page, problems } = await h.open();
    await h.signIn(page);
    await page.goto(`${h.base}#/spaces/${spaceId}`);
    await page.locator('h1', { hasText: 'Shell' }).waitFor(WAIT);
    await page.goto(`${h.base}#/spaces/%E0%A4%A`);
    await page.getByText('No such page.').waitFor(WAIT);
    t.equal(await page.locator('h1', { hasText: 'Shell' }).count(), 0, 'the previous page is gone');
    t.same(problems, [], 'no uncaught error');
    await context.close();
  });

  t.test('a page left before its data came keeps out of the address of the page that followed', async (t) => {
    const { context, page, problems } = await h.open();
    await h.signIn(page);
    // the explorer's metric list held back until the next page is on screen
    let release = () => {};
    const held = new Promise<void>((resolve) => { release = resolve; });
    let asked = false;
    await page.route(/\/v1\/metrics\?/, async (r) => { asked = true; await held; await r.continue(); });
    await page.goto(`${h.base}#/metrics?name=a`);
    await waitUntil(() => asked);
    await page.goto(`${h.base}#/spaces/${spaceId}`);
    await page.locator('h1', { hasText: 'Shell' }).waitFor(WAIT);
    const listed = page.waitForResponse(/\/v1\/metrics\?/, WAIT);
    release();
    await (await listed).finished();
    // nothing to wait on when the answer changes nothing: a moment for the page to handle
    // it (a slow machine can only make this pass without testing, never fail)
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 250)));
    t.match(page.url(), new RegExp(`#/spaces/${spaceId}$`), 'the address is the space\'s');
    t.same(problems, []);
    await context.close();
  });

  t.test('the page names an icon of its own, so no /favicon.ico 404 is logged; nothing else fails at load', async (t) => {
    const { context, page } = await h.open();
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('response', (r) => { if (r.status() >= 400) errors.push(`${r.status()} ${r.url()}`); });
    await h.signIn(page);
    await page.goto(`${h.base}#/spaces/${spaceId}`);
    await page.locator('h1', { hasText: 'Shell' }).waitFor(WAIT);
    t.equal(await page.locator('link[rel="icon"]').count(), 1, 'the page names its icon');
    t.same(errors, []);
    await context.close();
  });
}
