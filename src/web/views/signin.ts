// Sign in with an e-mail and an API token. The token is checked with one API call before
// the session starts; over plain HTTP the form is not offered at all, since the token
// would cross the network in clear (and the API refuses plain HTTP anyway).
import { h, notice, replace } from '../dom.js';
import { Api, ApiFailure } from '../api.js';
import { newSession, startSession } from '../session.js';

export type SignInReason = 'expired' | 'revoked' | 'signed-out' | null;

const REASONS: Record<Exclude<SignInReason, null>, [kind: 'error' | 'info', text: string]> = {
  expired: ['info', 'Your session expired after a long idle time. Sign in again.'],
  revoked: ['error', 'Your session ended: Gaugeway no longer accepts that token (it was revoked or disabled). Sign in again.'],
  'signed-out': ['info', 'You are signed out.'],
};

export function renderSignIn(main: HTMLElement, base: string, reason: SignInReason, done: () => void): void {
  const card = h('section', { class: 'signin card' }, h('h1', {}, 'Sign in to Gaugeway'));
  if (location.protocol === 'http:') {
    const secure = new URL(location.href);
    secure.protocol = 'https:';
    replace(main, h('section', { class: 'signin card' }, h('h1', {}, 'Sign in to Gaugeway'),
      notice('error', 'This page was opened over plain HTTP. Gaugeway only accepts API tokens over HTTPS, so that yours never crosses the network in clear.'),
      h('p', {}, 'Open ', h('a', { href: secure.href }, secure.origin), ' instead (or put Gaugeway behind your HTTPS proxy, see http.trust_proxy).')));
    return;
  }
  const message = h('div', { class: 'signin-message' });
  if (reason) message.appendChild(notice(REASONS[reason][0], REASONS[reason][1]));
  const email = h('input', { type: 'email', id: 'signin-email', name: 'email', autocomplete: 'username', required: true, autofocus: true });
  const token = h('input', { type: 'password', id: 'signin-token', name: 'token', autocomplete: 'current-password', required: true });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = h('form', { class: 'stack' },
    h('label', { for: 'signin-email' }, 'E-mail'), email,
    h('label', { for: 'signin-token' }, 'API token'), token,
    submit);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    submit.disabled = true;
    replace(message);
    // stored only once the API accepts it: a page drawn meanwhile must not use it
    const session = newSession(email.value.trim(), token.value);
    new Api(base, session, () => undefined).get('v1/spaces', { length: 1 }).then(() => { startSession(session); done(); }, (err: unknown) => {
      submit.disabled = false;
      const text = err instanceof ApiFailure && err.status === 401 ? 'Wrong e-mail or API token.'
        : err instanceof ApiFailure ? err.message : 'Sign-in failed.';
      message.appendChild(notice('error', text));
      token.select();
    });
  });
  card.append(message, form, h('p', { class: 'muted' }, 'Your token stays in this browser tab only (session storage) and is sent to this server alone.'));
  replace(main, card);
}
