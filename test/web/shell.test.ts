// The page's shell in a browser: addresses no page has, nothing failing at load, and a
// page left before its answers came acting on nothing of the page that followed.
import t from 'tap';
import type { Page, Request, Response } from 'playwright-core';
import { webHarness, WAIT } from './fixtures/harness.js';

const h = await webHarness(t);

/**
 * Holds the page's requests that `matches` until released: a slow answer, for a page the
 * person leaves before it comes.
 */
async function hold(page: Page, matches: (r: Request) => boolean) {
  let letGo = () => {};
  const held = new Promise<void>((resolve) => { letGo = resolve; });
  let asked = false;
  await page.route('**/*', async (route) => {
    if (!matches(route.request())) return route.continue();
    asked = true;
    await held;
    await route.continue();
  });
  return {
    /** Resolves once the page has asked. */
    async asked(): Promise<void> {
      while (!asked) await new Promise((resolve) => setTimeout(resolve, 20));
    },
    /** Lets the answer through; resolves once the page has it and a moment more. */
    async release(): Promise<Response> {
      const answered = page.waitForResponse((r) => matches(r.request()), WAIT);
      letGo();
      const res = await answered;
      await res.finished();
      // Nothing shows that the page handled an answer that (rightly) changes nothing: a
      // moment for it. A slow machine can only make a check after this pass without
      // testing, never fail.
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 250)));
      return res;
    },
  };
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
    const list = await hold(page, (r) => /\/v1\/metrics\?/.test(r.url()));
    await page.goto(`${h.base}#/metrics?name=a`);
    await list.asked();
    await page.goto(`${h.base}#/spaces/${spaceId}`);
    await page.locator('h1', { hasText: 'Shell' }).waitFor(WAIT);
    await list.release();
    t.match(page.url(), new RegExp(`#/spaces/${spaceId}$`), 'the address is the space\'s, not the explorer\'s');
    t.same(problems, []);
    await context.close();
  });

  t.test('a page left before its data came keeps out of the title of the page that followed', async (t) => {
    const { context, page, problems } = await h.open();
    await h.signIn(page);
    // the space's own answer: its name makes the title
    const space = await hold(page, (r) => new RegExp(`/v1/spaces/${spaceId}$`).test(r.url()));
    await page.goto(`${h.base}#/spaces/${spaceId}`);
    await space.asked();
    await page.goto(`${h.base}#/alerts`);
    await page.waitForFunction(() => document.title.startsWith('Alerts'), undefined, WAIT);
    await space.release();
    t.equal(await page.title(), 'Alerts · Gaugeway', 'the title is the alerts page\'s');
    t.same(problems, []);
    await context.close();
  });

  t.test('a page left while it saved does not take the person back when the save lands', async (t) => {
    const { context, page, problems } = await h.open();
    await h.signIn(page);
    // once created, the spaces page goes to the new space
    const create = await hold(page, (r) => r.method() === 'POST' && /\/v1\/spaces$/.test(r.url()));
    await page.goto(`${h.base}#/spaces`);
    await page.fill('#new-space-name', 'Made while away');
    await page.click('text=Create space');
    await create.asked();
    await page.goto(`${h.base}#/alerts`);
    await page.waitForFunction(() => document.title.startsWith('Alerts'), undefined, WAIT);
    t.equal((await create.release()).status(), 201, 'the space was created');
    t.match(page.url(), /#\/alerts$/, 'still on the alerts page');
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
