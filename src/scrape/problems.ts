// What is wrong with a scrape configuration, and where. Problems are collected (all of a
// config's mistakes at once, like the rest of the config) and thrown together. A problem
// keeps its path as segments so the config loader can find the offending line.
import { GaugewayError } from '../errors.js';

export interface ScrapeConfigProblem {
  /** the Prometheus config file the key is in, or null for Gaugeway's own `scrape:` section */
  file: string | null;
  /** e.g. ['scrape', 'scrape_configs', '2', 'scrape_timeout'] */
  segments: string[];
  message: string;
}

export class ScrapeConfigError extends GaugewayError {
  readonly problems: ScrapeConfigProblem[];
  constructor(problems: ScrapeConfigProblem[]) {
    super('E_CONFIG_INVALID', problems.map(describeProblem).join('\n'));
    this.problems = problems;
  }
}

/** `scrape.scrape_configs[2].scrape_timeout` */
export function formatSegments(segments: readonly string[]): string {
  return segments.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

export function describeProblem(p: ScrapeConfigProblem): string {
  return `${p.file ? `${p.file}: ` : ''}${formatSegments(p.segments) || '(root)'}: ${p.message}`;
}

/** Where a check reports a problem: the path below the caller's base, and what is wrong. */
export type Report = (segments: readonly (string | number)[], message: string) => void;

/** A Report that records into `problems`, with `base` before every path. */
export function reporter(problems: ScrapeConfigProblem[], file: string | null, base: readonly (string | number)[]): Report {
  return (segments, message) => problems.push({ file, segments: [...base, ...segments].map(String), message });
}
