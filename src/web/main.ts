// The web UI's entry: the shell (navigation, sign-out), the session, and the hash router
// that draws one page at a time into <main>.
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { Api, apiBase } from './api.js';
import { h, notice, replace } from './dom.js';
import { currentSession, endSession } from './session.js';
import { match, parseHash } from './router.js';
import { renderSignIn, type SignInReason } from './views/signin.js';
import type { Cleanup, View } from './views/view.js';
import { spacesView } from './views/spaces.js';
import { spaceView } from './views/space.js';
import { chartEditorView } from './views/chart-editor.js';
import { explorerView } from './views/explorer.js';
import { alertsView } from './views/alerts.js';
import { alertView } from './views/alert.js';
import { serviceView } from './views/service.js';

const ROUTES: [pattern: string, view: View][] = [
  ['spaces', spacesView],
  ['spaces/:id', spaceView],
  ['spaces/:id/charts/new', chartEditorView],
  ['spaces/:id/charts/:chart', chartEditorView],
  ['metrics', explorerView],
  ['alerts', alertsView],
  ['alerts/:id', alertView],
  ['services/:id', serviceView],
];

const NAV: [hash: string, label: string, section: string][] = [['#/spaces', 'Spaces', 'spaces'], ['#/metrics', 'Metrics', 'metrics'], ['#/alerts', 'Alerts', 'alerts']];

const base = apiBase(location.href);
const root = document.getElementById('app')!;
const nav = h('nav', { class: 'top-nav', 'aria-label': 'main' });
const main = h('main', { id: 'main', tabindex: -1 });
replace(root, h('a', { class: 'skip', href: '#main', onclick: (e: Event) => { e.preventDefault(); main.focus(); } }, 'Skip to content'), nav, main);

let cleanup: Cleanup | void = undefined;
/** bumped by every render: a page still loading when the next starts must not draw */
let generation = 0;
let signInReason: SignInReason = null;

function leavePage(): void {
  try { cleanup?.(); } finally { cleanup = undefined; }
}

function signedOut(reason: SignInReason): void {
  endSession();
  signInReason = reason;
  render();
}

async function render(): Promise<void> {
  leavePage();
  const mine = ++generation;
  const state = currentSession();
  if (state.kind !== 'active') {
    replace(nav, h('span', { class: 'brand' }, 'Gaugeway'));
    document.title = 'Sign in · Gaugeway';
    renderSignIn(main, base, state.kind === 'expired' ? 'expired' : signInReason, () => { signInReason = null; render(); });
    return;
  }
  const session = state.session;
  const api = new Api(base, session, () => signedOut('revoked'));
  const route = parseHash(location.hash);
  if (!route.path.length) { location.replace('#/spaces'); return; }
  const section = route.path[0];
  replace(nav,
    h('span', { class: 'brand' }, 'Gaugeway'),
    h('ul', {}, NAV.map(([hash, label, key]) => h('li', {}, h('a', { href: hash, 'aria-current': key === section ? 'page' : null }, label)))),
    h('span', { class: 'account', title: 'signed in as' }, session.email),
    h('button', { type: 'button', class: 'link', onclick: () => signedOut('signed-out') }, 'Sign out'));
  for (const [pattern, view] of ROUTES) {
    const params = match(pattern, route.path);
    if (!params) continue;
    // each page draws into its own element: one still loading when the next starts
    // draws into a detached element, never over its successor
    const page = h('div', { class: 'page' }, h('p', { class: 'muted loading' }, 'Loading…'));
    replace(main, page);
    try {
      const done = await view({
        api, main: page, params, query: route.query, email: session.email,
        navigate: (hash) => { location.hash = hash; },
        // replaceState fires no hashchange: the page stays as it is
        remember: (hash) => { history.replaceState(null, '', hash); },
        setTitle: (title) => { document.title = `${title} · Gaugeway`; },
      });
      if (mine === generation) cleanup = done;
      else done?.();
    } catch (err) {
      if (mine === generation) replace(page, notice('error', err instanceof Error ? err.message : String(err)));
    }
    return;
  }
  replace(main, notice('error', 'No such page.'), h('p', {}, h('a', { href: '#/spaces' }, 'Go to the spaces')));
}

window.addEventListener('hashchange', () => { void render(); });
void render();
