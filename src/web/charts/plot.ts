// Line and stacked charts on uPlot: the y axes of axes.ts, annotation markers
// drawn as vertical lines, the hovered point's values handed to the legend.
import uPlot from 'uplot';
import { align, fillGaps, stack, type Line } from './queries.js';
import { formatValue } from './format.js';
import { yAxes } from './axes.js';
import type { Chart } from '../types.js';

export interface PlotTheme { text: string; grid: string; marker: string }

export interface PlotInput {
  chart: Chart;
  lines: readonly Line[];
  colours: readonly string[];
  /** the time range shown (unix seconds): the one asked for, whatever part of it has data */
  span: { start: number; end: number };
  /** unix seconds of annotation events, drawn as vertical lines */
  marks: readonly number[];
  theme: PlotTheme;
  /** called with the row under the cursor, or null when the cursor leaves */
  onHover(row: number | null): void;
  /** called after every draw (first, data, resize): scales and sizes are known then */
  onDraw(u: uPlot): void;
}

export interface Plot {
  readonly uplot: uPlot;
  /** the times on the x axis (the legend reads values by row) */
  readonly times: readonly number[];
  setSize(width: number, height: number): void;
  destroy(): void;
}

export function drawPlot(target: HTMLElement, width: number, height: number, input: PlotInput): Plot {
  const { chart, lines, colours, theme } = input;
  const [times, ...sampled] = align(lines);
  const columns = sampled.map((column) => fillGaps(times, column));
  const stacked = chart.type === 'stacked';
  const drawn = stacked ? stack(columns) : columns;
  const { lineScales, axes: yAxisList } = yAxes(chart, lines);
  const series: uPlot.Series[] = [{}];
  lines.forEach((l, i) => {
    series.push({
      label: l.label,
      scale: lineScales[i],
      stroke: colours[i],
      width: 1.5,
      fill: stacked ? `${colours[i]}44` : undefined,
      spanGaps: false,
      points: { show: times.length < 60 },
    });
  });
  const bands: uPlot.Band[] = stacked ? lines.slice(1).map((_, i) => ({ series: [i + 2, i + 1] as [number, number] })) : [];
  const axis = (scale: string, side: 0 | 1 | 2 | 3, label?: string): uPlot.Axis => ({
    scale, side, label, stroke: theme.text, grid: { show: side === 3, stroke: theme.grid, width: 1 }, ticks: { stroke: theme.grid },
    values: (_u, ticks) => ticks.map((t) => formatValue(t)), size: 56,
  });
  const axes: uPlot.Axis[] = [{ stroke: theme.text, grid: { stroke: theme.grid, width: 1 }, ticks: { stroke: theme.grid } }];
  yAxisList.forEach((y, i) => axes.push(axis(y.scale, i === 0 ? 3 : 1, y.label)));
  // a tenth of the span above and below (so flat lines do not sit on the frame), unless
  // the chart fixes its bounds; stacked areas start at zero
  const range = (min: number, max: number): uPlot.Range.MinMax => {
    const pad = (max - min || Math.abs(max) || 1) * 0.1;
    const lo = chart.min ?? (stacked ? Math.min(0, min) : min - pad);
    const hi = chart.max ?? max + pad;
    return lo === hi ? [lo - 1, hi + 1] : [lo, hi];
  };
  // the x axis spans the chosen range, not the data's extent: charts of a space share one
  // time axis, and markers of events without data around them still have their place
  const scaleOpts: uPlot.Scales = { x: { time: true, range: () => [input.span.start, input.span.end] } };
  for (const y of yAxisList) scaleOpts[y.scale] = { range: (_u, min, max) => range(min, max) };
  const opts: uPlot.Options = {
    width, height, series, axes, bands, scales: scaleOpts,
    legend: { show: false },
    cursor: { points: { size: 6 }, drag: { x: false, y: false } },
    hooks: {
      setCursor: [(u) => input.onHover(u.cursor.idx ?? null)],
      draw: [(u) => {
        input.onDraw(u);
        if (!input.marks.length) return;
        const ctx = u.ctx;
        ctx.save();
        ctx.strokeStyle = theme.marker;
        ctx.lineWidth = 1.5 * devicePixelRatio;
        ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
        for (const t of input.marks) {
          const x = Math.round(u.valToPos(t, 'x', true));
          if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) continue;
          ctx.beginPath();
          ctx.moveTo(x, u.bbox.top);
          ctx.lineTo(x, u.bbox.top + u.bbox.height);
          ctx.stroke();
        }
        ctx.restore();
      }],
    },
  };
  const u = new uPlot(opts, [times, ...drawn] as uPlot.AlignedData, target);
  return {
    uplot: u,
    times,
    setSize: (w, hgt) => u.setSize({ width: w, height: hgt }),
    destroy: () => u.destroy(),
  };
}
