// How values and thresholds read on a chart.
import type { Threshold } from '../types.js';

/**
 * Up to 4 significant digits, with k/M/G/T above ten thousand; with units the prefix joins
 * them as SI writes it (`2.5 GB`, `12.35 kreq`), not `2.5G B`.
 */
export function formatValue(v: number | null | undefined, units = ''): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  const abs = Math.abs(v);
  // [from, unit, suffix]: thousands only from ten thousand, so 2048 stays 2048
  const suffixes: [number, number, string][] = [[1e12, 1e12, 'T'], [1e9, 1e9, 'G'], [1e6, 1e6, 'M'], [1e4, 1e3, 'k']];
  let number = trim(v);
  let prefix = '';
  for (const [from, unit, suffix] of suffixes) {
    if (abs >= from) { number = trim(v / unit); prefix = suffix; break; }
  }
  return units ? `${number} ${prefix}${units}` : `${number}${prefix}`;
}

function trim(v: number): string {
  if (Number.isInteger(v)) return String(v);
  return String(Number(v.toPrecision(4)));
}

/**
 * The colour a bignumber shows: red when a red threshold's condition holds, else yellow
 * when a yellow one's does, else none.
 */
export function thresholdColour(value: number | null, thresholds: readonly Threshold[] | null | undefined): 'red' | 'yellow' | null {
  if (value === null || !thresholds) return null;
  const holds = (t: Threshold) => (t.operator === '>' ? value > t.value : t.operator === '<' ? value < t.value : value === t.value);
  if (thresholds.some((t) => t.type === 'red' && holds(t))) return 'red';
  if (thresholds.some((t) => t.type === 'yellow' && holds(t))) return 'yellow';
  return null;
}

/** Distinct colours for lines without their own, readable on light and dark backgrounds. */
export const PALETTE = ['#2f7ed8', '#e4572e', '#29a35a', '#a05fd1', '#e0a800', '#17a2b8', '#d6336c', '#6c757d', '#8c564b', '#1f9e89'];
