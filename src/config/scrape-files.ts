// The `scrape:` section as jobs: the Prometheus files it names are read and checked here
// (YAML, then prometheusFileSchema), and every problem normalizeScrape finds is put on its
// line, in the config file or in the Prometheus file it is in, like the rest of the config.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { normalizeScrape, prometheusFileSchema, type PrometheusFileSection, type ScrapeJob, type ScrapeSection } from '../scrape/config.js';
import { ScrapeConfigError, formatSegments } from '../scrape/problems.js';
import { lineOf, type ConfigProblem } from './describe.js';

const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false });
let validateFile: ValidateFunction<PrometheusFileSection> | null = null;

/** Compiled when the first Prometheus file is read: most configs name none. */
function fileValidator(): ValidateFunction<PrometheusFileSection> {
  return (validateFile ??= ajv.compile<PrometheusFileSection>(prometheusFileSchema));
}

interface Parsed {
  doc: Document;
  lc: LineCounter;
  path: string;
}

/**
 * The jobs of a validated `scrape` section, or the problems that stop it. `root` and `lc`
 * are the config file's YAML, for line numbers; relative paths resolve against `baseDir`.
 */
export function scrapeJobs(section: ScrapeSection, file: string, root: unknown, lc: LineCounter, baseDir: string): { jobs: ScrapeJob[]; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const files = new Map<string, PrometheusFileSection>();
  const parsed = new Map<string, Parsed>();
  section.config_files.forEach((name, i) => {
    const path = resolve(baseDir, name);
    const at = lineOf(root, ['scrape', 'config_files', String(i)], lc);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      problems.push({ file, line: at, path: `scrape.config_files[${i}]`, message: `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}` });
      return;
    }
    const flc = new LineCounter();
    const doc = parseDocument(text, { lineCounter: flc, prettyErrors: false, uniqueKeys: true });
    if (doc.errors.length) {
      for (const e of doc.errors) problems.push({ file: path, line: flc.linePos(e.pos[0]).line, path: '', message: e.message.split('\n')[0] ?? e.message });
      return;
    }
    const data: unknown = doc.toJS() ?? {};
    const validate = fileValidator();
    if (!validate(data)) {
      for (const e of validate.errors ?? []) {
        const segments = e.instancePath.split('/').slice(1);
        const extra = e.keyword === 'additionalProperties' ? String((e.params as { additionalProperty: string }).additionalProperty) : null;
        const target = extra ? [...segments, extra] : segments;
        problems.push({ file: path, line: lineOf(doc.contents, target, flc), path: formatSegments(target), message: extra ? `unknown key "${extra}"` : e.message ?? 'is invalid' });
      }
      return;
    }
    files.set(name, data);
    parsed.set(name, { doc, lc: flc, path });
  });
  if (problems.length) return { jobs: [], problems };
  try {
    return { jobs: normalizeScrape(section, files, baseDir), problems };
  } catch (e) {
    if (!(e instanceof ScrapeConfigError)) throw e;
    for (const p of e.problems) {
      const where = p.file === null ? null : parsed.get(p.file);
      problems.push(where
        ? { file: where.path, line: lineOf(where.doc.contents, p.segments, where.lc), path: formatSegments(p.segments), message: p.message }
        : { file, line: lineOf(root, p.segments, lc), path: formatSegments(p.segments), message: p.message });
    }
    return { jobs: [], problems };
  }
}
