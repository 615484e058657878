// Create or edit a chart of a space: its type, axis, thresholds (bignumber) and streams
// (a metric with tag filters, grouping and summary, or a composite query), as the API
// defines them. What the API refuses comes back as its own messages.
import { h, notice, replace } from '../dom.js';
import { ApiFailure } from '../api.js';
import { hashOf } from '../router.js';
import { parseStreamTags, streamTagText } from '../charts/tags.js';
import type { Chart, ChartSummary, ChartType, GroupFunction, Metric, Stream, Threshold } from '../types.js';
import type { View } from './view.js';

const GROUPS: GroupFunction[] = ['average', 'sum', 'min', 'max', 'breakout'];
const SUMMARIES: ChartSummary[] = ['average', 'sum', 'min', 'max', 'count'];
let uid = 0;

function select<T extends string>(label: string, options: readonly T[], value: T): [HTMLLabelElement, HTMLSelectElement] {
  const id = `f${++uid}`;
  return [h('label', { for: id }, label), h('select', { id }, options.map((o) => h('option', { value: o, selected: o === value }, o)))];
}

function input(label: string, value: string | number | null | undefined, attrs: Record<string, string | number | boolean> = {}): [HTMLLabelElement, HTMLInputElement] {
  // an id given in attrs is the field's: the label must name that one
  const id = typeof attrs.id === 'string' ? attrs.id : `f${++uid}`;
  return [h('label', { for: id }, label), h('input', { type: 'text', value: value ?? '', ...attrs, id })];
}

const optionalNumber = (s: string): number | undefined => (s.trim() === '' ? undefined : Number(s));

/**
 * A select's value as the stream takes it: the form shows `average` where the stream says
 * nothing (the API's default), and writes it only when the stream had the field or
 * another value was chosen, so a stream saved unchanged stays as it was sent.
 */
function chosen<T extends string>(had: T | undefined, value: T): T | undefined {
  return had !== undefined || value !== 'average' ? value : undefined;
}

function setOrDelete<K extends keyof Stream>(stream: Stream, field: K, value: Stream[K] | undefined): void {
  if (value === undefined || value === '') delete stream[field];
  else stream[field] = value;
}

/**
 * One stream's fieldset; `read()` gives the stream as the API takes it: the stream as it
 * was loaded, with the form's fields over it. So its `id` goes back (the API keeps the
 * stream's id, not a new one) and so do the fields the form does not show (`min`, `max`,
 * `period`, `downsample_function`, fields of other clients), since a PUT replaces streams.
 */
interface StreamActions { remove(): void; move(by: -1 | 1): void }

function streamFields(stream: Stream, actions: StreamActions): { element: HTMLElement; number(index: number, count: number): void; read(): Stream } {
  const isComposite = !!stream.composite;
  const kindId = `f${++uid}`;
  const kind = h('select', { id: kindId }, h('option', { value: 'metric', selected: !isComposite }, 'metric'), h('option', { value: 'composite', selected: isComposite }, 'composite query'));
  const [metricLabel, metric] = input('Metric', stream.metric, { list: 'metric-names', autocomplete: 'off', class: 'stream-metric' });
  const tagText = streamTagText(stream.tags);
  const [filtersLabel, filters] = input('Tag filters', tagText.filters, { placeholder: 'region=us-*|eu-*, host=web-1', class: 'stream-tags' });
  const [groupByLabel, groupBy] = input('Group by tags', tagText.groupBy, { placeholder: 'region', class: 'stream-group-by' });
  const [dynamicLabel, dynamic] = input('Dynamic tags (set by the space filter)', tagText.dynamic, { placeholder: 'region', class: 'stream-dynamic' });
  const [groupLabel, group] = select('Group function', GROUPS, stream.group_function ?? 'average');
  const [summaryLabel, summary] = select('Summary function', SUMMARIES, stream.summary_function ?? 'average');
  const compositeId = `f${++uid}`;
  const composite = h('textarea', { id: compositeId, rows: 2, class: 'stream-composite', placeholder: 's("cpu", {"region": "*"})' }, stream.composite ?? '');
  const [nameLabel, name] = input('Display name', stream.name);
  const [colorLabel, color] = input('Colour', stream.color, { placeholder: '#2f7ed8', pattern: '#[0-9A-Fa-f]{6}' });
  const [shortLabel, unitsShort] = input('Units (short)', stream.units_short);
  const [longLabel, unitsLong] = input('Units (axis)', stream.units_long);
  const [transformLabel, transform] = input('Transform', stream.transform_function, { placeholder: 'x/1024' });
  const metricPart = h('div', { class: 'form-grid' }, metricLabel, metric, filtersLabel, filters, groupByLabel, groupBy,
    dynamicLabel, dynamic, groupLabel, group, summaryLabel, summary);
  const compositePart = h('div', { class: 'form-grid' }, h('label', { for: compositeId }, 'Composite'), composite);
  const sync = () => { metricPart.hidden = kind.value !== 'metric'; compositePart.hidden = kind.value === 'metric'; };
  kind.addEventListener('change', sync);
  sync();
  const legend = h('legend', {});
  const up = h('button', { type: 'button', class: 'small', onclick: () => actions.move(-1) }, 'Move up');
  const down = h('button', { type: 'button', class: 'small', onclick: () => actions.move(1) }, 'Move down');
  const removeButton = h('button', { type: 'button', class: 'small danger', onclick: actions.remove }, 'Remove stream');
  const element = h('fieldset', { class: 'stream' }, legend,
    h('div', { class: 'form-grid' }, h('label', { for: kindId }, 'Kind'), kind), metricPart, compositePart,
    h('div', { class: 'form-grid' }, nameLabel, name, colorLabel, color, shortLabel, unitsShort, longLabel, unitsLong, transformLabel, transform),
    h('div', { class: 'actions' }, up, down, removeButton));
  return {
    element,
    /** Its place among the streams: the legend's number, and the buttons' names and whether they can act. */
    number(index, count) {
      legend.textContent = `Stream ${index + 1}`;
      up.disabled = index === 0;
      down.disabled = index === count - 1;
      up.setAttribute('aria-label', `move stream ${index + 1} up`);
      down.setAttribute('aria-label', `move stream ${index + 1} down`);
      removeButton.setAttribute('aria-label', `remove stream ${index + 1}`);
    },
    read() {
      // `type` is not the stream's own: the API computes it from the metric
      const { type: _computed, ...out } = stream;
      setOrDelete(out, 'name', name.value.trim());
      setOrDelete(out, 'color', color.value.trim());
      setOrDelete(out, 'units_short', unitsShort.value.trim());
      setOrDelete(out, 'units_long', unitsLong.value.trim());
      setOrDelete(out, 'transform_function', transform.value.trim());
      if (kind.value === 'composite') {
        // the API refuses these beside a composite
        for (const field of ['metric', 'tags', 'group_function'] as const) delete out[field];
        return { ...out, composite: composite.value.trim() };
      }
      delete out.composite;
      out.metric = metric.value.trim();
      const text = { filters: filters.value, groupBy: groupBy.value, dynamic: dynamic.value };
      // the tags as loaded while their text is unchanged: the text does not keep everything
      // a stored tag may say (a tag without values, `grouped: false` left out)
      if (text.filters !== tagText.filters || text.groupBy !== tagText.groupBy || text.dynamic !== tagText.dynamic) out.tags = parseStreamTags(text);
      setOrDelete(out, 'group_function', chosen(stream.group_function, group.value as GroupFunction));
      setOrDelete(out, 'summary_function', chosen(stream.summary_function, summary.value as ChartSummary));
      return out;
    },
  };
}

function thresholdRow(t: Threshold | undefined, remove: () => void): { element: HTMLElement; read(): Threshold | null } {
  const type = h('select', { 'aria-label': 'threshold colour' }, ['red', 'yellow'].map((c) => h('option', { value: c, selected: c === (t?.type ?? 'red') }, c)));
  const op = h('select', { 'aria-label': 'threshold operator' }, ['>', '<', '='].map((o) => h('option', { value: o, selected: o === (t?.operator ?? '>') }, o)));
  const value = h('input', { type: 'number', step: 'any', value: t?.value ?? '', 'aria-label': 'threshold value' });
  return {
    element: h('div', { class: 'threshold-row' }, type, ' when value ', op, value, h('button', { type: 'button', class: 'small', onclick: remove }, 'Remove')),
    read: () => (value.value === '' ? null : { type: type.value as Threshold['type'], operator: op.value as Threshold['operator'], value: Number(value.value) }),
  };
}

export const chartEditorView: View = async (ctx) => {
  const spaceId = Number(ctx.params.id);
  const chartId = ctx.params.chart ? Number(ctx.params.chart) : null;
  const [chart, metrics] = await Promise.all([
    chartId === null ? Promise.resolve<Chart | null>(null) : ctx.api.get<Chart>(`v1/spaces/${spaceId}/charts/${chartId}`),
    ctx.api.get<{ metrics: Metric[] }>('v1/metrics', { length: 100 }),
  ]);
  ctx.setTitle(chart ? `Edit ${chart.name}` : 'New chart');
  // suggestions: the first page of metrics, then those matching what is typed (an account
  // may have far more metrics than one page holds)
  const suggestions = h('datalist', { id: 'metric-names' });
  const suggest = (list: readonly Metric[]) => replace(suggestions, list.map((m) => h('option', { value: m.name })));
  suggest(metrics.metrics);
  let typed = 0;
  let timer: number | undefined;
  const suggestFor = (text: string) => {
    const mine = ++typed;
    ctx.api.get<{ metrics: Metric[] }>('v1/metrics', { name: text || undefined, length: 100 })
      .then((found) => { if (mine === typed) suggest(found.metrics); }, () => undefined);
  };
  const [nameLabel, name] = input('Name', chart?.name, { required: true, maxlength: 255, id: 'chart-name' });
  const [typeLabel, type] = select<ChartType>('Type', ['line', 'stacked', 'bignumber'], chart?.type ?? 'line');
  type.id = 'chart-type';
  typeLabel.htmlFor = 'chart-type';
  const [labelLabel, label] = input('Y-axis label', chart?.label);
  const [minLabel, min] = input('Y min', chart?.min, { type: 'number', step: 'any' });
  const [maxLabel, max] = input('Y max', chart?.max, { type: 'number', step: 'any' });

  const streamBox = h('div', { class: 'streams' });
  const streams: ReturnType<typeof streamFields>[] = [];
  // the streams in the order they are drawn and saved (a bignumber shows the first); the
  // numbers follow a removal or a move
  const renumber = () => streams.forEach((f, i) => f.number(i, streams.length));
  const addStream = (s: Stream) => {
    const fields = streamFields(s, {
      remove: () => { streams.splice(streams.indexOf(fields), 1); fields.element.remove(); renumber(); },
      move: (by) => {
        const from = streams.indexOf(fields);
        const to = from + by;
        if (to < 0 || to >= streams.length) return;
        const focused = document.activeElement;
        streams.splice(from, 1);
        streams.splice(to, 0, fields);
        streamBox.insertBefore(fields.element, streamBox.children[to + (by > 0 ? 1 : 0)] ?? null);
        renumber();
        // the moved fieldset took the focus out with it: the button keeps it, or, now at
        // the end it moved to and disabled, the other one
        if (focused instanceof HTMLButtonElement) (focused.disabled ? fields.element.querySelector<HTMLButtonElement>('.actions button:not(:disabled)') : focused)?.focus();
      },
    });
    streams.push(fields);
    streamBox.appendChild(fields.element);
    renumber();
  };
  for (const s of chart?.streams ?? [{ metric: ctx.query.get('metric') ?? '' }]) addStream(s);

  const thresholdBox = h('div', { class: 'thresholds' });
  const thresholds: ReturnType<typeof thresholdRow>[] = [];
  const addThreshold = (t?: Threshold) => {
    const row = thresholdRow(t, () => { thresholds.splice(thresholds.indexOf(row), 1); row.element.remove(); });
    thresholds.push(row);
    thresholdBox.appendChild(row.element);
  };
  for (const t of chart?.thresholds ?? []) addThreshold(t);
  const thresholdSet = h('fieldset', { class: 'threshold-set' }, h('legend', {}, 'Thresholds (big number)'), thresholdBox,
    h('button', { type: 'button', class: 'small', onclick: () => addThreshold() }, 'Add threshold'));
  const syncType = () => { thresholdSet.hidden = type.value !== 'bignumber'; };
  type.addEventListener('change', syncType);
  syncType();

  const status = h('div', { 'aria-live': 'polite' });
  const form = h('form', { class: 'chart-form' },
    h('div', { class: 'form-grid' }, nameLabel, name, typeLabel, type, labelLabel, label, minLabel, min, maxLabel, max),
    thresholdSet, streamBox,
    h('button', { type: 'button', onclick: () => addStream({ metric: '' }) }, 'Add stream'),
    suggestions,
    status,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, chart ? 'Save chart' : 'Create chart'),
      h('a', { href: hashOf(['spaces', spaceId]), class: 'button' }, 'Cancel')));
  form.addEventListener('input', (e) => {
    const field = e.target as HTMLInputElement;
    if (!field.classList.contains('stream-metric')) return;
    clearTimeout(timer);
    timer = window.setTimeout(() => suggestFor(field.value.trim()), 200);
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    // read whatever the type: the rows hold the chart's thresholds even while hidden, and a
    // PUT without them would drop those of a line chart that has some
    const keptThresholds = thresholds.map((t) => t.read()).filter((t): t is Threshold => t !== null);
    const body: Omit<Chart, 'id'> = {
      name: name.value.trim(), type: type.value as ChartType, streams: streams.map((s) => s.read()),
      label: label.value.trim() || null, min: optionalNumber(min.value) ?? null, max: optionalNumber(max.value) ?? null,
      thresholds: keptThresholds.length ? keptThresholds : null,
    };
    const done = chart ? ctx.api.send('PUT', `v1/spaces/${spaceId}/charts/${chart.id}`, body) : ctx.api.send('POST', `v1/spaces/${spaceId}/charts`, body);
    done.then(() => ctx.navigate(hashOf(['spaces', spaceId])), (err: unknown) => replace(status, notice('error', err instanceof ApiFailure ? `Not saved: ${err.message}` : String(err))));
  });
  replace(ctx.main, h('div', { class: 'page-head' }, h('h1', {}, chart ? `Edit “${chart.name}”` : 'New chart')), form);
  return () => clearTimeout(timer);
};
