// The y axes of a line or stacked chart: one scale per distinct `units_long` (the spec:
// streams sharing it share an axis; the second gets the right side), each axis labelled
// with its own scale's units. Pure, so it is unit-tested (test/web/modules.test.ts).
import type { Line } from './queries.js';
import type { Chart } from '../types.js';

export interface YAxis { scale: string; label?: string }

export interface YAxes {
  /** the scale of each line, in the lines' order */
  lineScales: string[];
  /** left, then right when a second units value is drawn */
  axes: YAxis[];
}

/** The scale of lines without units is `y`; of lines with units `u:<units>`. */
const UNITLESS = 'y';

export function yAxes(chart: Chart, lines: readonly Line[]): YAxes {
  const scales: string[] = [];
  const lineScales = lines.map((l) => {
    const units = chart.streams[l.stream]?.units_long;
    const key = units ? `u:${units}` : UNITLESS;
    if (!scales.includes(key)) scales.push(key);
    // a third units value and later ones share the right-hand axis
    return scales.indexOf(key) >= 2 ? scales[1]! : key;
  });
  const unitsOf = (scale: string) => (scale === UNITLESS ? undefined : scale.slice(2));
  const left = scales[0] ?? UNITLESS;
  const axes: YAxis[] = [{ scale: left, label: chart.label ?? unitsOf(left) }];
  if (scales[1]) axes.push({ scale: scales[1], label: unitsOf(scales[1]) });
  return { lineScales, axes };
}
