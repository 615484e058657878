// The time picker shared by spaces and the explorer: a range, a resolution among those
// the range may ask for (ranges.ts), an end (now, or a moment in the past) and, on
// spaces, auto-refresh. Its state lives in the page's hash so a view can be linked.
import { h } from '../dom.js';
import { RANGES, intervalOf, rangeByKey, resolutionLabel, resolutionsFor, type Interval, type Range } from './ranges.js';

export interface PickerState {
  range: Range;
  /** undefined: the range's finest */
  resolution?: number;
  /** unix seconds; undefined: now */
  end?: number;
  /** seconds between refreshes; 0: off */
  refresh: number;
}

export const REFRESH_CHOICES = [0, 30, 60, 300];
export const DEFAULT_REFRESH = 60;

export function pickerFromQuery(q: URLSearchParams): PickerState {
  const num = (k: string) => (q.get(k) && /^\d+$/.test(q.get(k)!) ? Number(q.get(k)) : undefined);
  const refresh = num('refresh');
  return { range: rangeByKey(q.get('range')), resolution: num('res'), end: num('end'), refresh: refresh !== undefined && REFRESH_CHOICES.includes(refresh) ? refresh : DEFAULT_REFRESH };
}

export function pickerQuery(s: PickerState): Record<string, string | undefined> {
  return { range: s.range.key, res: s.resolution?.toString(), end: s.end?.toString(), refresh: s.refresh === DEFAULT_REFRESH ? undefined : String(s.refresh) };
}

export function pickerInterval(s: PickerState, now = Math.floor(Date.now() / 1000)): Interval {
  return intervalOf(s.range, s.end ?? now, s.resolution);
}

function localInput(unix: number | undefined): string {
  if (unix === undefined) return '';
  const d = new Date(unix * 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function timePicker(state: PickerState, onChange: (s: PickerState) => void, opts: { refresh: boolean }): HTMLElement {
  const range = h('select', { id: 'picker-range', 'aria-label': 'time range' },
    RANGES.map((r) => h('option', { value: r.key, selected: r.key === state.range.key }, `Last ${r.label}`)));
  const resolution = h('select', { id: 'picker-resolution', 'aria-label': 'resolution' });
  const fillResolutions = () => {
    const allowed = resolutionsFor(rangeByKey(range.value).seconds);
    resolution.replaceChildren(...allowed.map((r) => h('option', { value: r, selected: r === (state.resolution ?? allowed[0]) }, resolutionLabel(r))));
  };
  fillResolutions();
  const end = h('input', { type: 'datetime-local', id: 'picker-end', 'aria-label': 'ending at (empty: now)', value: localInput(state.end) });
  const now = h('button', { type: 'button', class: 'link', onclick: () => { end.value = ''; changed(); } }, 'now');
  const refresh = h('select', { id: 'picker-refresh', 'aria-label': 'auto-refresh' },
    REFRESH_CHOICES.map((s) => h('option', { value: s, selected: s === state.refresh }, s ? `refresh ${s < 60 ? `${s} s` : `${s / 60} min`}` : 'no refresh')));
  const changed = () => {
    const r = rangeByKey(range.value);
    // a new range starts at its own finest resolution; a coarser one is chosen after it
    const res = r.key === state.range.key ? Number(resolution.value) : NaN;
    const allowed = resolutionsFor(r.seconds);
    const endUnix = end.value ? Math.floor(new Date(end.value).getTime() / 1000) : undefined;
    state = { range: r, resolution: allowed.includes(res) && res !== allowed[0] ? res : undefined, end: Number.isFinite(endUnix) ? endUnix : undefined, refresh: Number(refresh.value) };
    fillResolutions();
    onChange(state);
  };
  for (const el of [range, resolution, end, refresh]) el.addEventListener('change', changed);
  return h('div', { class: 'picker', role: 'group', 'aria-label': 'time' },
    range, resolution, h('span', { class: 'picker-end' }, 'ending ', end, now), opts.refresh ? refresh : null);
}
