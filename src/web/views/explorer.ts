// The metrics explorer: find a metric, filter its series by tags (with wildcards), group
// by a tag, pick summary and resolution, and keep the result as a chart on a space.
import { h, notice, replace } from '../dom.js';
import { ApiFailure, listAll } from '../api.js';
import { hashOf } from '../router.js';
import { ChartCard } from '../charts/card.js';
import { fetchLines } from '../charts/fetch.js';
import { pickerFromQuery, pickerInterval, pickerQuery, timePicker, type PickerState } from '../charts/picker.js';
import { parseStreamTags } from '../charts/tags.js';
import type { Chart, ChartSummary, GroupFunction, Metric, Page, SpaceSummary, Stream } from '../types.js';
import type { View } from './view.js';

const GROUPS: [GroupFunction, string][] = [['breakout', 'each series'], ['average', 'average'], ['sum', 'sum'], ['min', 'min'], ['max', 'max']];
const SUMMARIES: ChartSummary[] = ['average', 'sum', 'min', 'max', 'count'];

export const explorerView: View = async (ctx) => {
  ctx.setTitle('Metrics');
  const q = ctx.query;
  let picker: PickerState = { ...pickerFromQuery(q), refresh: 0 };
  const search = h('input', { type: 'search', id: 'metric-search', placeholder: 'Search metrics', value: q.get('name') ?? '', 'aria-label': 'search metrics' });
  const results = h('div', { class: 'metric-results' });
  const tags = h('input', { type: 'text', id: 'explore-tags', value: q.get('tags') ?? '', placeholder: 'region=us-*, host=web*', 'aria-label': 'tag filters' });
  const groupBy = h('input', { type: 'text', id: 'explore-group-by', value: q.get('group_by') ?? '', placeholder: 'tag name', list: 'explore-tag-names', 'aria-label': 'group by tag' });
  const tagNames = h('datalist', { id: 'explore-tag-names' });
  const group = h('select', { id: 'explore-group', 'aria-label': 'group function' }, GROUPS.map(([v, l]) => h('option', { value: v, selected: v === (q.get('group') ?? 'breakout') }, l)));
  const summary = h('select', { id: 'explore-summary', 'aria-label': 'summary function' }, SUMMARIES.map((s) => h('option', { value: s, selected: s === (q.get('summary') ?? 'average') }, s)));
  const chartBox = h('div', { class: 'explore-chart' });
  const status = h('div', { 'aria-live': 'polite' });
  let metric = q.get('metric') ?? '';
  /** the picked metric's type (`composite` is queried differently); asked for when the address names the metric */
  let metricType: string | undefined;
  let card: ChartCard | null = null;

  /**
   * A persisted composite metric's definition selects and summarises its series: the API
   * takes none of the tags, grouping or summary for it, so its stream is the metric alone.
   */
  const stream = (): Stream => {
    if (metricType === 'composite') return { metric, type: metricType };
    const fn = group.value as GroupFunction;
    return {
      metric, summary_function: summary.value as ChartSummary,
      group_function: fn === 'breakout' && groupBy.value.trim() ? 'average' : fn,
      tags: parseStreamTags({ filters: tags.value, groupBy: groupBy.value, dynamic: '' }),
    };
  };
  const remember = () => ctx.remember(hashOf(['metrics'], {
    name: search.value.trim(), metric, tags: tags.value.trim(), group_by: groupBy.value.trim(),
    group: group.value === 'breakout' ? undefined : group.value, summary: summary.value === 'average' ? undefined : summary.value, ...pickerQuery(picker),
  }));

  let drawn = 0;
  const draw = async () => {
    const mine = ++drawn;
    remember();
    if (!metric) { replace(chartBox, h('p', { class: 'muted' }, 'Pick a metric.')); return; }
    if (metricType === undefined) {
      const type = await ctx.api.get<Metric>(`v1/metrics/${encodeURIComponent(metric)}`).then((m) => m.type, () => 'gauge');
      if (mine !== drawn) return; // a newer draw (of this or another metric) owns the page
      metricType = type;
    }
    // a composite metric's definition decides these: the controls would only pretend
    for (const control of [tags, groupBy, group, summary]) control.disabled = metricType === 'composite';
    const chart: Chart = { id: 0, name: metric, type: 'line', streams: [stream()] };
    const own = new ChartCard(chart);
    card?.destroy();
    card = own;
    own.element.dataset.state = 'loading';
    replace(chartBox, own.element);
    const interval = pickerInterval(picker);
    try {
      const data = await fetchLines(ctx.api, chart, interval, {});
      if (mine !== drawn) return; // a newer draw owns the page
      own.show(data, [], interval);
      own.element.dataset.state = 'ready';
      own.element.dataset.resolution = String(interval.resolution);
      if (!groupBy.value.trim()) {
        const names = new Set(data.lines.flatMap((l) => Object.keys(l.tags)));
        replace(tagNames, [...names].sort().map((n) => h('option', { value: n })));
      }
    } catch (err) {
      if (mine !== drawn) return;
      own.showError(err instanceof Error ? err.message : String(err));
      own.element.dataset.state = 'error';
    }
  };

  let generation = 0;
  const find = async () => {
    const mine = ++generation;
    const page = await ctx.api.get<{ query: Page; metrics: Metric[] }>('v1/metrics', { name: search.value.trim() || undefined, length: 100 });
    if (mine !== generation) return;
    remember();
    replace(results, page.metrics.length
      ? h('ul', { class: 'link-list' }, page.metrics.map((m) => h('li', {}, h('button', {
        type: 'button', class: `link metric-pick${m.name === metric ? ' selected' : ''}`, 'aria-pressed': m.name === metric ? 'true' : 'false',
        onclick: () => { metric = m.name; metricType = m.type; void find(); void draw(); },
      }, m.display_name || m.name))))
      : h('p', { class: 'muted' }, 'No metric matches.'),
    page.query.found > page.metrics.length ? h('p', { class: 'muted' }, `${page.query.found - page.metrics.length} more: narrow the search.`) : null);
  };
  let timer: number | undefined;
  search.addEventListener('input', () => { clearTimeout(timer); timer = window.setTimeout(() => void find().catch(showError), 200); });
  const showError = (err: unknown) => replace(results, notice('error', err instanceof Error ? err.message : String(err)));
  for (const el of [tags, groupBy, group, summary]) el.addEventListener('change', () => void draw());

  const spaces = await listAll<SpaceSummary>(ctx.api, 'v1/spaces', 'spaces');
  const space = h('select', { id: 'explore-space', 'aria-label': 'space' }, spaces.map((s) => h('option', { value: s.id }, s.name)));
  const chartName = h('input', { type: 'text', id: 'explore-chart-name', placeholder: 'Chart name', 'aria-label': 'chart name', required: true });
  const save = h('form', { class: 'inline-form' }, chartName, space, h('button', { type: 'submit', class: 'primary' }, 'Add chart to space'));
  save.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!metric) return;
    const id = Number(space.value);
    ctx.api.send<Chart>('POST', `v1/spaces/${id}/charts`, { name: chartName.value.trim() || metric, type: 'line', streams: [stream()] }).then(() => {
      replace(status, h('p', { class: 'notice notice-ok', role: 'status' }, 'Chart added. ', h('a', { href: hashOf(['spaces', id]) }, 'Open the space')));
    }, (err: unknown) => replace(status, notice('error', err instanceof ApiFailure ? err.message : String(err))));
  });

  replace(ctx.main,
    h('div', { class: 'page-head' }, h('h1', {}, 'Metrics')),
    h('div', { class: 'explorer' },
      h('aside', { class: 'explorer-list' }, search, results),
      h('section', { class: 'explorer-main' },
        h('div', { class: 'toolbar' }, tags, groupBy, tagNames, group, summary),
        h('div', { class: 'toolbar' }, timePicker(picker, (s) => { picker = { ...s, refresh: 0 }; void draw(); }, { refresh: false })),
        chartBox,
        spaces.length ? save : h('p', { class: 'muted' }, 'Create a space to keep charts.'),
        status)));
  await Promise.all([find().catch(showError), draw()]);
  return () => { clearTimeout(timer); card?.destroy(); };
};
