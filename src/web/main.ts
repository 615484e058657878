// The web UI's entry: the shell (navigation, sign-out), the session, and the hash router
// that draws one page at a time into <main>.
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { Api, apiBase } from './api.js';
import { h, notice, replace } from './dom.js';
import { currentSession, endSession, touchSession, type Session } from './session.js';
import { match, parseHash, type Route } from './router.js';
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

/** The view a route draws, with its `:` parameters; null when no page has that path. */
function pageOf(route: Route): { view: View; params: Record<string, string> } | null {
  for (const [pattern, view] of ROUTES) {
    const params = match(pattern, route.path);
    if (params) return { view, params };
  }
  return null;
}

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

/**
 * Whether the page may still use `session`: an open page asks before every request,
 * auto-refresh included, so an expired session sends nothing more, ends, and says so.
 */
function mayUse(session: Session): boolean {
  const state = currentSession();
  if (state.kind === 'expired') signedOut('expired');
  return state.kind === 'active' && state.session.email === session.email && state.session.token === session.token;
}

/** The person did something: their session is in use (or, idle too long, ends now). */
function activity(): void {
  const state = currentSession();
  if (state.kind === 'active') touchSession(state.session);
  else if (state.kind === 'expired') signedOut('expired');
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
  // a navigation is the person's doing: activity
  touchSession(session);
  const api = new Api(base, session, () => signedOut('revoked'), () => mayUse(session));
  const route = parseHash(location.hash);
  if (route && !route.path.length) { location.replace('#/spaces'); return; }
  const section = route?.path[0];
  replace(nav,
    h('span', { class: 'brand' }, 'Gaugeway'),
    h('ul', {}, NAV.map(([hash, label, key]) => h('li', {}, h('a', { href: hash, 'aria-current': key === section ? 'page' : null }, label)))),
    h('span', { class: 'account', title: 'signed in as' }, session.email),
    h('button', { type: 'button', class: 'link', onclick: () => signedOut('signed-out') }, 'Sign out'));
  const found = route && pageOf(route);
  if (!route || !found) {
    replace(main, notice('error', 'No such page.'), h('p', {}, h('a', { href: '#/spaces' }, 'Go to the spaces')));
    return;
  }
  // each page draws into its own element: one still loading when the next starts
  // draws into a detached element, never over its successor
  const page = h('div', { class: 'page' }, h('p', { class: 'muted loading' }, 'Loading…'));
  replace(main, page);
  try {
    const done = await found.view({
      api, main: page, params: found.params, query: route.query, email: session.email,
      // A page acts on the address and the title only while it is the one shown: a load
      // finishing after the person moved on (the explorer's metric list, a space's name)
      // put its own address or title over the next page's
      navigate: (hash) => { if (mine === generation) location.hash = hash; },
      // replaceState fires no hashchange: the page stays as it is
      remember: (hash) => { if (mine === generation) history.replaceState(null, '', hash); },
      setTitle: (title) => { if (mine === generation) document.title = `${title} · Gaugeway`; },
    });
    if (mine === generation) cleanup = done;
    else done?.();
  } catch (err) {
    if (mine === generation) replace(page, notice('error', err instanceof Error ? err.message : String(err)));
  }
}

window.addEventListener('hashchange', () => { void render(); });
// what counts as use of the page (capture: before any handler acts on it)
for (const type of ['pointerdown', 'keydown']) window.addEventListener(type, activity, { capture: true });
// a page nobody touches and that makes no requests (no auto-refresh) ends on time too
window.setInterval(() => { if (currentSession().kind === 'expired') signedOut('expired'); }, 60_000);
void render();
