// A space: its charts in a grid, the time picker and auto-refresh, a space-level tag
// filter for streams with `dynamic` tags, annotation streams drawn as markers; rename,
// delete, and add, edit or delete charts.
import { h, notice, replace } from '../dom.js';
import { ApiFailure, listAll } from '../api.js';
import { hashOf } from '../router.js';
import { ChartCard } from '../charts/card.js';
import { fetchLines, fetchMarkers, type Marker } from '../charts/fetch.js';
import { pickerFromQuery, pickerInterval, pickerQuery, timePicker, type PickerState } from '../charts/picker.js';
import type { SpaceFilter } from '../charts/queries.js';
import type { AnnotationStream, Chart, Space } from '../types.js';
import type { View } from './view.js';

/** `region=us-east, host=web-1` as a filter; pairs without `=` are ignored. */
export function parseFilter(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

const MAX_ANNOTATION_STREAMS = 20;

/** A failure the next try may not meet: no answer, the server's own error, too many requests. */
const transient = (err: unknown): boolean => err instanceof ApiFailure && (err.status === 0 || err.status === 429 || err.status >= 500);

export const spaceView: View = async (ctx) => {
  const id = Number(ctx.params.id);
  const [space, charts, annotationList] = await Promise.all([
    ctx.api.get<Space>(`v1/spaces/${id}`),
    ctx.api.get<Chart[]>(`v1/spaces/${id}/charts`),
    // every stream, not the first page: one named in the address may be past it
    listAll<AnnotationStream>(ctx.api, 'v1/annotations', 'annotations'),
  ]);
  ctx.setTitle(space.name);
  let picker: PickerState = pickerFromQuery(ctx.query);
  let filterText = ctx.query.get('filter') ?? '';
  let filter: SpaceFilter = parseFilter(filterText);
  const allAnnotations = annotationList.map((a) => a.name);
  const annParam = ctx.query.get('ann');
  let shownAnnotations = annParam === null ? allAnnotations.slice(0, MAX_ANNOTATION_STREAMS) : annParam === '' ? [] : annParam.split(',').filter((n) => allAnnotations.includes(n));

  const status = h('div', { class: 'space-status', 'aria-live': 'polite' });
  const grid = h('div', { class: 'chart-grid' });
  const cards: ChartCard[] = [];
  const remember = () => ctx.remember(hashOf(['spaces', id], {
    ...pickerQuery(picker), filter: filterText || undefined,
    ann: shownAnnotations.length === Math.min(allAnnotations.length, MAX_ANNOTATION_STREAMS) && shownAnnotations.every((n, i) => n === allAnnotations[i]) ? undefined : shownAnnotations.join(','),
  }));

  const noCharts = () => h('p', { class: 'muted no-charts' }, 'This space has no charts yet. ', h('a', { href: hashOf(['spaces', id, 'charts', 'new']) }, 'Add one'), ', or build one in the ', h('a', { href: '#/metrics' }, 'metrics explorer'), '.');
  const removeChart = async (chart: Chart, card: ChartCard) => {
    if (!confirm(`Delete the chart “${chart.name}”?`)) return;
    try {
      await ctx.api.send('DELETE', `v1/spaces/${id}/charts/${chart.id}`);
      card.destroy();
      card.element.remove();
      cards.splice(cards.indexOf(card), 1);
      if (!cards.length) grid.replaceWith(noCharts());
    } catch (err) {
      // in the chart's box: on a long space the status line is out of sight
      card.say(`Not deleted: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  for (const chart of charts) {
    const card: ChartCard = new ChartCard(chart, [
      h('a', { href: hashOf(['spaces', id, 'charts', chart.id]), class: 'button small', 'aria-label': `edit ${chart.name}` }, 'Edit'),
      h('button', { type: 'button', class: 'small danger', 'aria-label': `delete ${chart.name}`, onclick: () => void removeChart(chart, card) }, 'Delete'),
    ]);
    card.element.dataset.state = 'loading';
    cards.push(card);
    grid.appendChild(card.element);
  }

  // One refresh at a time; a change made meanwhile (range, filter) runs one more after it,
  // so the last state asked for is always the one drawn.
  let running: Promise<void> | null = null;
  let again = false;
  let rounds = 0;
  /** what the charts are drawn for (the end is "now" unless one was chosen) */
  const viewKey = () => JSON.stringify([pickerQuery(picker), filterText, shownAnnotations]);
  /** each chart's view when it was last drawn: an auto-refresh that fails on the way keeps that drawing */
  const drawnFor = new Map<ChartCard, string>();
  const refreshOnce = async () => {
    const interval = pickerInterval(picker);
    const view = viewKey();
    // annotations and every chart's series are asked for at once: no round trip waits on another
    const markers: Promise<Marker[]> = shownAnnotations.length
      ? fetchMarkers(ctx.api, shownAnnotations, interval).catch((err: unknown) => { console.warn('annotations not shown:', err); return []; })
      : Promise.resolve([]);
    await Promise.all(cards.map(async (card) => {
      try {
        const data = await fetchLines(ctx.api, card.chart, interval, filter);
        card.show(data, await markers, interval);
        card.say(null);
        card.element.dataset.state = 'ready';
        drawnFor.set(card, view);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        // a server restarting or a network blip must not blank a screen of charts until
        // the next refresh: the last drawing of the same view stays, and says it is old
        if (drawnFor.get(card) === view && transient(err)) {
          card.say(`Not refreshed: ${message}`);
          card.element.dataset.state = 'stale';
          return;
        }
        drawnFor.delete(card);
        card.showError(message);
        card.element.dataset.state = 'error';
      }
    }));
    rounds++;
    grid.dataset.resolution = String(interval.resolution);
    grid.dataset.rounds = String(rounds);
  };
  const refresh = (): Promise<void> => {
    if (running) { again = true; return running; }
    running = (async () => {
      try {
        do { again = false; await refreshOnce(); } while (again);
      } finally {
        running = null;
      }
    })();
    return running;
  };

  let timer: number | undefined;
  const schedule = () => {
    clearInterval(timer);
    // a view of the past does not change: refresh only a view that ends now
    if (picker.refresh && picker.end === undefined) timer = window.setInterval(() => { if (!document.hidden) void refresh(); }, picker.refresh * 1000);
  };

  const filterInput = h('input', { type: 'text', id: 'space-filter', value: filterText, placeholder: 'tag=value, …', 'aria-label': 'space filter for dynamic tags' });
  filterInput.addEventListener('change', () => { filterText = filterInput.value.trim(); filter = parseFilter(filterText); remember(); void refresh(); });
  const annotationBoxes = allAnnotations.map((name) => {
    const box = h('input', { type: 'checkbox', value: name, checked: shownAnnotations.includes(name) });
    box.addEventListener('change', () => {
      shownAnnotations = annotationBoxes.filter((b) => b.checked).map((b) => b.value);
      remember();
      void refresh();
    });
    return box;
  });
  const annotationPicker = allAnnotations.length
    ? h('details', { class: 'annotation-picker' }, h('summary', {}, 'Annotations'),
      h('ul', {}, annotationBoxes.map((box) => h('li', {}, h('label', {}, box, ` ${box.value}`)))))
    : null;

  const title = h('h1', {}, space.name);
  const renameInput = h('input', { type: 'text', value: space.name, required: true, maxlength: 255, 'aria-label': 'space name' });
  const renameForm = h('form', { class: 'inline-form', hidden: true }, renameInput, h('button', { type: 'submit', class: 'primary' }, 'Save'),
    h('button', { type: 'button', onclick: () => { renameForm.hidden = true; } }, 'Cancel'));
  renameForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const name = renameInput.value.trim();
    ctx.api.send('PUT', `v1/spaces/${id}`, { name }).then(() => {
      space.name = name;
      title.textContent = name;
      ctx.setTitle(name);
      renameForm.hidden = true;
    }, (err: unknown) => replace(status, notice('error', err instanceof ApiFailure ? err.message : String(err))));
  });
  const deleteSpace = async () => {
    // the charts on the page now: some may have been deleted since it was loaded
    const count = cards.length === 0 ? '' : cards.length === 1 ? ' and its chart' : ` and its ${cards.length} charts`;
    if (!confirm(`Delete the space “${space.name}”${count}?`)) return;
    try {
      await ctx.api.send('DELETE', `v1/spaces/${id}`);
      ctx.navigate('#/spaces');
    } catch (err) {
      replace(status, notice('error', err instanceof Error ? err.message : String(err)));
    }
  };

  replace(ctx.main,
    h('div', { class: 'page-head' }, title, h('div', { class: 'actions' },
      h('a', { href: hashOf(['spaces', id, 'charts', 'new']), class: 'button primary' }, 'Add chart'),
      h('button', { type: 'button', onclick: () => { renameForm.hidden = false; renameInput.focus(); } }, 'Rename'),
      h('button', { type: 'button', class: 'danger', onclick: () => void deleteSpace() }, 'Delete space'))),
    renameForm,
    h('div', { class: 'toolbar' }, timePicker(picker, (s) => { picker = s; remember(); schedule(); void refresh(); }, { refresh: true }), filterInput, annotationPicker),
    status,
    charts.length ? grid : noCharts());
  schedule();
  await refresh();
  return () => {
    clearInterval(timer);
    for (const card of cards) card.destroy();
  };
};
