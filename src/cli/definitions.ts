// Definitions export and import: what a person built (metrics with their attributes,
// spaces and charts, annotation streams), per account, as documented JSON
// (docs/operations.md, "Moving definitions"), without tokens and without measurements.
// Import is idempotent by name: it creates what is missing, updates what differs and
// skips what is equal, and reports all three. Alerts and notification services slot in
// as further lists when they exist; an import of a file that has them refuses them by
// name rather than dropping them silently.
import type { Runtime } from '../runtime.js';
import type { MetricInput, MetricRecord } from '../domain/metrics.js';
import type { ChartInput, SpaceInput } from '../domain/chart-input.js';
import type { ChartRecord } from '../domain/spaces.js';
import { GaugewayError, ApiError } from '../errors.js';
import { bodyValidator } from '../schema/validate.js';
import { metricPutSchema } from '../http/schemas/metrics.js';
import { chartSchema, spaceSchema } from '../http/schemas/spaces.js';
import { METRIC_NAME, METRIC_NAME_MESSAGE } from '../domain/names.js';
import { checkEmail } from '../auth/accounts.js';

export const DEFINITIONS_FORMAT = 'gaugeway-definitions';

export interface ExportedChart extends ChartInput { name: string }
export interface ExportedSpace { name: string; tags: boolean; charts: ExportedChart[] }
export interface ExportedAccount {
  email: string;
  metrics: (MetricInput & { name: string })[];
  spaces: ExportedSpace[];
  annotation_streams: { name: string; display_name: string | null }[];
}
export interface Definitions {
  format: typeof DEFINITIONS_FORMAT;
  version: 1;
  exported_at: string;
  accounts: ExportedAccount[];
}

export type Tally = Record<'created' | 'updated' | 'skipped', number>;
export type ImportReport = Record<string, { metrics: Tally; spaces: Tally; charts: Tally; annotation_streams: Tally }>;

type Deps = Pick<Runtime, 'accounts' | 'catalog' | 'spaces' | 'annotations'>;

function metricOut(m: MetricRecord): MetricInput & { name: string } {
  const { created_by_ua: _ua, ...attributes } = m.attributes;
  return {
    name: m.name, type: m.type, display_name: m.display_name, description: m.description, period: m.period,
    attributes, ...(m.composite ? { composite: m.composite } : {}), source_lag: m.source_lag ?? null,
  };
}

function chartOut(c: ChartRecord): ExportedChart {
  return {
    name: c.name, type: c.type, streams: c.streams.map(({ id: _id, ...s }) => s), min: c.min, max: c.max, label: c.label,
    related_space: c.related_space, thresholds: c.thresholds, ...c.extra,
  };
}

export async function exportDefinitions(deps: Deps): Promise<Definitions> {
  const accounts: ExportedAccount[] = [];
  for (const a of deps.accounts.listAccounts()) {
    const spaces: ExportedSpace[] = [];
    for (const s of await deps.spaces.list(a.id)) {
      spaces.push({ name: s.name, tags: s.tags ?? false, charts: (await deps.spaces.listCharts(a.id, s.id)).map(chartOut) });
    }
    accounts.push({
      email: a.email,
      metrics: (await deps.catalog.list(a.id)).map(metricOut),
      spaces,
      annotation_streams: (await deps.annotations.listStreams(a.id)).map((s) => ({ name: s.name, display_name: s.display_name })),
    });
  }
  return { format: DEFINITIONS_FORMAT, version: 1, exported_at: new Date().toISOString(), accounts };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export async function importDefinitions(deps: Deps, defs: unknown): Promise<ImportReport> {
  const d = defs as Partial<Definitions>;
  if (typeof defs !== 'object' || defs === null || d.format !== DEFINITIONS_FORMAT || d.version !== 1 || !Array.isArray(d.accounts)) {
    throw new GaugewayError('E_USAGE', `not a Gaugeway definitions file (format "${DEFINITIONS_FORMAT}", version 1)`);
  }
  // the whole file is checked before anything is written: a file refused half-way left the
  // accounts and definitions before the fault imported, and an edited file is fixed and run again
  checkDefinitions(d.accounts);
  const report: ImportReport = {};
  for (const acc of d.accounts) {
    const account = deps.accounts.findAccount(acc.email) ?? (await deps.accounts.createAccount(acc.email));
    const tally = (): Tally => ({ created: 0, updated: 0, skipped: 0 });
    const r = (report[acc.email] = { metrics: tally(), spaces: tally(), charts: tally(), annotation_streams: tally() });
    // a rule that depends on what this install holds (a limit, a composite it refuses) is
    // met only as the file is written: the import stops there, what came before it stays
    const at = (what: string, err: unknown): never => {
      const detail = err instanceof ApiError ? JSON.stringify(err.body) : (err as Error).message;
      throw new GaugewayError('E_USAGE', `${acc.email}: ${what}: ${detail} (the import stopped here: what comes before it in the file was imported, and importing the fixed file again skips that)`);
    };
    // metrics first, composites last: a composite's definition names the others
    const metrics = [...(acc.metrics ?? [])].sort((x, y) => Number(x.type === 'composite') - Number(y.type === 'composite'));
    for (const m of metrics) {
      const existing = await deps.catalog.get(account.id, m.name);
      if (existing && same(metricOut(existing), { ...metricOut(existing), ...m, attributes: { ...metricOut(existing).attributes, ...m.attributes } })) { r.metrics.skipped++; continue; }
      const { name, ...input } = m;
      try { await deps.catalog.put(account.id, name, input, 'gaugeway import'); } catch (err) { at(`metric ${name}`, err); }
      r.metrics[existing ? 'updated' : 'created']++;
    }
    for (const s of acc.spaces ?? []) {
      let space = (await deps.spaces.list(account.id)).find((x) => x.name.trim().toLowerCase() === s.name.trim().toLowerCase());
      const input: SpaceInput = { name: s.name, tags: s.tags };
      try {
        if (!space) { space = await deps.spaces.create(account.id, input); r.spaces.created++; }
        else if ((space.tags ?? false) !== s.tags) { await deps.spaces.rename(account.id, space.id, input); r.spaces.updated++; }
        else r.spaces.skipped++;
      } catch (err) { at(`space ${s.name}`, err); }
      const charts = await deps.spaces.listCharts(account.id, space!.id);
      for (const c of s.charts ?? []) {
        const existing = charts.find((x) => x.name === c.name);
        try {
          if (!existing) { await deps.spaces.createChart(account.id, space!.id, c); r.charts.created++; }
          else if (same(chartOut(existing), { ...chartOut(existing), ...c })) r.charts.skipped++;
          else { await deps.spaces.updateChart(account.id, space!.id, existing.id, c); r.charts.updated++; }
        } catch (err) { at(`chart ${c.name} of space ${s.name}`, err); }
      }
    }
    for (const st of acc.annotation_streams ?? []) {
      let outcome: 'created' | 'updated' | 'unchanged' = 'unchanged';
      try { outcome = await deps.annotations.ensureStream(account.id, st.name, st.display_name); } catch (err) { at(`annotation stream ${st.name}`, err); }
      r.annotation_streams[outcome === 'unchanged' ? 'skipped' : outcome]++;
    }
  }
  return report;
}

const validMetric = bodyValidator<MetricInput>(metricPutSchema);
const validSpace = bodyValidator<SpaceInput>(spaceSchema);
const validChart = bodyValidator<ChartInput>(chartSchema(true));

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Refuses the file, naming the first fault, unless every account and definition in it
 * has the shape and passes the field rules its API request would (a metric of type
 * "bogus" or a chart of type "nonsense" was stored as given, where the API refuses it).
 */
function checkDefinitions(accounts: unknown[]): void {
  const fault = (where: string, what: string): never => { throw new GaugewayError('E_USAGE', `nothing was imported: ${where}: ${what}`); };
  const fields = (where: string, check: () => unknown) => {
    try { check(); } catch (err) { fault(where, err instanceof ApiError ? JSON.stringify(err.body) : (err as Error).message); }
  };
  const list = (where: string, v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : fault(where, 'must be a list'));
  const named = (where: string, v: unknown): Record<string, unknown> & { name: string } =>
    (isObject(v) && typeof v.name === 'string' ? v as Record<string, unknown> & { name: string } : fault(where, 'must be an object with a name'));
  const emails = new Set<string>();
  accounts.forEach((acc, i) => {
    if (!isObject(acc) || typeof acc.email !== 'string') return fault(`accounts[${i}]`, 'must be an object with an email');
    const email = acc.email;
    fields(`accounts[${i}]`, () => checkEmail(email));
    if (emails.has(email.toLowerCase())) fault(email, 'the account is listed twice');
    emails.add(email.toLowerCase());
    for (const kind of ['alerts', 'services']) {
      const listed: unknown = acc[kind];
      if (Array.isArray(listed) && listed.length) {
        throw new GaugewayError('E_USAGE', `${email}: this release cannot import ${kind} yet; remove them from the file to import the rest`);
      }
    }
    list(`${email}: metrics`, acc.metrics).forEach((raw, j) => {
      const m = named(`${email}: metrics[${j}]`, raw);
      if (!METRIC_NAME.test(m.name)) fault(`${email}: metric ${m.name}`, METRIC_NAME_MESSAGE);
      fields(`${email}: metric ${m.name}`, () => validMetric(m, false));
    });
    list(`${email}: spaces`, acc.spaces).forEach((raw, j) => {
      const s = named(`${email}: spaces[${j}]`, raw);
      const { charts, ...space } = s;
      fields(`${email}: space ${s.name}`, () => validSpace(space, false));
      if (typeof s.tags !== 'boolean') fault(`${email}: space ${s.name}`, 'tags must be true or false');
      list(`${email}: space ${s.name}: charts`, charts).forEach((c, k) => {
        named(`${email}: space ${s.name}: charts[${k}]`, c);
        fields(`${email}: chart ${(c as { name: string }).name} of space ${s.name}`, () => validChart(c, false));
      });
    });
    list(`${email}: annotation_streams`, acc.annotation_streams).forEach((raw, j) => {
      const st = named(`${email}: annotation_streams[${j}]`, raw);
      if (!METRIC_NAME.test(st.name)) fault(`${email}: annotation stream ${st.name}`, METRIC_NAME_MESSAGE);
      if (st.display_name !== undefined && st.display_name !== null && typeof st.display_name !== 'string') fault(`${email}: annotation stream ${st.name}`, 'display_name must be a string or null');
    });
  });
}
