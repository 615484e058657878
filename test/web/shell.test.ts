// The page's shell in a browser: addresses no page has, nothing failing at load.
import t from 'tap';
import { webHarness, WAIT } from './fixtures/harness.js';

const h = await webHarness(t);
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
