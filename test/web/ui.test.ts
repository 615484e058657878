// The web UI in a real browser (Debian's Chromium through playwright-core) against a real
// Gaugeway with data: sign-in, a space's charts of each type, the time picker, annotation
// markers, the explorer, alerts. Every wait polls for a state the page exposes
// (data-state, data-rounds): nothing races a render or a fetch.
import t from 'tap';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { listener } from '../helpers/listener.js';
import { poll } from '../helpers/poll.js';
import { findChromium, launchChromium, screenshotDir } from '../helpers/browser.js';
import { openContext, WAIT } from './fixtures/harness.js';

const HOSTS: Record<string, number> = { 'us-east/web-1': 40, 'us-east/web-2': 41, 'us-east/web-3': 42, 'eu-west/web-4': 20, 'eu-west/web-5': 21, 'eu-west/web-6': 22 };

const found = findChromium();
if ('missing' in found) {
  t.comment(`skipping the browser tests: ${found.missing}`);
  t.skip(`browser tests: ${found.missing}`);
} else {
  await run(found.path);
}


async function seed(s: TestServer, now: number): Promise<{ spaceId: number; alertId: number; charts: Record<string, number> }> {
  const ok = (r: { status: number; text: string }, what: string) => { if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text}`); return r; };
  // an hour of points every 30 s; cpu constant per host so every summary is exact
  for (const [key, value] of Object.entries(HOSTS)) {
    const [region, host] = key.split('/') as [string, string];
    const measurements = [];
    for (let at = now - 3570; at <= now - 30; at += 30) {
      measurements.push({ name: 'cpu', time: at, value }, { name: 'requests', time: at, value: value / 10 });
    }
    ok(await s.request('POST', '/v1/measurements', { json: { tags: { region, host }, measurements } }), 'measurements');
  }
  ok(await s.request('POST', '/v1/annotations/deploys', { json: { title: 'Deployed v2.3', start_time: now - 1800, description: 'rolled out to every region', links: [{ rel: 'ci', href: 'https://ci.example.com/build/42', label: 'CI build' }] } }), 'annotation');
  const spaceId = ok(await s.request('POST', '/v1/spaces', { json: { name: 'Production' } }), 'space').body.id as number;
  await s.request('POST', '/v1/spaces', { json: { name: 'Staging' } });
  const chart = async (json: unknown) => ok(await s.request('POST', `/v1/spaces/${spaceId}/charts`, { json }), 'chart').body.id as number;
  const charts = {
    line: await chart({ name: 'CPU by region', type: 'line', streams: [{ metric: 'cpu', tags: [{ name: 'region', values: ['*'], grouped: true }], group_function: 'average', summary_function: 'average', units_short: '%', units_long: 'percent' }] }),
    stacked: await chart({ name: 'Requests per host', type: 'stacked', streams: [{ metric: 'requests', tags: [{ name: 'host', values: ['*'] }], group_function: 'breakout', summary_function: 'average', color: '#2f7ed8' }] }),
    bignumber: await chart({ name: 'Hottest CPU', type: 'bignumber', thresholds: [{ operator: '>', value: 30, type: 'yellow' }, { operator: '>', value: 40, type: 'red' }], streams: [{ metric: 'cpu', group_function: 'max', summary_function: 'max', units_short: '%' }] }),
    composite: await chart({ name: 'US share', type: 'line', streams: [{ composite: 'divide([sum(s("cpu", {"region": "us-east"})), sum(s("cpu", "*"))])', transform_function: 'x*100', units_short: '%' }] }),
  };
  return { spaceId, alertId: 0, charts };
}

async function run(chromiumPath: string): Promise<void> {
  const s = await startTestServer(t, 'alerts:\n  check_schedule: "0 0 1 1 *"');
  const base = `https://localhost:${s.port}/`;
  const now = Math.floor(Date.now() / 1000);
  const seeded = await seed(s, now);
  const hook = await listener(t);
  const sid = (await s.request('POST', '/v1/services', { json: { title: 'ops hook', type: 'webhook', settings: { url: hook.url } } })).body.id as number;
  const alertRes = await s.request('POST', '/v1/alerts', { json: { name: 'cpu.hot', services: [sid], conditions: [{ type: 'above', metric_name: 'cpu', threshold: 30 }] } });
  const alertId = alertRes.body.id as number;
  await s.request('POST', '/v1/alerts', { json: { name: 'disk.full', services: [sid], conditions: [{ type: 'above', metric_name: 'disk', threshold: 95 }] } });
  // tracking starts after creation: one more point of every series, then an evaluation at
  // its time. After the alert's own creation time, not `now`: on a loaded machine seeding
  // takes seconds, and a point at now + 1 then came before tracking began and never fired.
  const after = Math.max(now, alertRes.body.created_at as number) + 1;
  for (const [key, value] of Object.entries(HOSTS)) {
    const [region, host] = key.split('/') as [string, string];
    await s.request('POST', '/v1/measurements', { json: { tags: { region, host }, measurements: [{ name: 'cpu', time: after, value }, { name: 'requests', time: after, value: value / 10 }] } });
  }
  await s.server.rt.alertEngine.evaluateAll(after + 1);
  await s.server.rt.alertEngine.idle();
  await poll(async () => (hook.received.length ? true : undefined));

  const browser = await launchChromium(t, chromiumPath);
  const shots = screenshotDir();

  /** A fresh context (its own session storage), collecting what the page complains about. */
  const open = (opts: Parameters<Browser['newContext']>[0] = {}) => openContext(browser, opts);
  const signIn = async (page: Page, user = s.admin.user, password = s.admin.password, expectOk = true) => {
    await page.goto(base);
    await page.fill('#signin-email', user);
    await page.fill('#signin-token', password);
    await page.press('#signin-token', 'Enter');
    // signed in once the navigation offers to sign out
    if (expectOk) await page.locator('.top-nav button', { hasText: 'Sign out' }).waitFor(WAIT);
  };
  /** Waits until every chart of the space page has been drawn `rounds` times. */
  const spaceReady = async (page: Page, rounds = 1) => {
    await page.waitForFunction((n) => Number(document.querySelector('.chart-grid')?.getAttribute('data-rounds') ?? 0) >= n, rounds, WAIT);
  };
  const roundsOf = async (page: Page) => Number(await page.locator('.chart-grid').getAttribute('data-rounds'));
  /** The API's answer for a query path, as the admin. */
  const api = async (path: string) => (await s.get(path)).body;

  t.test('over plain HTTP the page says to use HTTPS and offers no token field', async (t) => {
    const { context, page } = await open();
    await page.goto(`http://127.0.0.1:${s.port}/`);
    await page.getByText('opened over plain HTTP').waitFor(WAIT);
    t.equal(await page.locator('#signin-token').count(), 0, 'no token field');
    t.equal(await page.locator(`a[href="https://127.0.0.1:${s.port}/"]`).count(), 1, 'a link to the HTTPS address');
    await context.close();
  });

  t.test('wrong credentials say so; the token is kept in session storage only', async (t) => {
    const { context, page } = await open();
    await signIn(page, s.admin.user, 'not-the-token', false);
    await page.getByText('Wrong e-mail or API token.').waitFor(WAIT);
    t.equal(await page.evaluate(() => sessionStorage.length), 0, 'nothing kept after a failed sign-in');
    await page.fill('#signin-token', s.admin.password);
    await page.press('#signin-token', 'Enter');
    await page.locator('.space-list a', { hasText: 'Production' }).waitFor(WAIT);
    const stored = await page.evaluate(() => ({ session: sessionStorage.getItem('gaugeway.session'), local: localStorage.length, cookies: document.cookie }));
    t.match(stored.session, s.admin.password, 'the token is in session storage');
    t.equal(stored.local, 0, 'nothing in local storage');
    t.equal(stored.cookies, '', 'no cookie');
    t.notMatch(page.url(), s.admin.password, 'not in the URL');
    await context.close();
  });

  t.test('a session whose token is disabled ends with a clear message', async (t) => {
    const user = await s.newAccount(s.admin.user, 'viewer');
    const { context, page } = await open();
    await signIn(page, user.user, user.password);
    await page.locator('.space-list a', { hasText: 'Production' }).waitFor(WAIT);
    const tokenName = s.server.rt.accounts.listTokens(user.user).find((tk) => tk.role === 'viewer')!.name;
    await s.server.rt.accounts.setTokenActive(user.user, tokenName, false);
    await page.click('a[href="#/alerts"]');
    await page.getByText('no longer accepts that token').waitFor(WAIT);
    t.equal(await page.evaluate(() => sessionStorage.getItem('gaugeway.session')), null, 'the session is gone');
    await context.close();
  });

  t.test('a session idle for longer than 8 hours has expired, and says so', async (t) => {
    const { context, page } = await open();
    await page.goto(base);
    await page.evaluate(([u, tk]) => sessionStorage.setItem('gaugeway.session', JSON.stringify({ email: u, token: tk, lastUsed: Date.now() - 9 * 3600_000 })), [s.admin.user, s.admin.password]);
    await page.reload();
    await page.getByText('Your session expired').waitFor(WAIT);
    t.equal(await page.evaluate(() => sessionStorage.getItem('gaugeway.session')), null, 'the stale token is gone');
    t.equal(await page.locator('#signin-token').count(), 1, 'the form is offered again');
    await context.close();
  });

  t.test('a space draws each chart type with the API\'s values, markers and thresholds', async (t) => {
    const { context, page, problems } = await open();
    await signIn(page);
    await page.locator('.space-list a', { hasText: 'Production' }).click();
    await spaceReady(page);
    for (const id of Object.values(seeded.charts)) {
      t.equal(await page.locator(`[data-chart-id="${id}"]`).getAttribute('data-state'), 'ready', `chart ${id} drawn`);
    }
    for (const kind of ['line', 'stacked', 'composite'] as const) {
      t.equal(await page.locator(`[data-chart-id="${seeded.charts[kind]}"] canvas`).count(), 1, `${kind}: a canvas`);
    }

    // legend values are the API's last values, per line
    const line = page.locator(`[data-chart-id="${seeded.charts.line}"]`);
    const legend = await line.locator('.legend-row').evaluateAll((rows) => rows.map((r) => [r.querySelector('.legend-label')!.textContent, r.querySelector('.legend-value')!.getAttribute('data-value'), r.querySelector('.legend-value')!.textContent]));
    const answer = await api(`/v1/measurements/cpu?duration=3600&resolution=1&group_by=region&group_by_function=mean&summary_function=mean`);
    const expected = answer.series.map((x: { tags: { region: string }; measurements: { value: number }[] }) => [`cpu region=${x.tags.region}`, String(x.measurements.at(-1)!.value)]);
    t.same(legend.map(([label, value]) => [label, value]).sort(), expected.sort(), 'one legend row per region, valued as the API says');
    t.same(legend.map(([, , text]) => text).sort(), ['21 %', '41 %'], 'with the stream\'s short units');

    const stacked = page.locator(`[data-chart-id="${seeded.charts.stacked}"]`);
    t.equal(await stacked.locator('.legend-row').count(), 6, 'breakout: a line per host');
    t.same(await stacked.locator('.legend-row', { hasText: 'host=web-3' }).locator('.legend-value').getAttribute('data-value'), '4.2', 'stacked legends show each line\'s own value');

    const big = page.locator(`[data-chart-id="${seeded.charts.bignumber}"] .bignumber`);
    t.equal(await big.getAttribute('data-value'), '42', 'the max over every series');
    t.equal(await big.getAttribute('data-threshold'), 'red', 'red wins over yellow when both hold');
    t.match(await big.getAttribute('class'), /bignumber-red/);

    const composite = page.locator(`[data-chart-id="${seeded.charts.composite}"] .legend-value`);
    t.equal(Number(await composite.getAttribute('data-value')).toFixed(6), (123 / 186 * 100).toFixed(6), 'composite with its transform x*100');

    // the annotation as a marker that opens its title and link
    const marker = line.locator('.marker');
    t.ok(await marker.count() >= 1, 'the deploy annotation is marked');
    await marker.first().click();
    await line.locator('.marker-popover').getByText('Deployed v2.3').waitFor(WAIT);
    t.equal(await line.locator('.marker-popover a').getAttribute('href'), 'https://ci.example.com/build/42');
    t.equal(await line.locator('.marker-popover a').getAttribute('rel'), 'noopener noreferrer');
    await page.keyboard.press('Escape');

    await page.screenshot({ path: join(shots, 'space-light.png'), fullPage: true });
    t.same(problems, [], 'no script errors and no CSP violations');
    await context.close();
  });

  t.test('the time picker asks for the resolution of its range', async (t) => {
    const { context, page } = await open();
    const asked: string[] = [];
    page.on('request', (r) => { if (r.url().includes('/v1/measurements')) asked.push(new URL(r.url()).searchParams.get('resolution')!); });
    await signIn(page);
    await page.goto(`${base}#/spaces/${seeded.spaceId}?refresh=0`);
    await spaceReady(page);
    t.same([...new Set(asked)].sort(), ['1', '60'], 'an hour: raw points, and minutes for the lines that combine series');
    const rangeTo = async (key: string, res: string) => {
      const before = await roundsOf(page);
      asked.length = 0;
      await page.selectOption('#picker-range', key);
      await spaceReady(page, before + 1);
      t.same([...new Set(asked)], [res], `${key}: resolution ${res}`);
      t.equal(await page.locator('.chart-grid').getAttribute('data-resolution'), res);
    };
    await rangeTo('6h', '60');
    await rangeTo('24h', '900');
    await rangeTo('7d', '3600');
    t.same(await page.locator('#picker-resolution option').allTextContents(), ['1 h'], 'no finer resolution is offered for days');
    t.match(page.url(), /range=7d/, 'the range is in the page\'s address');

    // an hour three days ago: raw points are kept two days, so the charts fall back to 60 s
    // the round count read before the change: read after it, a quick round is missed and waited for forever
    const roundsAt7d = await roundsOf(page);
    await page.selectOption('#picker-range', '1h');
    await spaceReady(page, roundsAt7d + 1);
    const before = await roundsOf(page);
    asked.length = 0;
    const past = new Date(Date.now() - 3 * 86400_000);
    const pad = (n: number) => String(n).padStart(2, '0');
    await page.fill('#picker-end', `${past.getFullYear()}-${pad(past.getMonth() + 1)}-${pad(past.getDate())}T${pad(past.getHours())}:${pad(past.getMinutes())}`);
    await page.locator('#picker-end').evaluate((el) => el.dispatchEvent(new Event('change')));
    await spaceReady(page, before + 1);
    t.same([...new Set(asked)].sort(), ['1', '60'], 'asked for raw points, refused, then 60 s');
    t.same(await page.locator('.chart-card').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-state'))), ['ready', 'ready', 'ready', 'ready'], 'no chart shows an error');
    await context.close();
  });

  t.test('a refresh redraws without moving anything on the page', async (t) => {
    const { context, page } = await open();
    await signIn(page);
    await page.goto(`${base}#/spaces/${seeded.spaceId}?refresh=0`);
    await spaceReady(page);
    const boxes = () => page.locator('.chart-card').evaluateAll((cards) => cards.map((c) => { const r = c.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }));
    const placed = await boxes();
    const drawn = await roundsOf(page);
    await page.fill('#space-filter', 'region=eu-west');
    await page.locator('#space-filter').evaluate((el) => el.dispatchEvent(new Event('change')));
    await spaceReady(page, drawn + 1);
    t.same(await boxes(), placed, 'every chart keeps its place and size');
    await context.close();
  });

  t.test('spaces and charts are created, edited and deleted from the UI', async (t) => {
    const { context, page, problems } = await open();
    await signIn(page);
    // the whole list first: filled before it is drawn, 'Production' was never there to
    // go, and the count below ran before the search's own load
    await page.locator('.space-list a', { hasText: 'Production' }).waitFor(WAIT);
    await page.locator('#space-search').fill('Stag');
    await page.locator('.space-list a', { hasText: 'Production' }).waitFor({ state: 'detached', ...WAIT });
    t.equal(await page.locator('.space-list a', { hasText: 'Staging' }).count(), 1, 'search narrows the list');
    t.match(page.url(), /name=Stag/, 'the search is in the page\'s address');
    await page.fill('#new-space-name', 'Scratch');
    await page.click('text=Create space');
    await page.locator('h1', { hasText: 'Scratch' }).waitFor(WAIT);
    const spaceId = Number(/#\/spaces\/(\d+)/.exec(page.url())![1]);
    await page.click('text=Add chart');
    await page.fill('#chart-name', 'Requests total');
    await page.selectOption('#chart-type', 'bignumber');
    await page.fill('.stream-metric', 'requests');
    await page.click('text=Add threshold');
    await page.fill('input[aria-label="threshold value"]', '100');
    await page.click('text=Create chart');
    await page.locator('.chart-card h3', { hasText: 'Requests total' }).waitFor(WAIT);
    const charts = await api(`/v1/spaces/${spaceId}/charts`);
    t.equal(charts.length, 1);
    t.same(charts[0].thresholds, [{ operator: '>', value: 100, type: 'red' }]);
    t.equal(charts[0].streams[0].metric, 'requests');
    // edit: the API's own message when the stream is wrong, then a good one
    await page.click('text=Edit');
    await page.fill('input[placeholder="x/1024"]', 'x*x');
    await page.click('text=Save chart');
    await page.getByText(/Not saved:.*linear/).waitFor(WAIT);
    await page.fill('input[placeholder="x/1024"]', 'x/2');
    await page.fill('#chart-name', 'Requests halved');
    await page.click('text=Save chart');
    await page.locator('.chart-card h3', { hasText: 'Requests halved' }).waitFor(WAIT);
    t.equal((await api(`/v1/spaces/${spaceId}/charts`))[0].streams[0].transform_function, 'x/2');
    page.on('dialog', (d) => void d.accept());
    await page.click('button[aria-label="delete Requests halved"]');
    await page.locator('.chart-card').waitFor({ state: 'detached', ...WAIT });
    t.same(await api(`/v1/spaces/${spaceId}/charts`), []);
    await page.click('text=Rename');
    await page.fill('input[aria-label="space name"]', 'Scratch 2');
    await page.click('form >> text=Save');
    await page.locator('h1', { hasText: 'Scratch 2' }).waitFor(WAIT);
    t.equal((await api(`/v1/spaces/${spaceId}`)).name, 'Scratch 2');
    await page.click('text=Delete space');
    await page.locator('.space-list').waitFor(WAIT);
    t.equal((await s.get(`/v1/spaces/${spaceId}`)).status, 404);
    t.same(problems, []);
    await context.close();
  });

  t.test('the explorer filters, groups and turns the result into a chart on a space', async (t) => {
    const { context, page } = await open();
    await signIn(page);
    await page.goto(`${base}#/metrics`);
    await page.fill('#metric-search', 'cp');
    await page.locator('.metric-pick', { hasText: 'cpu' }).click();
    await page.locator('.explore-chart .chart-card[data-state="ready"]').waitFor(WAIT);
    t.equal(await page.locator('.explore-chart .legend-row').count(), 6, 'each series');
    await page.fill('#explore-tags', 'host=web-*');
    await page.fill('#explore-group-by', 'region');
    await page.locator('#explore-group-by').evaluate((el) => el.dispatchEvent(new Event('change')));
    await page.waitForFunction(() => document.querySelectorAll('.explore-chart .chart-card[data-state="ready"] .legend-row').length === 2, undefined, WAIT);
    await page.selectOption('#explore-summary', 'max');
    await page.selectOption('#picker-range', '24h');
    await page.waitForFunction(() => document.querySelector('.explore-chart .chart-card')?.getAttribute('data-resolution') === '900', undefined, WAIT);
    await page.fill('#explore-chart-name', 'CPU max by region');
    await page.selectOption('#explore-space', String(seeded.spaceId));
    await page.click('text=Add chart to space');
    await page.getByText('Chart added.').waitFor(WAIT);
    const charts = await api(`/v1/spaces/${seeded.spaceId}/charts`);
    const made = charts.find((c: { name: string }) => c.name === 'CPU max by region');
    t.ok(made, 'the chart is on the space');
    t.equal(made.streams[0].metric, 'cpu');
    t.equal(made.streams[0].summary_function, 'max');
    t.same(made.streams[0].tags.map((tg: { name: string; values: string[]; grouped: boolean }) => [tg.name, tg.values, tg.grouped]).sort(), [['host', ['web-*'], false], ['region', ['*'], true]]);
    await page.screenshot({ path: join(shots, 'explorer.png'), fullPage: true });
    await page.request.delete(`${base}v1/spaces/${seeded.spaceId}/charts/${made.id}`, { headers: { authorization: `Basic ${Buffer.from(`${s.admin.user}:${s.admin.password}`).toString('base64')}` } });
    await context.close();
  });

  t.test('a firing alert shows as firing; it can be disabled and enabled again', async (t) => {
    const { context, page, problems } = await open();
    await signIn(page);
    await page.goto(`${base}#/alerts`);
    const row = page.locator(`tr[data-alert-id="${alertId}"]`);
    await row.waitFor(WAIT);
    t.equal(await row.locator('.badge').getAttribute('data-status'), 'firing');
    t.equal(await page.locator('tr', { hasText: 'disk.full' }).locator('.badge').getAttribute('data-status'), 'ok');
    await row.locator('a').click();
    await page.locator('h1', { hasText: 'cpu.hot' }).waitFor(WAIT);
    t.match(await page.locator('.conditions').textContent(), /average of cpu above 30/);
    await page.click('#alert-toggle');
    await page.locator('#alert-toggle', { hasText: 'Enable' }).waitFor(WAIT);
    t.equal((await api(`/v1/alerts/${alertId}`)).active, false, 'disabled through the API');
    await page.click('#alert-toggle');
    await page.locator('#alert-toggle', { hasText: 'Disable' }).waitFor(WAIT);
    const after = await api(`/v1/alerts/${alertId}`);
    t.equal(after.active, true);
    t.equal(after.conditions.length, 1, 'conditions kept');
    t.same(after.services.map((x: { id: number }) => x.id), [sid], 'services kept');
    await page.locator('a', { hasText: 'ops hook' }).click();
    await page.locator('.deliveries').waitFor(WAIT);
    t.ok(await page.locator('.deliveries tbody tr').count() >= 1, 'the delivery log lists the notification');
    await page.goto(`${base}#/alerts/${alertId}`);
    await page.locator('#alert-clear').waitFor(WAIT);
    await page.screenshot({ path: join(shots, 'alert.png'), fullPage: true });
    t.same(problems, []);
    await context.close();
  });

  t.test('keyboard only: sign in and reach a space', async (t) => {
    const { context, page } = await open();
    await page.goto(base);
    await page.locator('#signin-email').waitFor(WAIT);
    // autofocus comes with the page's next rendering step, not with the field: goto's load
    // event came 2-10 ms before it, and what is typed next goes to the focus
    await page.waitForFunction(() => document.activeElement?.id === 'signin-email', undefined, WAIT).catch(() => undefined);
    t.equal(await page.evaluate(() => document.activeElement?.id), 'signin-email', 'the form has focus');
    await page.keyboard.type(s.admin.user);
    await page.keyboard.press('Tab');
    await page.keyboard.type(s.admin.password);
    await page.keyboard.press('Enter');
    await page.locator('.space-list a', { hasText: 'Production' }).focus();
    await page.keyboard.press('Enter');
    await spaceReady(page);
    t.pass('a space reached by keyboard');
    await context.close();
  });

  t.test('phone width and dark theme: no sideways scrolling, dark colours', async (t) => {
    const { context, page } = await open({ viewport: { width: 390, height: 844 }, colorScheme: 'dark', isMobile: true, hasTouch: true });
    await signIn(page);
    await page.goto(`${base}#/spaces/${seeded.spaceId}`);
    await spaceReady(page);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    t.ok(width <= 390, `page width ${width} fits 390 px`);
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const [r, g, b] = bg.match(/\d+/g)!.map(Number);
    t.ok(r! + g! + b! < 150, `dark background (${bg})`);
    await page.screenshot({ path: join(shots, 'space-phone-dark.png'), fullPage: true });
    await context.close();
  });
}
