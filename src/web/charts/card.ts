// One chart on a page: title, a body of fixed height (so a refresh never moves the page),
// a legend whose values are the last point of each line (or the hovered one), and
// annotation markers that open their title, time, description and links.
import type uPlot from 'uplot';
import { h, notice, replace, safeHref, formatTime } from '../dom.js';
import { drawPlot, type Plot, type PlotTheme } from './plot.js';
import { formatValue, PALETTE, thresholdColour } from './format.js';
import { lastValue, valueAt, type Line } from './queries.js';
import type { ChartData, Marker } from './fetch.js';
import type { Chart } from '../types.js';

export const PLOT_HEIGHT = 220;

function theme(): PlotTheme {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return { text: v('--fg-muted', '#555'), grid: v('--grid', '#ddd'), marker: v('--marker', '#c77700') };
}

/** Each line's colour: its stream's `color` for the stream's first line, else the palette. */
export function coloursOf(chart: Chart, lines: readonly Line[]): string[] {
  const seen = new Set<number>();
  const own = new Set(chart.streams.map((s) => s.color?.toLowerCase()).filter(Boolean));
  // the palette without the streams' own colours, so no two lines look alike needlessly
  const palette = PALETTE.filter((c) => !own.has(c)).length ? PALETTE.filter((c) => !own.has(c)) : PALETTE;
  let next = 0;
  return lines.map((l) => {
    const colour = chart.streams[l.stream]?.color;
    if (colour && !seen.has(l.stream)) { seen.add(l.stream); return colour; }
    return palette[next++ % palette.length]!;
  });
}

export class ChartCard {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;
  private readonly legend: HTMLElement;
  private readonly popover: HTMLElement;
  /** what an action on the chart (deleting it) came to, beside the chart rather than at the top of a long page */
  private readonly message: HTMLElement;
  private plot: Plot | null = null;
  private lines: readonly Line[] = [];
  /** what the chart could not draw (a stream the API refused, one cut short), shown above the legend */
  private problems: readonly string[] = [];
  private readonly resize: ResizeObserver;

  constructor(readonly chart: Chart, actions: HTMLElement[] = []) {
    this.body = h('div', { class: 'chart-body', 'data-chart-body': '' });
    this.legend = h('div', { class: 'chart-legend', 'aria-live': 'off' });
    this.popover = h('div', { class: 'marker-popover', hidden: true, role: 'dialog', 'aria-label': 'annotation' });
    this.message = h('div', { class: 'chart-message', 'aria-live': 'polite' });
    this.element = h('section', { class: `chart-card chart-${chart.type}`, 'data-chart-id': chart.id, 'aria-label': chart.name || 'chart' },
      h('header', { class: 'chart-head' }, h('h3', {}, chart.name || 'Untitled chart'), h('div', { class: 'chart-actions' }, actions)),
      this.message, this.body, this.legend, this.popover);
    this.body.style.height = `${PLOT_HEIGHT}px`;
    this.resize = new ResizeObserver(() => this.plot?.setSize(this.width(), PLOT_HEIGHT));
    this.resize.observe(this.body);
    this.element.addEventListener('keydown', (e) => { if (e.key === 'Escape' && !this.popover.hidden) this.closeMarker(); });
  }

  private width(): number {
    return Math.max(this.body.clientWidth, 200);
  }

  /** Says why an action on the chart (or its refresh) failed, in the chart's own box; null: nothing to say. */
  say(text: string | null): void {
    if (text === null) replace(this.message);
    else replace(this.message, notice('error', text));
  }

  showError(message: string): void {
    this.dropPlot();
    replace(this.body, h('p', { class: 'chart-error', role: 'alert' }, message));
    replace(this.legend);
  }

  /**
   * Draws the lines and markers of `data` over `span`, the time range asked for (unix
   * seconds), and says what could not be drawn.
   */
  show(data: ChartData, markers: readonly Marker[], span: { start: number; end: number }): void {
    const { lines, problems } = data;
    // a marker with the focus is drawn anew: the focus goes to the new one (a keyboard
    // user's place was lost to body at every auto-refresh)
    const focused = document.activeElement;
    this.refocus = focused instanceof HTMLElement && focused.classList.contains('marker') && this.body.contains(focused) ? focused.dataset.eventId ?? null : null;
    this.problems = problems;
    this.lines = lines;
    this.dropPlot();
    // an event's box stays open across a refresh (auto-refresh would close it while it is
    // read) unless its event is no longer marked
    if (this.chart.type === 'bignumber' || !markers.some((m) => m.event.id === this.openEvent)) this.hideMarker();
    if (this.chart.type === 'bignumber') return this.showBigNumber(lines);
    if (!lines.some((l) => l.points.length)) {
      replace(this.body, h('p', { class: 'chart-empty' }, 'No data in this interval'));
      replace(this.legend, this.problemList());
      return;
    }
    const colours = coloursOf(this.chart, lines);
    replace(this.body);
    this.plot = drawPlot(this.body, this.width(), PLOT_HEIGHT, {
      chart: this.chart, lines, colours, theme: theme(), span, marks: markers.map((m) => m.event.start_time),
      onHover: (row) => this.fillLegend(colours, row),
      onDraw: (u) => this.placeMarkers(u, markers),
    });
    this.fillLegend(colours, null);
  }

  private showBigNumber(lines: readonly Line[]): void {
    const stream = this.chart.streams[0];
    // the first stream's first line: with that stream refused, another's value must not stand in for it
    const first = lines.find((l) => l.stream === 0);
    const value = first ? lastValue(first) : null;
    const colour = thresholdColour(value, this.chart.thresholds);
    replace(this.body, h('div', { class: `bignumber${colour ? ` bignumber-${colour}` : ''}`, 'data-value': value ?? '', 'data-threshold': colour ?? 'none' },
      h('span', { class: 'bignumber-value' }, formatValue(value)),
      stream?.units_short ? h('span', { class: 'bignumber-units' }, stream.units_short) : null));
    replace(this.legend, this.problemList(), first ? h('p', { class: 'muted' }, first.label) : null);
  }

  /** Values of the hovered row, or each line's last value. */
  private fillLegend(colours: readonly string[], row: number | null): void {
    const times = this.plot?.times ?? [];
    const rows = this.lines.map((line, i) => {
      const value = row === null ? lastValue(line) : valueAt(line, times[row]!);
      const swatch = h('span', { class: 'swatch', 'aria-hidden': 'true' });
      swatch.style.background = colours[i]!;
      const units = this.chart.streams[line.stream]?.units_short ?? '';
      return h('li', { class: 'legend-row' }, swatch, h('span', { class: 'legend-label', title: line.label }, line.label),
        h('span', { class: 'legend-value', 'data-value': value ?? '' }, formatValue(value, units)));
    });
    replace(this.legend, this.problemList(), h('ul', { class: 'legend-list' }, rows));
  }

  private problemList(): HTMLElement | null {
    return this.problems.length ? h('ul', { class: 'chart-problems', role: 'alert' }, this.problems.map((p) => h('li', {}, p))) : null;
  }

  /** Places a button per event in view; a redraw moves those already there (one may have the focus). */
  private placeMarkers(u: uPlot, markers: readonly Marker[]): void {
    const placed = new Map([...this.body.querySelectorAll<HTMLElement>('.marker')].map((b) => [b.dataset.eventId, b]));
    for (const m of markers) {
      const x = u.valToPos(m.event.start_time, 'x');
      if (!(x >= 0 && x <= u.bbox.width / devicePixelRatio)) continue;
      let button = placed.get(String(m.event.id));
      placed.delete(String(m.event.id));
      if (!button) {
        button = h('button', { type: 'button', class: 'marker', title: m.event.title, 'aria-label': `annotation: ${m.event.title}`, 'data-event-id': m.event.id, onclick: () => this.openMarker(m) }, '▼');
        this.body.appendChild(button);
      }
      button.style.left = `${u.over.offsetLeft + x}px`;
    }
    for (const gone of placed.values()) gone.remove();
    if (this.refocus !== null) {
      this.body.querySelector<HTMLElement>(`.marker[data-event-id="${this.refocus}"]`)?.focus();
      this.refocus = null;
    }
  }

  /** The event whose box is open: closing the box gives its marker the focus back. */
  private openEvent: number | null = null;
  /** the event whose marker had the focus before a redraw, to have it again after */
  private refocus: string | null = null;

  private openMarker(m: Marker): void {
    this.openEvent = m.event.id;
    const e = m.event;
    const links = (e.links ?? []).flatMap((l) => {
      const href = safeHref(l.href);
      return href ? [h('li', {}, h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, l.label || l.rel))] : [];
    });
    replace(this.popover,
      h('button', { type: 'button', class: 'popover-close', 'aria-label': 'close', onclick: () => this.closeMarker() }, '×'),
      h('strong', { class: 'marker-title' }, e.title),
      h('p', { class: 'muted' }, `${m.stream} · ${formatTime(e.start_time)}${e.end_time ? ` – ${formatTime(e.end_time)}` : ''}`),
      e.description ? h('p', {}, e.description) : null,
      links.length ? h('ul', { class: 'marker-links' }, links) : null);
    this.popover.hidden = false;
    this.popover.querySelector('button')?.focus();
  }

  private hideMarker(): void {
    this.popover.hidden = true;
    this.openEvent = null;
  }

  /**
   * Closes the event's box; the focus, which was in it, goes back to the event's marker
   * (it stayed on the hidden close button, lost to keyboard users). Markers are drawn
   * anew at each draw: the one of that event now.
   */
  private closeMarker(): void {
    const id = this.openEvent;
    this.hideMarker();
    if (id !== null) this.body.querySelector<HTMLElement>(`.marker[data-event-id="${id}"]`)?.focus();
  }

  private dropPlot(): void {
    this.plot?.destroy();
    this.plot = null;
  }

  destroy(): void {
    this.resize.disconnect();
    this.dropPlot();
  }
}
