// docs/composite.md as test data: the example measurements (its POST /v1/measurements
// bodies) and every example request with the answer printed under it.
import { readFileSync } from 'node:fs';
import type { MetricInfo } from '../../../src/query/composite/source.js';
import type { MemorySeries } from './memory-source.js';

export interface DocExample {
  line: number;
  compose: string;
  start: number;
  end: number;
  resolution: number;
  answer: unknown;
}

interface Measurement { name: string; value: number; time: number; tags?: Record<string, string>; period?: number; attributes?: object }

const REQUEST = /^GET \/v1\/measurements\?compose=(.+)&start_time=(\d+)&end_time=(\d+)&resolution=(\d+)$/;

/** The json block that starts after line `i`. */
function jsonAfter(lines: string[], i: number): unknown {
  let j = i + 1;
  while (lines[j] !== '```json') j++;
  const end = lines.indexOf('```', j + 1);
  return JSON.parse(lines.slice(j + 1, end).join('\n'));
}

export function readDoc(path: string): { data: MemorySeries[]; metrics: Partial<MetricInfo>[]; examples: DocExample[] } {
  const lines = readFileSync(path, 'utf8').split('\n');
  const series = new Map<string, MemorySeries>();
  const metrics = new Map<string, Partial<MetricInfo>>();
  const examples: DocExample[] = [];
  lines.forEach((line, i) => {
    if (line === 'POST /v1/measurements') {
      const body = jsonAfter(lines, i) as { measurements: Measurement[] };
      for (const m of body.measurements) {
        const key = JSON.stringify([m.name, m.tags ?? {}]);
        if (!series.has(key)) series.set(key, { metric: m.name, tags: m.tags ?? {}, samples: [] });
        series.get(key)!.samples.push([m.time, m.value]);
        if (!metrics.has(m.name)) metrics.set(m.name, { name: m.name, period: m.period ?? null, attributes: m.attributes ?? {} });
      }
    }
    const r = REQUEST.exec(line);
    if (r) examples.push({ line: i + 1, compose: r[1]!, start: Number(r[2]), end: Number(r[3]), resolution: Number(r[4]), answer: jsonAfter(lines, i) });
  });
  return { data: [...series.values()], metrics: [...metrics.values()], examples };
}
