// Spaces: the list with search (the API's `name` filter), and a form to add one.
import { h, notice, replace } from '../dom.js';
import { ApiFailure, listAll } from '../api.js';
import { hashOf } from '../router.js';
import type { SpaceSummary } from '../types.js';
import type { View } from './view.js';

export const spacesView: View = async (ctx) => {
  ctx.setTitle('Spaces');
  const search = h('input', { type: 'search', id: 'space-search', placeholder: 'Search spaces', value: ctx.query.get('name') ?? '', 'aria-label': 'search spaces' });
  const list = h('div', { class: 'space-list' });
  const name = h('input', { type: 'text', id: 'new-space-name', required: true, maxlength: 255, placeholder: 'Name of the new space', 'aria-label': 'name of the new space' });
  const status = h('div', {});
  const create = h('form', { class: 'inline-form' }, name, h('button', { type: 'submit', class: 'primary' }, 'Create space'));
  create.addEventListener('submit', (e) => {
    e.preventDefault();
    ctx.api.send<SpaceSummary>('POST', 'v1/spaces', { name: name.value.trim() })
      .then((space) => ctx.navigate(hashOf(['spaces', space.id])), (err: unknown) => replace(status, notice('error', err instanceof ApiFailure ? err.message : String(err))));
  });

  let generation = 0;
  const load = async () => {
    const mine = ++generation;
    const term = search.value.trim();
    ctx.remember(hashOf(['spaces'], { name: term }));
    const spaces = await listAll<SpaceSummary>(ctx.api, 'v1/spaces', 'spaces', 1000, { name: term || undefined });
    if (mine !== generation) return;
    replace(list, spaces.length
      ? h('ul', { class: 'link-list' }, spaces.map((s) => h('li', {}, h('a', { href: hashOf(['spaces', s.id]) }, s.name))))
      : h('p', { class: 'muted' }, term ? `No space matches “${term}”.` : 'No spaces yet: create the first one.'));
  };
  let timer: number | undefined;
  search.addEventListener('input', () => { clearTimeout(timer); timer = window.setTimeout(() => void load().catch(showError), 200); });
  const showError = (err: unknown) => replace(list, notice('error', err instanceof Error ? err.message : String(err)));

  replace(ctx.main, h('div', { class: 'page-head' }, h('h1', {}, 'Spaces'), search), list, h('h2', {}, 'New space'), create, status);
  await load().catch(showError);
  return () => clearTimeout(timer);
};
